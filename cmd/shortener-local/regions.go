package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/localglobaltable"
	"github.com/shortlink-dev/shortener/internal/localroute53"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/mrsc"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// The multi-Region twin (SHORTENER_LOCAL_REGIONS): each Region is a local
// API Gateway with its own set of functions, served on an address of its
// own as a Region's API is, over its own replicas of the links and
// idempotency tables, which replicate as MREC global tables do
// (internal/localglobaltable); all share one DynamoDB Local, the other
// tables (the reservation table standing for MRSC) and the edge. The
// edge reaches them as CloudFront reaches the deployed Regions
// (docs/deploy.md, "Local Regions"): /v1 through the local Route 53's
// latency records with health checks (internal/localroute53), redirects
// through an origin group, the nearest Region first, failing over to the
// next (localedge.OriginGroup).

// Defaults of the Regions' settings.
const (
	// defaultHealthInterval is Route 53's fast health check interval (its
	// default is 30 s; internal/localroute53).
	defaultHealthInterval = 10 * time.Second
	// regionsPath is the admin endpoint: GET it for the Regions' state,
	// POST regionsPath/{region}/stop or /start to stop or start a Region's
	// origin.
	regionsPath = "/_local/regions"
	// healthPath is the /v1 API's health endpoint, which the Route 53
	// health checks ask (infra/api HealthPath).
	healthPath = "/v1/health"
)

// regionSettings are the multi-Region twin's settings.
type regionSettings struct {
	// names is SHORTENER_LOCAL_REGIONS: two or three Regions of one MRSC
	// set, the nearest first; nil runs one Region, as make dev does.
	names []string
	// healthInterval is SHORTENER_LOCAL_HEALTH_INTERVAL, the health
	// checks' RequestInterval (10s).
	healthInterval time.Duration
	// healthThreshold is SHORTENER_LOCAL_HEALTH_THRESHOLD, their
	// FailureThreshold (3, 1 to 10).
	healthThreshold int
	// replicationDelay is SHORTENER_LOCAL_REPLICATION_DELAY: how long a
	// write to one Region's links or idempotency table takes to reach the
	// others (1s; 0s: at once).
	replicationDelay time.Duration
}

func loadRegionSettings(getenv func(string) string) (regionSettings, error) {
	s := regionSettings{healthInterval: defaultHealthInterval, healthThreshold: localroute53.DefaultFailureThreshold,
		replicationDelay: localglobaltable.DefaultDelay}
	if v := getenv("SHORTENER_LOCAL_REGIONS"); v != "" {
		for n := range strings.SplitSeq(v, ",") {
			s.names = append(s.names, strings.TrimSpace(n))
		}
		if err := checkRegions(s.names); err != nil {
			return regionSettings{}, fmt.Errorf("SHORTENER_LOCAL_REGIONS: %q: %w", v, err)
		}
		if len(s.names) == 1 {
			s.names = nil // one Region is the ordinary run
		}
	}
	if v := getenv("SHORTENER_LOCAL_HEALTH_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Minute {
			return regionSettings{}, fmt.Errorf("SHORTENER_LOCAL_HEALTH_INTERVAL: %q is not a duration above 0s and at most 1m, such as 10s", v)
		}
		s.healthInterval = d
	}
	if v := getenv("SHORTENER_LOCAL_REPLICATION_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Minute {
			return regionSettings{}, fmt.Errorf("SHORTENER_LOCAL_REPLICATION_DELAY: %q is not a duration from 0s (at once) to 1m, such as 1s", v)
		}
		s.replicationDelay = d
	}
	if v := getenv("SHORTENER_LOCAL_HEALTH_THRESHOLD"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > localroute53.MaxFailureThreshold {
			return regionSettings{}, fmt.Errorf("SHORTENER_LOCAL_HEALTH_THRESHOLD: %q is not a whole number from 1 to %d", v, localroute53.MaxFailureThreshold)
		}
		s.healthThreshold = n
	}
	return s, nil
}

// checkRegions accepts one to three distinct Regions of one MRSC set.
func checkRegions(names []string) error {
	if len(names) > 3 {
		return errors.New("at most three Regions (an MRSC table has three)")
	}
	// The local Regions obey the rule of the MRSC table the reservation
	// table stands for.
	set := mrsc.SetOf(names[0])
	if set == nil {
		return fmt.Errorf("%q is in no MRSC Region set (US: %s; EU: %s; AP: %s)", names[0],
			strings.Join(mrsc.Sets[0], ", "), strings.Join(mrsc.Sets[1], ", "), strings.Join(mrsc.Sets[2], ", "))
	}
	for i, n := range names {
		if !slices.Contains(set, n) {
			return fmt.Errorf("%q is not in the MRSC set of %q (%s)", n, names[0], strings.Join(set, ", "))
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("%q is given twice", n)
		}
	}
	return nil
}

// regionalOrigin is one Region's API served on its own address, which a
// test may stop and start again: stopped, nothing listens there, as when
// the Region's API is down.
type regionalOrigin struct {
	name    string
	handler http.Handler
	log     *slog.Logger

	mu   sync.Mutex
	addr string // fixed at the first start, kept across stops
	srv  *http.Server
}

// start listens on the Region's address (any free port the first time).
func (o *regionalOrigin) start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv != nil {
		return nil
	}
	addr := o.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("region %s: %w", o.name, err)
	}
	o.addr = ln.Addr().String()
	srv := &http.Server{Handler: o.handler, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(o.log.Handler(), slog.LevelWarn)}
	o.srv = srv
	go func() { _ = srv.Serve(ln) }()
	o.log.Info("region origin started", "addr", o.addr)
	return nil
}

// stop closes the listener and every connection at once: requests in
// flight are cut off, as in an outage.
func (o *regionalOrigin) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv == nil {
		return
	}
	_ = o.srv.Close()
	o.srv = nil
	o.log.Warn("region origin stopped", "addr", o.addr)
}

func (o *regionalOrigin) serving() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.srv != nil
}

func (o *regionalOrigin) url() *url.URL {
	o.mu.Lock()
	defer o.mu.Unlock()
	return &url.URL{Scheme: "http", Host: o.addr}
}

// regionSet is the Regions behind the edge and the local Route 53 that
// picks one for /v1.
type regionSet struct {
	origins  []*regionalOrigin
	resolver *localroute53.Resolver
	// v1 is each Region's origin as the edge reaches it; redirects go to
	// the origin group of the nearest two.
	v1        map[string]http.Handler
	redirects http.Handler
	// replication copies the links and idempotency tables between the
	// Regions once the tables exist (startReplication).
	replication atomic.Pointer[localglobaltable.Replicator]
}

// newRegionSet starts each Region's origin on its own address.
func newRegionSet(s regionSettings, handlers []http.Handler, log *slog.Logger) (*regionSet, error) {
	rs := &regionSet{v1: map[string]http.Handler{}}
	var records []localroute53.Record
	for i, name := range s.names {
		o := &regionalOrigin{name: name, handler: handlers[i], log: log.With("region", name)}
		if err := o.start(); err != nil {
			rs.stop()
			return nil, err
		}
		rs.origins = append(rs.origins, o)
		records = append(records, localroute53.Record{Region: name, Target: o.url().String()})
		rs.v1[name] = localedge.HTTPOrigin(o.url())
	}
	resolver, err := localroute53.New(localroute53.Options{Records: records, Interval: s.healthInterval, Path: healthPath,
		FailureThreshold: s.healthThreshold, Log: log.With("component", "route53")})
	if err != nil {
		rs.stop()
		return nil, err
	}
	rs.resolver = resolver
	rs.redirects = localedge.OriginGroup(rs.v1[s.names[0]], rs.v1[s.names[1]])
	return rs, nil
}

// ServeHTTP is the edge's origin: the /v1 behaviour's requests (and the
// gateway's health check) go to the Region the /v1 domain resolves to
// now, the others to the redirect origin group.
func (rs *regionSet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if notRedirect(r) {
		rs.v1[rs.resolver.Resolve()].ServeHTTP(w, r)
		return
	}
	rs.redirects.ServeHTTP(w, r)
}

// stop stops every Region's origin.
func (rs *regionSet) stop() {
	for _, o := range rs.origins {
		o.stop()
	}
}

func (rs *regionSet) origin(name string) *regionalOrigin {
	for _, o := range rs.origins {
		if o.name == name {
			return o
		}
	}
	return nil
}

// regionState is one Region in GET regionsPath's answer.
type regionState struct {
	localroute53.Status
	// Serving is false while the Region's origin is stopped.
	Serving bool `json:"serving"`
}

// regionsState is GET regionsPath's answer.
type regionsState struct {
	// V1 is the Region /v1 goes to now.
	V1      string        `json:"v1"`
	Regions []regionState `json:"regions"`
	// Replication counts the copies between the Regions' tables.
	Replication localglobaltable.Stats `json:"replication"`
}

// admin serves regionsPath: GET for the state, POST
// regionsPath/{region}/stop or /start.
func (rs *regionSet) admin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, regionsPath)
		if rest == "" || rest == "/" {
			if r.Method != http.MethodGet {
				w.Header().Set("Allow", "GET")
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			st := regionsState{V1: rs.resolver.Resolve()}
			if rp := rs.replication.Load(); rp != nil {
				st.Replication = rp.Stats()
			}
			for _, s := range rs.resolver.Statuses() {
				st.Regions = append(st.Regions, regionState{Status: s, Serving: rs.origin(s.Region).serving()})
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			_ = json.NewEncoder(w).Encode(st)
			return
		}
		name, action, ok := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
		o := rs.origin(name)
		if !ok || o == nil || action != "stop" && action != "start" {
			http.Error(w, "not found: use "+regionsPath+"/{region}/stop or /start", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if action == "stop" {
			o.stop()
		} else if err := o.start(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// run checks the Regions' health until ctx is done.
func (rs *regionSet) run(ctx context.Context) { rs.resolver.Run(ctx) }

// besidePrefix serves the paths below prefix with local and everything
// else with next.
func besidePrefix(next http.Handler, prefix string, local http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == prefix || strings.HasPrefix(p, prefix+"/") {
			local.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// describe names each Region with its origin's address, the nearest first.
func (rs *regionSet) describe() string {
	var parts []string
	for _, o := range rs.origins {
		parts = append(parts, o.name+"="+o.url().String())
	}
	return strings.Join(parts, ",")
}

// regionEnv is getenv with AWS_REGION set to region, as Lambda sets it for
// the functions of that Region.
func regionEnv(getenv func(string) string, region string) func(string) string {
	return func(name string) string {
		if name == "AWS_REGION" {
			return region
		}
		return getenv(name)
	}
}

// regionTables are Region i's links and idempotency tables: the first
// Region's are the configured ones, the others' are named after them and
// the Region, as the replicas of a global table share one name on AWS but
// cannot in one DynamoDB Local.
func (s regionSettings) regionTables(cfg config.Config, i int) (links, idempotency string) {
	if i == 0 {
		return cfg.LinksTable, cfg.IdempotencyTable
	}
	return cfg.LinksTable + "-" + s.names[i], cfg.IdempotencyTable + "-" + s.names[i]
}

// regionConfig is Region i's functions' configuration: cfg with that
// Region's replicas of the links and idempotency tables, its own edge
// marks table, and the marks tables of the two Regions of the redirect
// origin group for the management API to read.
func (s regionSettings) regionConfig(cfg config.Config, i int) config.Config {
	base := cfg.EdgeMarksTable
	cfg.LinksTable, cfg.IdempotencyTable = s.regionTables(cfg, i)
	cfg.EdgeMarksTable = s.marksTable(base, i)
	cfg.EdgeMarksTables = []edgemarks.Table{{Region: s.names[0], Name: s.marksTable(base, 0)}, {Region: s.names[1], Name: s.marksTable(base, 1)}}
	return cfg
}

// marksTable is Region i's edge marks table: regional tables share one
// name on AWS (a fixed name in every Region) but cannot in one DynamoDB
// Local.
func (s regionSettings) marksTable(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + "-" + s.names[i]
}

// createReplicas creates every Region's links and idempotency tables. The
// idempotency tables get a stream, which the replication reads (on AWS a
// global table's replicas replicate without one the application sees).
func createReplicas(ctx context.Context, db *dynamodb.Client, s regionSettings, cfg config.Config) error {
	idem := tableschema.Idempotency()
	idem.Stream = tableschema.NewAndOldImages
	for i := range s.names {
		links, idemTable := s.regionTables(cfg, i)
		if err := localtable.Create(ctx, db, idemTable, idem); err != nil {
			return err
		}
		if err := localtable.Create(ctx, db, links, tableschema.Links()); err != nil {
			return err
		}
		if err := localtable.Create(ctx, db, s.marksTable(cfg.EdgeMarksTable, i), tableschema.EdgeMarks()); err != nil {
			return err
		}
	}
	return nil
}

// startReplication copies every write of a Region's links or idempotency
// table to the other Regions' (internal/localglobaltable) until ctx is
// done; wait returns once it has stopped.
func (rs *regionSet) startReplication(ctx context.Context, db *dynamodb.Client, endpoint string, s regionSettings,
	cfg config.Config, log *slog.Logger) (wait func(), err error) {
	var links, idem []localglobaltable.Replica
	for i, name := range s.names {
		l, d := s.regionTables(cfg, i)
		links = append(links, localglobaltable.Replica{Region: name, Table: l})
		idem = append(idem, localglobaltable.Replica{Region: name, Table: d})
	}
	delay := s.replicationDelay
	if delay == 0 {
		delay = -1 // at once
	}
	rp, err := localglobaltable.New(db, emulator.NewStreamsClient(endpoint), localglobaltable.Options{
		Tables: [][]localglobaltable.Replica{links, idem}, VersionAttribute: tableschema.AttrVersion,
		Delay: delay, Log: log.With("component", "replication"),
	})
	if err != nil {
		return nil, err
	}
	rs.replication.Store(rp)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := rp.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("replication stopped", "error", err.Error())
		}
	}()
	return func() { <-done }, nil
}

// withHealth answers GET healthPath in front of a Region's gateway as the
// deployed /v1 API does, from API Gateway itself with no function: one
// eventually consistent GetItem of the reserved code "health" in the
// Region's links table, 200 when DynamoDB answers, 503 when it fails
// (infra/api addHealth). No API key is needed.
// db is nil until DynamoDB Local runs, and the check fails until then.
func withHealth(gw http.Handler, db *atomic.Pointer[dynamodb.Client], linksTable string, timeout time.Duration) http.Handler {
	key := map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: "health"}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != healthPath || r.Method != http.MethodGet {
			gw.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		err := errors.New("DynamoDB Local is not running yet")
		if c := db.Load(); c != nil {
			_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(linksTable), Key: key,
				ProjectionExpression: aws.String(tableschema.AttrCode), ConsistentRead: aws.Bool(false)})
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"unavailable"}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
}
