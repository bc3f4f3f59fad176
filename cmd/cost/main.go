// Command cost measures what the system's DynamoDB calls consume: it drives
// a synthetic click stream through the real clicks handler, and creates,
// redirect misses and stats queries through their real handlers, against
// DynamoDB Local with ReturnConsumedCapacity on every call, and prints the
// units per operation that docs/cost-model.md and infra/costmodel take
// their per-operation figures from.
//
//	make cost                     # or: go run ./cmd/cost -records 100000
//
// The click stream goes through both click store designs, each on its own
// table, and the figures are printed side by side: today's design
// (shared/dynamo, one item per code and bucket) and the new one
// (clickstore/packedclicks, a rollup per shard batch compacted into
// bucket-day items), whose figure includes its compaction's reads and
// writes, split by level (rollups, compaction state, segments, chain
// items, folds, deletes; packedclicks.Level). -design old or new measures
// one; the command then checks the counts against the other design's or,
// with one design, against a count in memory of the same stream. -groups,
// -buckets and -merge-bytes change the new design's layout: the
// packedclicks package doc says how a run with one group of 64 buckets
// gives a group, a chain item and a bucket-day the seed's volume.
//
// It starts its own DynamoDB Local (in memory) unless
// SHORTENER_TEST_DYNAMODB_ENDPOINT names a running one. Nothing leaves
// 127.0.0.1.
//
// The stream's shape, and why:
//   - popularity follows a Zipf law with exponent 1 over the codes by
//     default: the classic fit for requests to web objects (Breslau et al.,
//     "Web Caching and Zipf-like Distributions", INFOCOM 1999, measured
//     0.64-0.83 on proxy traces; short links shared on social media are
//     more concentrated), so 1 sits between the two and -zipf moves it;
//   - about 20 % of clicks are bots and link previewers, a quarter of them
//     HEAD; 30 countries and 50 referrer hosts, each Zipf-distributed; one
//     click in fifty without a country, four in ten without a Referer;
//   - the clicks arrive at the seeds' average rate (10 B a month, 3,858/s)
//     over 4 shards, and each batch is what the deployed event source
//     mapping hands the function: at most 1,000 records of one shard, or
//     what the shard received in the 5 s batching window
//     (infra/clickpipeline).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

func main() {
	sp := streamSpec{
		Countries: 30, Referrers: 50, CodeLength: 7,
		Rate: 10e9 / (30 * 24 * 3600), Shards: 4, BatchSize: 1000, Window: 5 * time.Second,
		Start: time.Date(2026, 11, 30, 11, 50, 0, 0, time.UTC), Seed: 1,
	}
	flag.IntVar(&sp.Records, "records", 100_000, "click records in the stream")
	flag.IntVar(&sp.Codes, "codes", 100_000, "distinct links the clicks go to")
	flag.Float64Var(&sp.Zipf, "zipf", 1.0, "exponent of the links' popularity law")
	flag.Float64Var(&sp.BotShare, "bots", 0.2, "share of clicks by bots and link previewers")
	flag.Float64Var(&sp.HitRatio, "hits", 0.9, "share of clicks the edge answered from its cache")
	flag.IntVar(&sp.Shards, "shards", sp.Shards, "Kinesis shards the stream is spread over")
	flag.DurationVar(&sp.Span, "span", 0, "spread the clicks' times over this long from midnight (e.g. 26h), batches still cut at the seeds' rate, the stores' clock following the stream, and print the units per simulated hour")
	opt := options{}
	flag.StringVar(&opt.Designs, "design", "both", "click store designs to measure: old (dynamo.ClickStore, one item per code and bucket), new (packedclicks) or both")
	flag.IntVar(&opt.Buckets, "buckets", packedclicks.DefaultBuckets, "the new design's code buckets")
	flag.IntVar(&opt.Groups, "groups", packedclicks.DefaultGroups, "the new design's segment groups (buckets per group: buckets / groups); see the packedclicks package doc for the seed-like scaled run")
	flag.IntVar(&opt.MergeBytes, "merge-bytes", 0, "the new design's segment bytes a group gathers before they are merged into day items (packedclicks.DefaultMergeBytes when 0)")
	flag.IntVar(&opt.CompactEvery, "compact-every", clicksfn.DefaultCompactEvery, "the new design's compaction: every this many applied batches")
	flag.IntVar(&opt.Check, "check", 500, "codes on which both designs' counts are compared after the run")
	flag.Func("volumes", "with -span: measure the new design's clicks again at these multiples of the run's volume per group (e.g. 10: the same clicks over a tenth of -span), printed beside the run's in one table", func(v string) error {
		for f := range strings.SplitSeq(v, ",") {
			k, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || k <= 1 {
				return fmt.Errorf("%q: want multiples above 1, such as 10", f)
			}
			opt.Volumes = append(opt.Volumes, k)
		}
		return nil
	})
	creates := flag.Int("creates", 1000, "links to create for the per-create figure (and as many redirect misses)")
	flag.BoolVar(&opt.Audit, "audit", true, "creates write their audit entries, as deployed (false: the figure without the audit log)")
	queries := flag.Int("queries", 200, "stats queries per kind of query")
	jsonOut := flag.Bool("json", false, "print the figures as one JSON object")
	verbose = flag.Bool("v", false, "log the units of each measurement by operation")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	endpoint, done, err := dynamoDB(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer done()

	// DynamoDB Local under-reports transactions; the meter sizes their
	// items itself through a client it does not meter.
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint), Tag: levelOf}
	opt.Creates, opt.Queries = *creates, *queries
	if sp.Span > 0 {
		sp.Start = sp.Start.Truncate(24 * time.Hour)
	}
	r, err := run(ctx, emulator.AWSConfig(endpoint), &meter, sp, opt)
	if err != nil {
		done()
		log.Fatal(err)
	}
	if *jsonOut {
		if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
			log.Fatal(err)
		}
		return
	}
	r.print(os.Stdout)
}

// dynamoDB returns the endpoint of a DynamoDB Local and a function that
// stops it if this command started it.
func dynamoDB(ctx context.Context) (string, func(), error) {
	if ep := os.Getenv("SHORTENER_TEST_DYNAMODB_ENDPOINT"); ep != "" {
		return ep, func() {}, nil
	}
	p, err := emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{})
	if err != nil {
		return "", nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	return p.Endpoint(), func() { _ = p.Stop() }, nil
}

// report holds the measured figures.
type report struct {
	Stream struct {
		Records, Clicks, Bots, Codes, Batches, Shards, BatchSize int
		Zipf                                                     float64
		WindowSeconds                                            float64
	}
	// Clicks is today's design (dynamo.ClickStore), Packed the new one
	// (packedclicks), on the same stream; nil when not measured.
	Clicks, Packed *clickFigures
	Create         struct {
		WRUPerCreate, RRUPerCreate     float64 // without Idempotency-Key
		WRUPerKeyedCreate, RRUPerKeyed float64 // with one
		WRUPerReplay, RRUPerReplay     float64 // the same key again
		// MultiRegion: the same through the reservation table (an MRSC
		// table in AWS, linkstore.Reserved); Reservation* are the units of
		// the reservation table alone, which MRSC bills again as a
		// replicated write in every other replica.
		MultiRegion struct {
			WRUPerCreate, RRUPerCreate, ReservationWRU          float64
			WRUPerKeyedCreate, RRUPerKeyed, ReservationWRUKeyed float64
			WRUPerReplay, RRUPerReplay                          float64
			// Calls* are the reservation-table calls per create, each a
			// cross-Region round trip on MRSC (made one after another).
			CallsPerCreate, CallsPerKeyedCreate, CallsPerReplay float64
		}
	}
	Redirect struct {
		RRUPerMiss, RRUPerUnknown float64
	}
	// Authorizer is the /v1 authorizer's reads per call, by credential.
	Authorizer *authorizerFigures `json:",omitempty"`
	// Checked is how many codes both designs were found to count alike;
	// with one design, that it counted as a count in memory of the same
	// stream (clickstore.Memory through the same handler) did, named by
	// CheckedAgainst.
	Checked        int
	CheckedAgainst string
	// Buckets, Groups and CompactEvery are the new design's settings.
	Buckets, Groups, CompactEvery int
	// Stats and PackedStats are the stats queries over each design.
	Stats, PackedStats *statsFigures
	// Volumes are the new design's units a click at the run's volume per
	// group and at each of -volumes' multiples of it.
	Volumes []volumeFigures `json:",omitempty"`
}

// clickFigures are what counting the stream consumed in one design.
type clickFigures struct {
	WRU, RRU    float64
	WRUPerClick float64
	RRUPerClick float64
	// Calls is how many DynamoDB calls answered; ByOperation the units per
	// operation (TransactWriteItems: the apply; PutItem, BatchGetItem,
	// Query, GetItem: compaction and checkpoint reads).
	Calls       int
	ByOperation map[string]float64
	// Compactions ran (new design), the last one after the stream, so that
	// every rollup's compaction is billed.
	Compactions int
	// SegmentBytes and Merged are what the compactions wrote as segments
	// (encoded bytes) and how many day items they merged (new design);
	// Days what they wrote of day items: chain items, folds, deletes.
	SegmentBytes, Merged int
	Days                 dayFigures
	// ByLevel holds the units (WRU of writes, RRU of reads) by level of
	// the new design and operation ("chain PutItem"; packedclicks.Level).
	ByLevel map[string]float64 `json:",omitempty"`
	// Hours are the units per simulated hour of the clicks' times (with
	// -span).
	Hours []hourFigures `json:",omitempty"`
}

// hourFigures are what the batches of one simulated hour consumed.
type hourFigures struct {
	Hour        int
	Clicks      int
	WRU, RRU    float64
	WRUPerClick float64
	ByLevel     map[string]float64 `json:",omitempty"`
}

// dayFigures are the day items the compactions wrote and deleted.
type dayFigures struct {
	ChainItems, ChainBytes int
	Folded, FoldBytes      int
	Deleted                int
	Largest                int
}

func (d *dayFigures) add(c packedclicks.Compaction) {
	d.ChainItems += c.Merged - c.Folded
	d.ChainBytes += c.ChainBytes
	d.Folded += c.Folded
	d.FoldBytes += c.FoldBytes
	d.Deleted += c.Deleted
	d.Largest = max(d.Largest, c.LargestDayItem)
}

// levelOf tags the meter's calls with the new design's level.
func levelOf(ctx context.Context) string { return string(packedclicks.LevelOf(ctx)) }

// statsFigures are RRU per stats query.
type statsFigures struct {
	RRUPerDefault, RRUPerDefaultTop       float64 // 7 days daily: a tail link, the most clicked one
	RRUPer90DayHourly, RRUPer90DayHourTop float64 // 90 days hourly, the longest hourly range
}

// options are the command's choices besides the stream.
type options struct {
	Designs               string
	Buckets, CompactEvery int
	Groups                int
	MergeBytes            int
	Creates, Queries      int
	// Audit makes the creates write their audit entries (-audit).
	Audit bool
	// Check is how many codes the two designs' counts are compared on.
	Check int
	// Volumes are the multiples of the run's volume per group at which the
	// new design's clicks are measured again (-volumes).
	Volumes []float64
}

func (o options) old() bool    { return o.Designs == "both" || o.Designs == "old" }
func (o options) packed() bool { return o.Designs == "both" || o.Designs == "new" }

// run measures on the DynamoDB Local sdk points at, every client made from
// sdk with meter installed.
func run(ctx context.Context, sdk aws.Config, meter *capacity.Meter, sp streamSpec, opt options) (report, error) {
	var r report
	if !opt.old() && !opt.packed() {
		return r, fmt.Errorf("-design %q: want old, new or both", opt.Designs)
	}
	if len(opt.Volumes) > 0 && (sp.Span <= 0 || !opt.packed()) {
		return r, errors.New("-volumes needs -span and the new design: it spreads the same clicks over a part of the span")
	}
	c, err := newCostRun(ctx, meter.Config(sdk), meter, sp, opt, &r)
	if err != nil {
		return r, err
	}
	stores, packed, err := c.clicks()
	if err != nil {
		return r, err
	}
	made, err := c.creates()
	if err != nil {
		return r, err
	}
	if err := c.multiRegionCreates(); err != nil {
		return r, err
	}
	if err := c.redirects(made); err != nil {
		return r, err
	}
	if err := c.authorizer(); err != nil {
		return r, err
	}
	if err := c.stats(stores); err != nil {
		return r, err
	}
	if packed != nil {
		if err := c.compactRest(packed); err != nil {
			return r, err
		}
	}
	if err = c.check(stores, packed); err != nil || packed == nil {
		return r, err
	}
	r.Volumes = []volumeFigures{volumeOf(1, sp.Span, c.st.Clicks, r.Packed, r.PackedStats)}
	r.Volumes[0].Checked = r.Checked
	for _, k := range opt.Volumes {
		v, err := c.volume(k)
		if err != nil {
			return r, fmt.Errorf("%gx the volume: %w", k, err)
		}
		r.Volumes = append(r.Volumes, v)
	}
	return r, nil
}

// volumeFigures are the new design's units a click at one volume per
// group: the run's (Times 1) or the same clicks over Span, a part of the
// run's span (Times the run's volume), each counted on its own table.
type volumeFigures struct {
	Times                    float64
	Span                     time.Duration
	Clicks                   int
	WRUPerClick, RRUPerClick float64
	// WithoutFold leave out the fold level (folds, deletes of folded
	// chains and their reads): a span of hours holds a day's fold only
	// when it passes midnight, so these compare volumes like for like.
	WRUPerClickWithoutFold, RRUPerClickWithoutFold float64
	Folded                                         int
	// ByLevel are the units by level and operation (clickFigures.ByLevel).
	ByLevel map[string]float64 `json:",omitempty"`
	// Checked is how many codes were found to count as a count in memory
	// of the same stream does.
	Checked int
	// Stats are the stats answers' read units at the end of the run.
	Stats *statsFigures `json:",omitempty"`
}

// volumeOf sums f up for the volume table.
func volumeOf(times float64, span time.Duration, clicks int, f *clickFigures, stats *statsFigures) volumeFigures {
	v := volumeFigures{Times: times, Span: span, Clicks: clicks, WRUPerClick: f.WRUPerClick, RRUPerClick: f.RRUPerClick, Folded: f.Days.Folded, Stats: stats,
		ByLevel: f.ByLevel}
	foldW, foldR := 0.0, 0.0
	for k, n := range f.ByLevel {
		if level, _, _ := strings.Cut(k, " "); level != string(packedclicks.LevelFold) {
			continue
		}
		if isWrite(k) {
			foldW += n
		} else {
			foldR += n
		}
	}
	if clicks > 0 {
		v.WRUPerClickWithoutFold, v.RRUPerClickWithoutFold = (f.WRU-foldW)/float64(clicks), (f.RRU-foldR)/float64(clicks)
	}
	return v
}

// volume measures the new design's clicks at k times the run's volume per
// group: the same stream's clicks stamped over a k-th of the span, so a
// group receives them k times as fast while batches, compactions and
// merges hold what they hold in the run (they are cut by clicks, not by
// time), on a table of their own; then the stats answers at its end, and
// the counts against a count in memory of the same stream.
func (c *costRun) volume(k float64) (volumeFigures, error) {
	v := *c
	v.sp.Span = time.Duration(float64(c.sp.Span) / k)
	v.opt.Designs = "new"
	v.r = &report{}
	v.suffix = c.suffix + "-" + strconv.FormatFloat(k, 'f', -1, 64) + "x"
	v.clock = &simClock{t: v.sp.Start}
	var err error
	if v.st, err = generate(v.sp); err != nil {
		return volumeFigures{}, err
	}
	stores, packed, err := v.clicks()
	if err != nil {
		return volumeFigures{}, err
	}
	if err := v.stats(stores); err != nil {
		return volumeFigures{}, err
	}
	if err := v.compactRest(packed); err != nil {
		return volumeFigures{}, err
	}
	if err := v.check(stores, packed); err != nil {
		return volumeFigures{}, err
	}
	f := volumeOf(k, v.sp.Span, v.st.Clicks, v.r.Packed, v.r.PackedStats)
	f.Checked = v.r.Checked
	return f, nil
}

// costRun is one run of the command: the tables it made, the handlers'
// shared parts, the stream, and the report it fills.
type costRun struct {
	ctx    context.Context
	db     *dynamodb.Client
	meter  *capacity.Meter
	sp     streamSpec
	opt    options
	r      *report
	suffix string // of every table's name
	cfg    config.Config
	// fn is what a function's Build is given: the metered clients, a
	// quiet log and discarded metrics.
	fn     fnclients.Clients
	links  *dynamo.LinkStore
	owners *apikey.Resolver
	// audit is the creates' audit log; nil with -audit=false.
	audit audit.Recorder
	quiet *slog.Logger
	clock *simClock
	st    stream
}

// newCostRun creates the links and idempotency tables and generates the
// stream.
func newCostRun(ctx context.Context, sdk aws.Config, meter *capacity.Meter, sp streamSpec, opt options, r *report) (*costRun, error) {
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	env := map[string]string{
		"LINKS_TABLE": "cost-links-" + suffix, "IDEMPOTENCY_TABLE": "cost-idem-" + suffix,
		"SHORTENER_BASE_URL": "https://short.example",
		// Units, not latency, are measured here: generous bounds keep a busy
		// machine from turning a slow answer into a 503.
		"SHORTENER_DB_TIMEOUT": "30s", "SHORTENER_REDIRECT_DB_TIMEOUT": "30s",
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		return nil, err
	}
	db := dynamodb.NewFromConfig(sdk)
	if err := localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable); err != nil {
		return nil, err
	}
	var auditLog *dynamo.AuditStore
	if opt.Audit {
		table := "cost-audit-" + suffix
		if err := localtable.Create(ctx, db, table, tableschema.Audit()); err != nil {
			return nil, err
		}
		auditLog = dynamo.NewAuditStore(db, dynamo.AuditConfig{Table: table, Timeout: 10 * time.Second})
	}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	c := &costRun{
		ctx: ctx, db: db, meter: meter, sp: sp, opt: opt, r: r, suffix: suffix, cfg: cfg,
		// The stores' clock: the stream's time (the new design closes
		// days by it).
		clock: &simClock{t: sp.Start},
		quiet: quiet,
		fn:    fnclients.Clients{AWS: sdk, Log: quiet, Metrics: io.Discard},
		// The keys table in memory: a function reads a key's owner once
		// per key and instance every SHORTENER_KEY_CACHE_TTL (half a
		// unit), which is no per-operation cost.
		owners: apikey.NewResolver(apikey.NewMemory(map[string]string{apiKey: owner}), apikey.ResolverOptions{}),
		links: dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: 10 * time.Second,
			Audit: auditLog}),
	}
	if auditLog != nil {
		c.audit = auditLog
	}
	if c.st, err = generate(sp); err != nil {
		return nil, err
	}
	st := c.st
	r.Stream.Records, r.Stream.Clicks, r.Stream.Bots, r.Stream.Codes = sp.Records, st.Clicks, st.Bots, sp.Codes
	r.Stream.Batches, r.Stream.Shards, r.Stream.BatchSize = len(st.Batches), sp.Shards, sp.BatchSize
	r.Stream.Zipf, r.Stream.WindowSeconds = sp.Zipf, sp.Window.Seconds()
	r.Buckets, r.Groups, r.CompactEvery = opt.Buckets, opt.Groups, opt.CompactEvery
	return c, nil
}

// mx is a function's metrics, discarded.
func mx(fn string) *metrics.Emitter { return metrics.New(io.Discard, "Shortener", fn) }

// measure runs f n times and answers the units per run.
func (c *costRun) measure(n int, f func(i int) error) (wru, rru float64, err error) {
	before := c.meter.Usage()
	for i := range n {
		if err := f(i); err != nil {
			return 0, 0, err
		}
	}
	u := c.meter.Usage().Sub(before)
	if *verbose {
		log.Printf("%d calls: %v", n, u.ByOperation)
	}
	return u.WRU / float64(n), u.RRU / float64(n), nil
}

// clicks sends the same stream through each design, each on its own
// table, and answers the stores the stats are asked of.
func (c *costRun) clicks() ([]statsStore, *packedclicks.Store, error) {
	ctx, db, r := c.ctx, c.db, c.r
	var err error
	var stores []statsStore
	if c.opt.old() {
		table := "cost-analytics-" + c.suffix
		if err := localtable.Create(ctx, db, table, tableschema.Analytics()); err != nil {
			return nil, nil, err
		}
		s := dynamo.NewClickStore(db, dynamo.ClickConfig{Table: table, Timeout: 10 * time.Second})
		if r.Clicks, err = c.count(s, nil, table); err != nil {
			return nil, nil, err
		}
		r.Stats = &statsFigures{}
		stores = append(stores, statsStore{s, r.Stats})
	}
	var packed *packedclicks.Store
	if c.opt.packed() {
		table := "cost-packed-" + c.suffix
		if err := localtable.Create(ctx, db, table, tableschema.Analytics()); err != nil {
			return nil, nil, err
		}
		opt := c.opt
		pc := packedclicks.Config{Table: table, Timeout: 30 * time.Second, Buckets: opt.Buckets, Groups: opt.Groups, MergeBytes: opt.MergeBytes, Now: c.clock.now}
		packed = packedclicks.New(db, pc)
		// The compaction of the rollups left at the end waits for the
		// stats queries below, which read them as they would read those a
		// steady stream always leaves; it is billed to the clicks after.
		if r.Packed, err = c.count(packed, packed, table); err != nil {
			return nil, nil, err
		}
		r.PackedStats = &statsFigures{}
		stores = append(stores, statsStore{packed, r.PackedStats})
	}
	return stores, packed, nil
}

// count sends the stream through the clicks handler on store, compacting
// with compactor when there is one, and answers what it consumed, in all
// and (with -span) hour by hour.
func (c *costRun) count(store clicksfn.Store, compactor *packedclicks.Store, table string) (*clickFigures, error) {
	meter, sp, st := c.meter, c.sp, c.st
	o := clicksfn.Options{Store: store, Log: c.quiet, Metrics: mx("clicks")}
	// The visitor salts live in the same table, on the stream's clock.
	o.Salts = &visitors.Cache{Salts: stateSalts{dynamo.NewSalts(c.db, dynamo.Config{Table: table, Timeout: 10 * time.Second}, c.clock.now)}, Now: c.clock.now}
	cc := &countingCompactor{store: compactor}
	if compactor != nil {
		o.Compactor, o.CompactEvery = cc, c.opt.CompactEvery
	}
	ch := clicksfn.New(o)
	before := meter.Usage()
	hourStart, hour, hourClicks := before, -1, 0
	var hours []hourFigures
	endHour := func() {
		if hour >= 0 && hourClicks > 0 {
			u := meter.Usage().Sub(hourStart)
			hours = append(hours, hourFigures{Hour: hour, Clicks: hourClicks, WRU: u.WRU, RRU: u.RRU, WRUPerClick: u.WRU / float64(hourClicks), ByLevel: u.ByTag})
		}
		hourStart, hourClicks = meter.Usage(), 0
	}
	for _, b := range st.Batches {
		// The new design's clock follows the stream: its days close
		// as the stream's do, not as the wall clock's.
		at := b.Records[len(b.Records)-1].Kinesis.ApproximateArrivalTimestamp.Time
		c.clock.set(at)
		if sp.Span > 0 {
			if h := int(at.Sub(sp.Start) / time.Hour); h != hour {
				endHour()
				hour = h
			}
			hourClicks += len(b.Records)
		}
		resp, err := ch.Handle(c.ctx, b)
		if err != nil {
			return nil, err
		}
		if len(resp.BatchItemFailures) > 0 {
			return nil, fmt.Errorf("clicks: a batch reported a failure from %s", resp.BatchItemFailures[0].ItemIdentifier)
		}
	}
	endHour()
	u := meter.Usage().Sub(before)
	return &clickFigures{WRU: u.WRU, RRU: u.RRU, WRUPerClick: u.WRU / float64(st.Clicks), RRUPerClick: u.RRU / float64(st.Clicks),
		Calls: u.Calls, ByOperation: u.ByOperation, Compactions: cc.runs, Hours: hours,
		SegmentBytes: cc.segmentBytes, Merged: cc.merged, Days: cc.days, ByLevel: u.ByTag}, nil
}

// create creates the i-th link through cr, under key when there is one,
// and answers its code.
func (c *costRun) create(cr *createfn.Handler, i int, key string) (string, error) {
	req := apiRequest("POST", "/v1/links", nil)
	req.Body = fmt.Sprintf(`{"url":"https://example.com/landing/%d?utm_source=newsletter&utm_medium=email"}`, i)
	if key != "" {
		req.Headers["Idempotency-Key"] = key
	}
	resp, err := cr.Handle(c.ctx, req)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 201 {
		return "", fmt.Errorf("create: %d %s", resp.StatusCode, resp.Body)
	}
	var out struct{ Code string }
	return out.Code, json.Unmarshal([]byte(resp.Body), &out)
}

// creates measures creates, with and without an Idempotency-Key, and a
// replay, and answers the codes made without a key.
func (c *costRun) creates() ([]string, error) {
	r, creates := c.r, c.opt.Creates
	cr, err := createfn.New(createfn.Options{Store: c.links, Config: c.cfg, Log: c.quiet, Metrics: mx("create"), Owners: c.owners, Audit: c.audit})
	if err != nil {
		return nil, err
	}
	var made []string
	if r.Create.WRUPerCreate, r.Create.RRUPerCreate, err = c.measure(creates, func(i int) error {
		code, err := c.create(cr, i, "")
		made = append(made, code)
		return err
	}); err != nil {
		return nil, err
	}
	keyed := func(i int) error {
		_, err := c.create(cr, creates+i, "cost-"+strconv.Itoa(i))
		return err
	}
	if r.Create.WRUPerKeyedCreate, r.Create.RRUPerKeyed, err = c.measure(creates, keyed); err != nil {
		return nil, err
	}
	if r.Create.WRUPerReplay, r.Create.RRUPerReplay, err = c.measure(creates, keyed); err != nil {
		return nil, err
	}
	return made, nil
}

// multiRegionCreates measures the same creates in a deployment that takes
// writes in every Region: the reservation table first
// (dynamo.Ledger), metered apart too.
func (c *costRun) multiRegionCreates() error {
	creates := c.opt.Creates
	resTable := "cost-reservations-" + c.suffix
	if err := localtable.Create(c.ctx, c.db, resTable, tableschema.Reservations()); err != nil {
		return err
	}
	var resMeter capacity.Meter
	ledger := dynamo.NewLedger(dynamodb.New(c.db.Options(), resMeter.Options), dynamo.LedgerConfig{Table: resTable, Timeout: 10 * time.Second})
	crm, err := createfn.New(createfn.Options{Store: linkstore.NewReserved(c.links, ledger, nil), Config: c.cfg, Log: c.quiet, Metrics: mx("create"), Owners: c.owners,
		Audit: c.audit})
	if err != nil {
		return err
	}
	mr := &c.r.Create.MultiRegion
	for _, m := range []struct {
		wru, rru, res, calls *float64
		offset               int
		key                  string
	}{
		{&mr.WRUPerCreate, &mr.RRUPerCreate, &mr.ReservationWRU, &mr.CallsPerCreate, 3 * creates, ""},
		{&mr.WRUPerKeyedCreate, &mr.RRUPerKeyed, &mr.ReservationWRUKeyed, &mr.CallsPerKeyedCreate, 4 * creates, "mr-cost-"},
		{&mr.WRUPerReplay, &mr.RRUPerReplay, nil, &mr.CallsPerReplay, 4 * creates, "mr-cost-"},
	} {
		before := resMeter.Usage()
		if *m.wru, *m.rru, err = c.measure(creates, func(i int) error {
			key := ""
			if m.key != "" {
				key = m.key + strconv.Itoa(i)
			}
			_, err := c.create(crm, m.offset+i, key)
			return err
		}); err != nil {
			return err
		}
		used := resMeter.Usage().Sub(before)
		if m.res != nil {
			*m.res = used.WRU / float64(creates)
		}
		*m.calls = float64(used.Calls) / float64(creates)
	}
	return nil
}

// redirects measures redirect misses: each code made once through a cold
// in-process cache, then codes that do not exist. The redirect is built as
// its Lambda builds it.
func (c *costRun) redirects(made []string) error {
	rd, err := redirectfn.Build(c.cfg, c.fn)
	if err != nil {
		return err
	}
	follow := func(code string, want int) error {
		resp, err := rd.Handle(c.ctx, events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/" + code,
			PathParameters: map[string]string{"code": code}})
		if err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("redirect %s: %d, want %d", code, resp.StatusCode, want)
		}
		return nil
	}
	if _, c.r.Redirect.RRUPerMiss, err = c.measure(len(made), func(i int) error { return follow(made[i], 302) }); err != nil {
		return err
	}
	_, c.r.Redirect.RRUPerUnknown, err = c.measure(c.opt.Creates, func(i int) error {
		return follow(fmt.Sprintf("zz%05d", i), 404)
	})
	return err
}

// stats measures stats queries: the link must exist and be the caller's;
// the most clicked code and one from the tail, over the default range and
// 90 days hourly (the longest hourly range the API takes), in each design.
func (c *costRun) stats(stores []statsStore) error {
	sp, st := c.sp, c.st
	top, tail := st.Codes[0], st.Codes[len(st.Codes)/2]
	for _, code := range []string{top, tail} {
		l := link.Link{Code: code, URL: "https://example.com/" + code, Owner: owner, Status: link.StatusActive,
			CreatedAt: sp.Start.Add(-24 * time.Hour), ExpiresAt: sp.Start.Add(365 * 24 * time.Hour), RedirectStatus: 302, Version: 1}
		// A -volumes run asks of the links the run before it seeded.
		if err := c.links.Create(c.ctx, l, nil); err != nil && !errors.Is(err, link.ErrConflict) {
			return fmt.Errorf("seed link %s: %w", code, err)
		}
	}
	// The queries are asked an hour into the stream or, with -span, at its
	// end (the end of its last day: a recent day's chain and segments).
	end := sp.Start.Add(time.Hour)
	if sp.Span > 0 {
		end = sp.Start.Add(sp.Span)
	}
	hourly := map[string]string{"granularity": "hour", "from": end.Add(-(89*24 + 1) * time.Hour).Format(time.RFC3339),
		"to": end.Format(time.RFC3339)}
	for _, ss := range stores {
		sh := statsfn.New(statsfn.Options{Links: c.links, Clicks: ss.clicks, Owners: c.owners,
			Now: func() time.Time { return end }, Log: c.quiet, Metrics: mx("stats")})
		query := func(code string, params map[string]string) func(int) error {
			return func(int) error {
				req := apiRequest("GET", "/v1/links/"+code+"/stats", params)
				req.PathParameters = map[string]string{"code": code}
				resp, err := sh.Handle(c.ctx, req)
				if err != nil {
					return err
				}
				if resp.StatusCode != 200 {
					return fmt.Errorf("stats %s: %d %s", code, resp.StatusCode, resp.Body)
				}
				return nil
			}
		}
		for _, q := range []struct {
			dst    *float64
			code   string
			params map[string]string
		}{
			{&ss.figures.RRUPerDefault, tail, nil}, {&ss.figures.RRUPerDefaultTop, top, nil},
			{&ss.figures.RRUPer90DayHourly, tail, hourly}, {&ss.figures.RRUPer90DayHourTop, top, hourly},
		} {
			var err error
			if _, *q.dst, err = c.measure(c.opt.Queries, query(q.code, q.params)); err != nil {
				return err
			}
		}
	}
	return nil
}

// compactRest bills the compaction of the rollups left to the packed
// design's clicks, as the next batches would have; with -span, also every
// merge the closed days are due.
func (c *costRun) compactRest(packed *packedclicks.Store) error {
	before := c.meter.Usage()
	p := c.r.Packed
	for range 1000 {
		res, err := packed.Compact(c.ctx)
		if err != nil {
			return err
		}
		if res.Rollups > 0 {
			p.Compactions++
		}
		p.SegmentBytes += res.SegmentBytes
		p.Merged += res.Merged
		p.Days.add(res)
		if c.sp.Span == 0 || res.Gen == 0 || res.Busy {
			break
		}
	}
	u := c.meter.Usage().Sub(before)
	p.WRU, p.RRU, p.Calls = p.WRU+u.WRU, p.RRU+u.RRU, p.Calls+u.Calls
	p.WRUPerClick, p.RRUPerClick = p.WRU/float64(c.st.Clicks), p.RRU/float64(c.st.Clicks)
	for op, n := range u.ByOperation {
		p.ByOperation[op] += n
	}
	for k, n := range u.ByTag {
		p.ByLevel[k] += n
	}
	return nil
}

// check holds both designs to the same counts, or the one measured to
// what a count in memory of the same stream counted: the top links, the
// tail's, and a sample in between.
func (c *costRun) check(stores []statsStore, packed *packedclicks.Store) error {
	sp, st, r := c.sp, c.st, c.r
	var sample []string
	for i := 0; i < len(st.Codes); i += max(1, len(st.Codes)/max(1, c.opt.Check)) {
		sample = append(sample, st.Codes[i])
	}
	sample = append(sample, st.Codes[:min(50, len(st.Codes))]...)
	from, to := sp.Start.Add(-24*time.Hour), sp.Start.Add(max(48*time.Hour, sp.Span+24*time.Hour))
	var want clickstore.Store
	if len(stores) == 2 {
		want, r.CheckedAgainst = stores[0].clicks.(clickstore.Store), "today's design"
	} else {
		mem := clickstore.NewMemory(0)
		ch := clicksfn.New(clicksfn.Options{Store: mem, Log: c.quiet, Metrics: mx("clicks")})
		for _, b := range st.Batches {
			if _, err := ch.Handle(c.ctx, b); err != nil {
				return err
			}
		}
		want, r.CheckedAgainst = mem, "a count in memory"
	}
	var got clickstore.Store = packed
	if packed == nil {
		got = stores[0].clicks.(clickstore.Store)
	}
	if err := sameCounts(c.ctx, want, got, sample, from, to); err != nil {
		return fmt.Errorf("the counts disagree with %s: %w", r.CheckedAgainst, err)
	}
	r.Checked = len(sample)
	return nil
}

// simClock is the new design's clock: the stream's time.
type simClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *simClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *simClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// countingCompactor counts the compactions that ran.
type countingCompactor struct {
	store                *packedclicks.Store
	runs                 int
	segmentBytes, merged int
	days                 dayFigures
}

func (c *countingCompactor) Compact(ctx context.Context) (packedclicks.Compaction, error) {
	res, err := c.store.Compact(ctx)
	if err == nil && !res.Busy && res.Rollups > 0 {
		c.runs++
	}
	c.segmentBytes += res.SegmentBytes
	c.merged += res.Merged
	c.days.add(res)
	return res, err
}

// sameCounts checks that two stores hold the same counts for codes: every
// hour, day, country and referrer of the stream's range. The new design is
// read once a code (a View, as the stats function reads it).
func sameCounts(ctx context.Context, a, b clickstore.Store, codes []string, from, to time.Time) error {
	for _, code := range codes {
		a, b := statsfn.Clicks(a), statsfn.Clicks(b)
		if v, ok := b.(statsfn.Viewer); ok {
			view, err := v.View(ctx, code, from.Truncate(24*time.Hour), to)
			if err != nil {
				return err
			}
			b = view
		}
		for _, kind := range []clickstore.Kind{clickstore.Hour, clickstore.Day} {
			pa, err := a.Series(ctx, code, kind, from, to)
			if err != nil {
				return err
			}
			pb, err := b.Series(ctx, code, kind, from, to)
			if err != nil {
				return err
			}
			if !slices.Equal(pa, pb) {
				return fmt.Errorf("%s series of %s: %v in today's design, %v in the new one", kind, code, pa, pb)
			}
		}
		for _, kind := range []clickstore.Kind{clickstore.Country, clickstore.Referrer} {
			ba, _, err := a.Breakdown(ctx, code, kind, from, to)
			if err != nil {
				return err
			}
			bb, _, err := b.Breakdown(ctx, code, kind, from, to)
			if err != nil {
				return err
			}
			if !maps.Equal(ba, bb) {
				return fmt.Errorf("%s breakdown of %s: %v in today's design, %v in the new one", kind, code, ba, bb)
			}
		}
	}
	return nil
}

// statsStore is a design's store and where its stats figures go.
type statsStore struct {
	clicks  statsfn.Clicks
	figures *statsFigures
}

var verbose = new(bool)

// stateSalts bills the visitor salt (an item a day) with the compaction
// state: small bookkeeping items of the same table.
type stateSalts struct{ visitors.Salts }

func (s stateSalts) Salt(ctx context.Context, day int64) ([]byte, bool, error) {
	return s.Salts.Salt(packedclicks.WithLevel(ctx, packedclicks.LevelCompaction), day)
}

// writeKinds are the new design's writes by kind, as the meter tags them
// ("level operation"); "compaction state" includes the day's visitor salt.
var writeKinds = []struct{ name, short, key string }{
	{"rollup and checkpoint transactions", "rollup", "rollup TransactWriteItems"},
	{"compaction state", "state", "compaction PutItem"},
	{"segment puts", "segment", "segment PutItem"},
	{"chain writes", "chain", "chain PutItem"},
	{"folds", "fold", "fold PutItem"},
	{"deletes of folded chains", "delete", "fold DeleteItem"},
}

// isWrite says whether a ByLevel key is a write's.
func isWrite(key string) bool {
	_, op, _ := strings.Cut(key, " ")
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
		return true
	}
	return false
}

// apiKey is the key every measured request carries, and owner its owner.
const (
	apiKey = "cost-api-key"
	owner  = "cost-owner"
)

func apiRequest(method, path string, query map[string]string) events.APIGatewayProxyRequest {
	req := events.APIGatewayProxyRequest{HTTPMethod: method, Path: path, QueryStringParameters: query,
		Headers: map[string]string{"Content-Type": "application/json"}}
	req.RequestContext.Identity.APIKey = apiKey
	req.RequestContext.Identity.APIKeyID = "cost-key-id"
	req.RequestContext.RequestID = "cost"
	return req
}

func (r report) print(w io.Writer) {
	s := r.Stream
	fmt.Fprintf(w, "cost: consumed capacity as DynamoDB Local reports it (ReturnConsumedCapacity TOTAL on every call)\n")
	fmt.Fprintf(w, "stream: %d records, %d clicks (%.1f %% bots) over %d links, Zipf s=%.2f; %d batches of at most %d records of one of %d shards or %.0f s\n",
		s.Records, s.Clicks, 100*float64(s.Bots)/float64(max(s.Clicks, 1)), s.Codes, s.Zipf, s.Batches, s.BatchSize, s.Shards, s.WindowSeconds)
	fmt.Fprintf(w, "%-34s %16s %16s\n", "operation", "today's design", "new design")
	col := func(f *clickFigures, v func(*clickFigures) string) string {
		if f == nil {
			return "-"
		}
		return v(f)
	}
	fmt.Fprintf(w, "%-34s %16s %16s\n", "click", col(r.Clicks, func(f *clickFigures) string { return fmt.Sprintf("%.4f WRU", f.WRUPerClick) }),
		col(r.Packed, func(f *clickFigures) string { return fmt.Sprintf("%.4f WRU", f.WRUPerClick) }))
	fmt.Fprintf(w, "%-34s %16s %16s\n", "  reads while counting, per click", col(r.Clicks, func(f *clickFigures) string { return fmt.Sprintf("%.4f RRU", f.RRUPerClick) }),
		col(r.Packed, func(f *clickFigures) string { return fmt.Sprintf("%.4f RRU", f.RRUPerClick) }))
	for _, d := range []struct {
		name string
		f    *clickFigures
	}{{"today's design", r.Clicks}, {"new design", r.Packed}} {
		if d.f == nil {
			continue
		}
		fmt.Fprintf(w, "  %s: %.0f WRU and %.0f RRU over %d clicks in %d calls", d.name, d.f.WRU, d.f.RRU, s.Clicks, d.f.Calls)
		if d.f.Compactions > 0 {
			fmt.Fprintf(w, ", %d compactions (%d buckets in %d groups, every %d batches; %d segment bytes, %d day items merged)", d.f.Compactions, r.Buckets, r.Groups, r.CompactEvery, d.f.SegmentBytes, d.f.Merged)
		}
		fmt.Fprintf(w, "; by operation:")
		for _, op := range slices.Sorted(maps.Keys(d.f.ByOperation)) {
			fmt.Fprintf(w, " %s %.0f", op, d.f.ByOperation[op])
		}
		fmt.Fprintln(w)
		if len(d.f.ByLevel) == 0 {
			for _, h := range d.f.Hours {
				fmt.Fprintf(w, "    simulated hour %2d: %7d clicks %9.0f WRU %.4f WRU a click\n", h.Hour, h.Clicks, h.WRU, h.WRUPerClick)
			}
			continue
		}
		dd := d.f.Days
		fmt.Fprintf(w, "    day items: %d chain items (%d bytes, %.0f a item), %d folded (%d bytes, %.0f a item), largest %d bytes; %d chain items deleted by folds\n",
			dd.ChainItems, dd.ChainBytes, float64(dd.ChainBytes)/float64(max(dd.ChainItems, 1)), dd.Folded, dd.FoldBytes,
			float64(dd.FoldBytes)/float64(max(dd.Folded, 1)), dd.Largest, dd.Deleted)
		fmt.Fprintf(w, "    WRU a click by kind:")
		for _, k := range writeKinds {
			fmt.Fprintf(w, " %s %.4f (%.0f WRU);", k.name, d.f.ByLevel[k.key]/float64(s.Clicks), d.f.ByLevel[k.key])
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "    RRU while counting by level:")
		for _, k := range slices.Sorted(maps.Keys(d.f.ByLevel)) {
			if !isWrite(k) {
				fmt.Fprintf(w, " %s %.0f;", k, d.f.ByLevel[k])
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "    %-19s %7s %9s %8s", "simulated hour", "clicks", "WRU", "a click")
		for _, k := range writeKinds {
			fmt.Fprintf(w, " %9s", k.short)
		}
		fmt.Fprintf(w, " %9s\n", "RRU/click")
		for _, h := range d.f.Hours {
			fmt.Fprintf(w, "    simulated hour %2d: %7d %9.0f %8.4f", h.Hour, h.Clicks, h.WRU, h.WRUPerClick)
			for _, k := range writeKinds {
				fmt.Fprintf(w, " %9.4f", h.ByLevel[k.key]/float64(h.Clicks))
			}
			fmt.Fprintf(w, " %9.4f\n", h.RRU/float64(h.Clicks))
		}
	}
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "create, no Idempotency-Key", r.Create.WRUPerCreate, r.Create.RRUPerCreate)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "create with Idempotency-Key", r.Create.WRUPerKeyedCreate, r.Create.RRUPerKeyed)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "replayed create (same key)", r.Create.WRUPerReplay, r.Create.RRUPerReplay)
	mr := r.Create.MultiRegion
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU  (%.3f WRU of it in the reservation table)\n", "multi-Region create, no key", mr.WRUPerCreate, mr.RRUPerCreate, mr.ReservationWRU)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU  (%.3f WRU of it in the reservation table)\n", "multi-Region create with key", mr.WRUPerKeyedCreate, mr.RRUPerKeyed, mr.ReservationWRUKeyed)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "multi-Region replayed create", mr.WRUPerReplay, mr.RRUPerReplay)
	fmt.Fprintf(w, "%-34s %10.1f / %.1f / %.1f  (no key / key / replay: each a cross-Region round trip on MRSC)\n",
		"reservation-table calls per create", mr.CallsPerCreate, mr.CallsPerKeyedCreate, mr.CallsPerReplay)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "redirect miss, link found", r.Redirect.RRUPerMiss)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "redirect miss, unknown code", r.Redirect.RRUPerUnknown)
	if a := r.Authorizer; a != nil {
		fmt.Fprintf(w, "%-34s %10.3f RRU  (%.3f again within the key cache's TTL)\n", "/v1 authorizer, API key", a.KeyMiss, a.KeyCached)
		fmt.Fprintf(w, "%-34s %10.3f RRU  (%.3f with X-Workspace, %.3f with no membership)\n", "/v1 authorizer, token", a.Token, a.TokenNamed, a.TokenNoMember)
	}
	if r.Checked > 0 {
		fmt.Fprintf(w, "the counts measured equal %s's (hour, day, country and referrer) for the %d links compared\n", r.CheckedAgainst, r.Checked)
	}
	stat := func(f *statsFigures, v func(*statsFigures) float64) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f RRU", v(f))
	}
	for _, q := range []struct {
		name string
		v    func(*statsFigures) float64
	}{
		{"stats, 7 days daily, tail link", func(f *statsFigures) float64 { return f.RRUPerDefault }},
		{"stats, 7 days daily, top link", func(f *statsFigures) float64 { return f.RRUPerDefaultTop }},
		{"stats, 90 days hourly, tail link", func(f *statsFigures) float64 { return f.RRUPer90DayHourly }},
		{"stats, 90 days hourly, top link", func(f *statsFigures) float64 { return f.RRUPer90DayHourTop }},
	} {
		fmt.Fprintf(w, "%-34s %16s %16s\n", q.name, stat(r.Stats, q.v), stat(r.PackedStats, q.v))
	}
	r.printVolumes(w)
}

// printVolumes prints the new design's units a click at each volume side
// by side.
func (r report) printVolumes(w io.Writer) {
	if len(r.Volumes) < 2 {
		return
	}
	fmt.Fprintf(w, "new design's clicks by volume per group (%d buckets in %d groups):\n", r.Buckets, r.Groups)
	row := func(name string, f func(v volumeFigures) string) {
		fmt.Fprintf(w, "  %-40s", name)
		for _, v := range r.Volumes {
			fmt.Fprintf(w, " %22s", f(v))
		}
		fmt.Fprintln(w)
	}
	row("volume", func(v volumeFigures) string { return fmt.Sprintf("%gx (-span %s)", v.Times, v.Span) })
	row("clicks", func(v volumeFigures) string { return strconv.Itoa(v.Clicks) })
	row("WRU per click", func(v volumeFigures) string { return fmt.Sprintf("%.4f", v.WRUPerClick) })
	row("RRU per click", func(v volumeFigures) string { return fmt.Sprintf("%.4f", v.RRUPerClick) })
	row("day items folded", func(v volumeFigures) string { return strconv.Itoa(v.Folded) })
	row("WRU per click without the fold", func(v volumeFigures) string { return fmt.Sprintf("%.4f", v.WRUPerClickWithoutFold) })
	row("RRU per click without the fold", func(v volumeFigures) string { return fmt.Sprintf("%.4f", v.RRUPerClickWithoutFold) })
	for _, k := range writeKinds {
		row("  WRU per click, "+k.short, func(v volumeFigures) string { return fmt.Sprintf("%.4f", v.ByLevel[k.key]/float64(max(v.Clicks, 1))) })
	}
	row("links whose counts equal a count in memory", func(v volumeFigures) string { return strconv.Itoa(v.Checked) })
	row("stats, 90 days hourly, tail link (RRU)", func(v volumeFigures) string {
		if v.Stats == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", v.Stats.RRUPer90DayHourly)
	})
}
