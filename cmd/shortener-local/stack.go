package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// errInterrupted is a start cut short by the end of its context: run
// returns no error for it.
var errInterrupted = errors.New("interrupted while starting")

// stack is what run starts, in the order it starts it: the front (the
// listener, each Region's gateway, the edge and the local-only routes
// beside it), serving at once and answering 503 until the rest is up;
// then the emulators, the tables, the event pipelines and the functions.
// stop undoes it in the reverse order.
type stack struct {
	s     settings
	cs    clickSettings
	rset  regionSettings
	log   *slog.Logger
	ln    net.Listener
	base  string // the gateway's origin
	cfg   config.Config
	front front
	oidc  http.Handler // the local OpenID provider, at oidcPath
	// console is the console's config.json: sign-in through oidc.
	console console.Config

	srv    *http.Server
	served chan error

	dynamo, kinesalite *emulator.Process
	endpoint           string // DynamoDB's
	kinesisEndpoint    string
	db                 *dynamodb.Client
	clients            fnclients.Clients
	clicks             *clickPipeline
	life               *lifecycle
	hooks              *webhookPipeline
	archive            *archiveRun
	stopArchive        func()
	stopLife           func()
	stopWebhooks       func()
	stopReplication    func()
}

// localVersionStoreARN names the local run's key value store of link
// versions, which has one.
const localVersionStoreARN = "arn:aws:cloudfront::000000000000:key-value-store/local-link-versions"

// front is what serves before the functions exist: one gateway per
// Region (regions.go; one when SHORTENER_LOCAL_REGIONS names none) over
// backends that answer 503 until they are given their handlers, the
// Regions' failover, the edge, and the late stand-ins the local-only
// routes call once what they reach has started.
type front struct {
	bs            []*backends
	healthDB      atomic.Pointer[dynamodb.Client]
	regions       *regionSet
	edge          *localedge.Edge
	invalidations *edgecache.Recorder
	// versions, with SHORTENER_EDGE_VERSION_KEYS, puts the management
	// API's link versions into the edge's key value store in place of the
	// recorder's invalidations.
	versions *edgeversion.Writer
	// store is that key value store, whose old versions the reclaim
	// schedule sweeps, as deployed.
	store     *localedge.KeyValueStore
	sink      lateSink
	costs     costs
	reclaim   lateReclaim
	sqsOutage lateOutage
	archive   lateArchive
}

// newStack reads the settings and listens: a taken port fails now, not
// after DynamoDB Local's start.
func newStack(getenv func(string) string, stderr io.Writer) (*stack, error) {
	st := &stack{stopLife: func() {}, stopWebhooks: func() {}, stopReplication: func() {}, stopArchive: func() {}}
	var err error
	if st.s, err = loadSettings(getenv); err != nil {
		return nil, err
	}
	if st.cs, err = loadClickSettings(getenv); err != nil {
		return nil, err
	}
	if st.rset, err = loadRegionSettings(getenv); err != nil {
		return nil, err
	}
	st.log = slog.New(slog.NewJSONHandler(stderr, nil))
	if st.ln, err = net.Listen("tcp", st.s.addr); err != nil {
		return nil, err
	}
	st.base = origin(st.ln.Addr())
	st.cfg, err = config.Load(functionEnv(getenv, st.base))
	if err == nil {
		err = st.cfg.Require("LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL")
	}
	if err != nil {
		st.ln.Close()
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if st.oidc, err = newOIDC(st.base, functionEnv(getenv, st.base)("AUTH_CLIENT_ID")); err != nil {
		st.ln.Close()
		return nil, fmt.Errorf("local OpenID provider: %w", err)
	}
	env := functionEnv(getenv, st.base)
	st.console = consoleConfig(st.base, env("AUTH_ISSUER"), env("AUTH_CLIENT_ID"))
	return st, nil
}

// setPhase tells every Region's gateway what the start is doing.
func (st *stack) setPhase(p string) {
	for _, b := range st.front.bs {
		b.setPhase(p)
	}
}

// serve builds the front and serves it on the listener.
func (st *stack) serve() error {
	if err := st.buildFront(); err != nil {
		st.ln.Close()
		return err
	}
	f, log := &st.front, st.log
	// Local-only routes sit beside the edge, as the AWS console and
	// schedules sit beside the distribution there.
	top := beside(beside(f.edge, edgeStatsPath, edgeStats(f.edge.Stats)), "/_local/reclaim", &f.reclaim)
	top = beside(top, sqsOutagePath, &f.sqsOutage)
	top = beside(top, costsPath, &f.costs)
	top = beside(top, auditArchivePath, &f.archive)
	top = besidePrefix(top, oidcPath, st.oidc)
	if f.regions != nil {
		top = besidePrefix(top, regionsPath, f.regions.admin())
	}
	st.srv = &http.Server{
		Handler:           accessLog(log, st.s.accessLog, top),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	st.served = make(chan error, 1)
	go func() { st.served <- st.srv.Serve(st.ln) }()
	log.Info("listening", "addr", st.ln.Addr().String())
	return nil
}

// buildFront builds each Region's gateway, the Regions' failover between
// them, and the edge in front.
func (st *stack) buildFront() error {
	f, cfg, rset, log := &st.front, st.cfg, st.rset, st.log
	f.bs = []*backends{{}}
	for range max(len(rset.names)-1, 0) {
		f.bs = append(f.bs, &backends{})
	}
	st.setPhase("starting")
	lock, err := newOriginLock(cfg, log)
	if err != nil {
		return err
	}
	// Each gateway answers GET /v1/health itself, as the deployed API does,
	// from its Region's links table once DynamoDB Local runs.
	gws := make([]http.Handler, len(f.bs))
	for i, b := range f.bs {
		gw, err := newGateway(b, lock, st.s.usagePlan, log)
		if err != nil {
			return err
		}
		links := cfg.LinksTable
		if len(rset.names) > 1 {
			links, _ = rset.regionTables(cfg, i)
		}
		gws[i] = withHealth(gw, &f.healthDB, links, cfg.DBTimeout)
	}
	edgeOrigin := gws[0]
	if len(rset.names) > 1 {
		if f.regions, err = newRegionSet(rset, gws, log); err != nil {
			return err
		}
		edgeOrigin = f.regions
	}
	// CloudFront in front of the gateway. The management API invalidates
	// through the recorder, which starts an invalidation at the edge that
	// completes s.invalidationTime later; create invalidates nothing.
	// The distribution as deployed (shared/edgespec), with the failover
	// Region's origin group when there are Regions to fail over between.
	// The console's config.json, and its CSP, from the same description
	// as deployed.
	cc := st.console
	dist := edgespec.Distribution(edgespec.Options{Failover: f.regions != nil, Console: true, VersionKeys: st.s.versionKeys,
		ConsoleTokenOrigin: cc.TokenOrigin(st.base)})
	var kvs *localedge.KeyValueStore
	var edgeKVS cloudfrontjs.KeyValueStore // a nil interface without the store
	if st.s.versionKeys {
		kvs = localedge.NewKeyValueStore(st.s.edgeKVSDelay(), nil)
		edgeKVS = kvs
		f.versions = &edgeversion.Writer{API: kvs, ARN: localVersionStoreARN}
		f.store = kvs
	}
	f.edge, err = localedge.New(localedge.Options{
		KeyValueStore:     edgeKVS,
		Origin:            originLog(log, st.s.accessLog, edgeOrigin),
		ConsoleOrigin:     localedge.BucketWith(st.s.consoleDir, map[string][]byte{console.ConfigKey: cc.JSON()}),
		Distribution:      &dist,
		Sink:              countingSink{next: &f.sink, costs: &f.costs},
		Country:           st.cs.country,
		Log:               log.With("component", "edge"),
		InvalidationDelay: st.s.edgeInvalidationDelay(),
		// Only the edge can reach the redirect origin (originLock).
		RedirectOriginHeaders: lock.edgeHeaders(),
	})
	if err != nil {
		return err
	}
	f.invalidations = edgecache.NewRecorder(time.Now)
	f.invalidations.OnInvalidate(f.edge.Invalidate)
	if f.versions != nil {
		// As deployed: a version that cannot be put is invalidated.
		f.versions.Fallback = f.invalidations
	}
	return nil
}

// start starts what the front's routes reach, in order: DynamoDB Local
// and the tables, kinesalite, the webhook and click pipelines, the
// functions, the lifecycle; the first error ends it (errInterrupted when
// ctx ended it).
func (st *stack) start(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	if err := st.startDynamoDB(ctx); err != nil {
		return err
	}
	// The functions are built as their Lambdas are (their Build), over
	// DynamoDB Local, whose one shared database serves every Region, and
	// the local edge; they log here, tagged with their names, and write
	// their EMF metrics to stdout as in Lambda.
	st.clients = fnclients.Clients{AWS: emulator.AWSConfig(st.endpoint), Edge: st.front.invalidations, Log: st.log, Metrics: stdout}
	if st.front.versions != nil {
		st.clients.Edge = st.front.versions
		st.clients.VersionStore, st.clients.VersionStoreARN = st.front.store, localVersionStoreARN
	}
	if err := st.createTables(ctx); err != nil {
		return err
	}
	if err := st.startKinesis(ctx); err != nil {
		return err
	}
	if err := st.startPipelines(ctx); err != nil {
		return err
	}
	if err := st.startArchive(ctx); err != nil {
		return err
	}
	return st.startFunctions(ctx, getenv)
}

// startFailure is the error of an emulator (name) that did not start on
// port (0: any free one), configured by the settings named prefix_PORT and
// prefix_ENDPOINT: errInterrupted when ctx ended, else err, led on a fixed
// port by the likeliest cause and its remedies (the emulator's output
// follows in err).
func startFailure(ctx context.Context, err error, name string, port int, prefix string) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	if port != 0 {
		return fmt.Errorf("if port %d is taken, set %s_PORT=0 for any free port or %s_ENDPOINT to use a running %s: %w", port, prefix, prefix, name, err)
	}
	return err
}

// startDynamoDB starts DynamoDB Local, unless SHORTENER_DYNAMODB_ENDPOINT
// names a running one.
func (st *stack) startDynamoDB(ctx context.Context) error {
	s := st.s
	st.endpoint = s.dynamoEndpoint
	if st.endpoint == "" {
		st.setPhase("starting DynamoDB Local")
		st.log.Info("starting DynamoDB Local", "port", s.dynamoPort)
		var err error
		st.dynamo, err = emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{Port: s.dynamoPort})
		if err != nil {
			return startFailure(ctx, err, "DynamoDB Local", s.dynamoPort, "SHORTENER_DYNAMODB")
		}
		st.endpoint = st.dynamo.Endpoint()
	}
	st.db = emulator.NewDynamoDBClient(st.endpoint)
	st.front.healthDB.Store(st.db)
	return nil
}

// createTables creates the tables (each Region's replicas with
// SHORTENER_LOCAL_REGIONS), seeds the keys, warms DynamoDB Local up and
// starts the replication between the Regions.
func (st *stack) createTables(ctx context.Context) error {
	db, cfg, regions := st.db, st.cfg, st.front.regions
	st.setPhase("creating tables")
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	var err error
	if regions != nil {
		err = createReplicas(tctx, db, st.rset, cfg)
	}
	if err == nil {
		err = localtable.Links(tctx, db, cfg.LinksTable, cfg.IdempotencyTable)
	}
	if err == nil && cfg.LinkTagsTable != "" {
		err = localtable.LinkTags(tctx, db, cfg.LinkTagsTable)
	}
	if err == nil && cfg.MissesTable != "" {
		err = localtable.Create(tctx, db, cfg.MissesTable, tableschema.Misses())
	}
	if err == nil && cfg.EdgeMarksTable != "" {
		err = localtable.Create(tctx, db, cfg.EdgeMarksTable, tableschema.EdgeMarks())
	}
	if err == nil && cfg.AuditTable != "" {
		err = localtable.Create(tctx, db, cfg.AuditTable, tableschema.Audit())
	}
	if err == nil {
		err = seedKeys(tctx, db, cfg.KeysTable, st.s.apiKeys, st.log)
	}
	if err == nil && cfg.MembersTable != "" {
		err = localtable.Create(tctx, db, cfg.MembersTable, tableschema.Members())
	}
	cancel()
	if err == nil {
		err = createReservations(ctx, db, cfg.ReservationTable)
	}
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("tables at %s: %w", st.endpoint, err)
	}
	st.setPhase("warming up DynamoDB")
	warmUp(ctx, db, cfg.LinksTable, cfg.IdempotencyTable)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if regions != nil {
		rctx, cancelReplication := context.WithCancel(ctx)
		wait, err := regions.startReplication(rctx, db, st.endpoint, st.rset, cfg, st.log)
		if err != nil {
			cancelReplication()
			return fmt.Errorf("replication: %w", err)
		}
		st.stopReplication = func() { cancelReplication(); wait() }
	}
	return nil
}

// startKinesis starts kinesalite, unless SHORTENER_KINESIS_ENDPOINT names
// a running one.
func (st *stack) startKinesis(ctx context.Context) error {
	cs := st.cs
	st.kinesisEndpoint = cs.kinesisEndpoint
	if st.kinesisEndpoint != "" {
		return nil
	}
	st.setPhase("starting kinesalite")
	st.log.Info("starting kinesalite", "port", cs.kinesisPort)
	var err error
	st.kinesalite, err = emulator.StartKinesalite(ctx, emulator.KinesaliteOptions{Port: cs.kinesisPort})
	if err != nil {
		return startFailure(ctx, err, "kinesalite", cs.kinesisPort, "SHORTENER_KINESIS")
	}
	st.kinesisEndpoint = st.kinesalite.Endpoint()
	return nil
}

// startPipelines starts the webhook queues' and the click stream's event
// source mappings, and hands the edge its click stream.
func (st *stack) startPipelines(ctx context.Context) error {
	f := &st.front
	st.setPhase("creating the webhooks table")
	wctx, cancelWebhooks := context.WithCancel(ctx)
	var err error
	st.hooks, err = startWebhooks(wctx, st.cfg, &st.clients, st.db, st.log)
	st.stopWebhooks = cancelWebhooks
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("webhooks table: %w", err)
	}
	f.sqsOutage.set(st.hooks)
	st.setPhase("creating the click stream")
	st.clicks, err = startClicks(ctx, st.cs, st.cfg, st.clients, st.db, emulator.NewKinesisClient(st.kinesisEndpoint), st.log)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("click pipeline at %s: %w", st.kinesisEndpoint, err)
	}
	f.sink.set(st.clicks.writer)
	return nil
}

// startArchive starts the audit archive (SHORTENER_AUDIT_ARCHIVE=true):
// the audit table's stream into the auditarchive function, into the S3
// stand-in.
func (st *stack) startArchive(ctx context.Context) error {
	if !st.s.auditArchive || st.cfg.AuditTable == "" {
		return nil
	}
	st.setPhase("starting the audit archive")
	actx, cancel := context.WithCancel(ctx)
	a, err := startAuditArchive(actx, st.cfg, st.clients, st.db, st.endpoint, st.log)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("audit archive: %w", err)
	}
	st.archive = a
	st.stopArchive = func() { cancel(); a.stop() }
	st.front.archive.set(a)
	return nil
}

// startFunctions builds each Region's functions, as its Lambdas are, with
// that Region's AWS_REGION, over its own replicas of the links and
// idempotency tables and the shared others; starts the lifecycle (the
// links table's stream and the reclaim schedule); and gives the gateways
// their handlers.
func (st *stack) startFunctions(ctx context.Context, getenv func(string) string) error {
	f, cfg, rset := &st.front, st.cfg, st.rset
	hooksAPI, err := webhooksfn.Build(cfg, st.clients)
	if err != nil {
		return err
	}
	hs := make([]localgw.Handlers, len(f.bs))
	for i := range f.bs {
		rcfg, renv := cfg, functionEnv(getenv, st.base)
		if f.regions != nil {
			renv = functionEnv(regionEnv(getenv, rset.names[i]), st.base)
			if rcfg, err = config.Load(renv); err != nil {
				return fmt.Errorf("configuration of %s: %w", rset.names[i], err)
			}
			rcfg = rset.regionConfig(rcfg, i)
		}
		if hs[i], err = newHandlers(rcfg, renv, st.clients, f.costs.clients); err != nil {
			return err
		}
		hs[i].Webhooks = hooksAPI.Handle
	}
	lctx, cancelLife := context.WithCancel(ctx)
	st.stopLife = cancelLife
	st.life, err = startLifecycle(lctx, cfg, st.clients, st.db, st.endpoint, st.s.reclaimEvery, st.log, st.hooks.stream)
	if err != nil {
		return fmt.Errorf("lifecycle: %w", err)
	}
	f.reclaim.set(st.life)
	// The usage plan holds the one usage-plan key the authorizer
	// returns; who the caller is, is the authorizer's (the keys table).
	keys := localgw.StaticKeys(LocalUsageKey)
	for i, b := range f.bs {
		b.serve(hs[i], keys)
	}
	return nil
}

// announce starts the Regions' health checks, logs and prints what runs,
// and calls onReady, when not nil, with the gateway's origin.
func (st *stack) announce(ctx context.Context, stderr io.Writer, onReady func(origin string)) {
	regions, base := st.front.regions, st.base
	if regions != nil {
		// The health checks start once the Regions answer them.
		go regions.run(ctx)
		st.log.Info("regions", "regions", regions.describe())
	}
	st.log.Info("ready", "origin", base, "dynamodb", st.endpoint, "kinesis", st.kinesisEndpoint)
	printBanner(stderr, banner{origin: base, dynamo: st.endpoint, startedDynamo: st.dynamo != nil,
		kinesis: st.kinesisEndpoint, startedKinesis: st.kinesalite != nil, cfg: st.cfg, clicks: st.cs, keys: st.s.apiKeys})
	if regions != nil {
		fmt.Fprintf(stderr, "  Regions (nearest first): %s\n  their health and where /v1 goes: curl -s %s%s\n  stop one: curl -XPOST %s%s/%s/stop (and /start)\n\n",
			regions.describe(), base, regionsPath, base, regionsPath, st.rset.names[0])
	}
	if onReady != nil {
		onReady(base)
	}
}

// wait serves until ctx is done, the server fails or an emulator the
// stack started exits.
func (st *stack) wait(ctx context.Context) error {
	var dynamoDied, kinesisDied <-chan struct{}
	if st.dynamo != nil {
		dynamoDied = st.dynamo.Done()
	}
	if st.kinesalite != nil {
		kinesisDied = st.kinesalite.Done()
	}
	select {
	case <-ctx.Done():
		st.log.Info("shutting down")
		return nil
	case err := <-st.served:
		return fmt.Errorf("serve: %w", err)
	case <-dynamoDied:
		return fmt.Errorf("DynamoDB Local exited: %v\n%s", st.dynamo.Err(), st.dynamo.Output())
	case <-kinesisDied:
		return fmt.Errorf("kinesalite exited: %v\n%s", st.kinesalite.Err(), st.kinesalite.Output())
	}
}

// stop shuts down in order: the HTTP server first, so no request is cut
// off from its database; then the edge's log records are flushed to the
// stream and the pollers stop; then kinesalite and DynamoDB Local, if the
// stack started them. Its error is the emulators' failures to stop.
func (st *stack) stop() (err error) {
	f, log := &st.front, st.log
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if serr := st.srv.Shutdown(sctx); serr != nil {
		log.Warn("requests cut off at shutdown", "error", serr.Error())
		st.srv.Close()
	}
	if f.regions != nil {
		f.regions.stop()
	}
	// The edge's last records go to the stream before its pollers stop.
	if serr := f.edge.Close(sctx); serr != nil {
		log.Warn("edge log records not flushed", "error", serr.Error())
	}
	if st.clicks != nil {
		if serr := st.clicks.stop(sctx); serr != nil {
			log.Warn("click records not flushed to the stream", "error", serr.Error())
		}
	}
	st.stopLife()
	if st.life != nil {
		st.life.wait()
	}
	st.stopReplication()
	st.stopArchive()
	// Deliveries stop last: the stream and the clicks feed them.
	st.stopWebhooks()
	if st.hooks != nil {
		st.hooks.wait()
	}
	if st.kinesalite != nil {
		if serr := st.kinesalite.Stop(); serr != nil {
			err = errors.Join(err, serr)
		}
		log.Info("stopped kinesalite")
	}
	if st.dynamo != nil {
		if serr := st.dynamo.Stop(); serr != nil {
			err = errors.Join(err, serr)
		}
		log.Info("stopped DynamoDB Local")
	}
	log.Info("stopped")
	return err
}
