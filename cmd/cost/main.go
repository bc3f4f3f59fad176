// Command cost measures what the system's DynamoDB calls consume: it drives
// a synthetic click stream through the real clicks handler, and creates,
// redirect misses and stats queries through their real handlers, against
// DynamoDB Local with ReturnConsumedCapacity on every call, and prints the
// units per operation that docs/cost-model.md and infra/costmodel take
// their per-operation figures from.
//
//	make cost                     # or: go run ./cmd/cost -records 100000
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
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore/dynamoclicks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
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
	creates := flag.Int("creates", 1000, "links to create for the per-create figure (and as many redirect misses)")
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
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint)}
	db := emulator.NewDynamoDBClient(endpoint, meter.Options)
	r, err := run(ctx, db, &meter, sp, *creates, *queries)
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
	Clicks struct {
		WRU, RRU     float64
		WRUPerClick  float64
		Transactions int
	}
	Create struct {
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
		}
	}
	Redirect struct {
		RRUPerMiss, RRUPerUnknown float64
	}
	Stats struct {
		RRUPerDefault, RRUPerDefaultTop       float64 // 7 days daily: a tail link, the most clicked one
		RRUPer31DayHourly, RRUPer31DayHourTop float64
	}
}

func run(ctx context.Context, db *dynamodb.Client, meter *capacity.Meter, sp streamSpec, creates, queries int) (report, error) {
	var r report
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
		return r, err
	}
	analytics := "cost-analytics-" + suffix
	if err := dynamostore.CreateTables(ctx, db, dynamostore.Config{LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable}); err != nil {
		return r, err
	}
	if err := dynamoclicks.CreateTable(ctx, db, analytics); err != nil {
		return r, err
	}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	// The keys table in memory: a function reads a key's owner once per
	// key and instance every SHORTENER_KEY_CACHE_TTL (half a unit), which
	// is no per-operation cost.
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{apiKey: owner}), apikey.ResolverOptions{})
	mx := func(fn string) *metrics.Emitter { return metrics.New(io.Discard, "Shortener", fn) }
	links := dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: 10 * time.Second})
	counts := dynamoclicks.New(db, dynamoclicks.Config{Table: analytics, Timeout: 10 * time.Second})

	// Clicks.
	st, err := generate(sp)
	if err != nil {
		return r, err
	}
	r.Stream.Records, r.Stream.Clicks, r.Stream.Bots, r.Stream.Codes = sp.Records, st.Clicks, st.Bots, sp.Codes
	r.Stream.Batches, r.Stream.Shards, r.Stream.BatchSize = len(st.Batches), sp.Shards, sp.BatchSize
	r.Stream.Zipf, r.Stream.WindowSeconds = sp.Zipf, sp.Window.Seconds()
	ch := &clicksfn.Handler{Store: counts, Log: quiet, Metrics: mx("clicks")}
	before := meter.Usage()
	for _, b := range st.Batches {
		resp, err := ch.Handle(ctx, b)
		if err != nil {
			return r, err
		}
		if len(resp.BatchItemFailures) > 0 {
			return r, fmt.Errorf("clicks: a batch reported a failure from %s", resp.BatchItemFailures[0].ItemIdentifier)
		}
	}
	u := meter.Usage().Sub(before)
	r.Clicks.WRU, r.Clicks.RRU = u.WRU, u.RRU
	r.Clicks.WRUPerClick = u.WRU / float64(st.Clicks)
	r.Clicks.Transactions = u.Calls

	// Creates, with and without an Idempotency-Key, and a replay.
	cr, err := createfn.New(createfn.Options{Store: links, Config: cfg, Log: quiet, Metrics: mx("create"), Owners: owners})
	if err != nil {
		return r, err
	}
	createWith := func(cr *createfn.Handler, i int, key string) (string, error) {
		req := apiRequest("POST", "/v1/links", nil)
		req.Body = fmt.Sprintf(`{"url":"https://example.com/landing/%d?utm_source=newsletter&utm_medium=email"}`, i)
		if key != "" {
			req.Headers["Idempotency-Key"] = key
		}
		resp, err := cr.Handle(ctx, req)
		if err != nil {
			return "", err
		}
		if resp.StatusCode != 201 {
			return "", fmt.Errorf("create: %d %s", resp.StatusCode, resp.Body)
		}
		var out struct{ Code string }
		return out.Code, json.Unmarshal([]byte(resp.Body), &out)
	}
	createOne := func(i int, key string) (string, error) { return createWith(cr, i, key) }
	measure := func(n int, f func(i int) error) (wru, rru float64, err error) {
		before := meter.Usage()
		for i := range n {
			if err := f(i); err != nil {
				return 0, 0, err
			}
		}
		u := meter.Usage().Sub(before)
		if *verbose {
			log.Printf("%d calls: %v", n, u.ByOperation)
		}
		return u.WRU / float64(n), u.RRU / float64(n), nil
	}
	var made []string
	if r.Create.WRUPerCreate, r.Create.RRUPerCreate, err = measure(creates, func(i int) error {
		code, err := createOne(i, "")
		made = append(made, code)
		return err
	}); err != nil {
		return r, err
	}
	if r.Create.WRUPerKeyedCreate, r.Create.RRUPerKeyed, err = measure(creates, func(i int) error {
		_, err := createOne(creates+i, "cost-"+strconv.Itoa(i))
		return err
	}); err != nil {
		return r, err
	}
	if r.Create.WRUPerReplay, r.Create.RRUPerReplay, err = measure(creates, func(i int) error {
		_, err := createOne(creates+i, "cost-"+strconv.Itoa(i))
		return err
	}); err != nil {
		return r, err
	}

	// The same creates in a deployment that takes writes in every Region:
	// the reservation table first (dynamostore.Ledger), metered apart too.
	resTable := "cost-reservations-" + suffix
	if err := dynamostore.CreateLedgerTable(ctx, db, resTable); err != nil {
		return r, err
	}
	var resMeter capacity.Meter
	ledger := dynamostore.NewLedger(dynamodb.New(db.Options(), resMeter.Options), dynamostore.LedgerConfig{Table: resTable, Timeout: 10 * time.Second})
	crm, err := createfn.New(createfn.Options{Store: linkstore.NewReserved(links, ledger, nil), Config: cfg, Log: quiet, Metrics: mx("create"), Owners: owners})
	if err != nil {
		return r, err
	}
	mr := &r.Create.MultiRegion
	for _, m := range []struct {
		wru, rru, res *float64
		offset        int
		key           string
	}{
		{&mr.WRUPerCreate, &mr.RRUPerCreate, &mr.ReservationWRU, 3 * creates, ""},
		{&mr.WRUPerKeyedCreate, &mr.RRUPerKeyed, &mr.ReservationWRUKeyed, 4 * creates, "mr-cost-"},
		{&mr.WRUPerReplay, &mr.RRUPerReplay, nil, 4 * creates, "mr-cost-"},
	} {
		before := resMeter.Usage()
		if *m.wru, *m.rru, err = measure(creates, func(i int) error {
			key := ""
			if m.key != "" {
				key = m.key + strconv.Itoa(i)
			}
			_, err := createWith(crm, m.offset+i, key)
			return err
		}); err != nil {
			return r, err
		}
		if m.res != nil {
			*m.res = resMeter.Usage().Sub(before).WRU / float64(creates)
		}
	}

	// Redirect misses: each code once through a cold in-process cache, then
	// codes that do not exist.
	rd := redirectfn.New(redirectfn.Options{Store: links, Config: cfg, Log: quiet, Metrics: mx("redirect")})
	follow := func(code string, want int) error {
		resp, err := rd.Handle(ctx, events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/" + code,
			PathParameters: map[string]string{"code": code}})
		if err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("redirect %s: %d, want %d", code, resp.StatusCode, want)
		}
		return nil
	}
	if _, r.Redirect.RRUPerMiss, err = measure(len(made), func(i int) error { return follow(made[i], 302) }); err != nil {
		return r, err
	}
	if _, r.Redirect.RRUPerUnknown, err = measure(creates, func(i int) error {
		return follow(fmt.Sprintf("zz%05d", i), 404)
	}); err != nil {
		return r, err
	}

	// Stats: the link must exist and be the caller's; the most clicked
	// code and one from the tail, over the default range and 31 days hourly (the longest hourly range the API takes).
	sh := &statsfn.Handler{Links: links, Clicks: counts, Owners: owners,
		Now: func() time.Time { return sp.Start.Add(time.Hour) }, Log: quiet, Metrics: mx("stats")}
	top, tail := st.Codes[0], st.Codes[len(st.Codes)/2]
	for _, code := range []string{top, tail} {
		l := link.Link{Code: code, URL: "https://example.com/" + code, Owner: owner, Status: link.StatusActive,
			CreatedAt: sp.Start.Add(-24 * time.Hour), ExpiresAt: sp.Start.Add(365 * 24 * time.Hour), RedirectStatus: 302, Version: 1}
		if err := links.Create(ctx, l, nil); err != nil {
			return r, fmt.Errorf("seed link %s: %w", code, err)
		}
	}
	query := func(code string, params map[string]string) func(int) error {
		return func(int) error {
			req := apiRequest("GET", "/v1/links/"+code+"/stats", params)
			req.PathParameters = map[string]string{"code": code}
			resp, err := sh.Handle(ctx, req)
			if err != nil {
				return err
			}
			if resp.StatusCode != 200 {
				return fmt.Errorf("stats %s: %d %s", code, resp.StatusCode, resp.Body)
			}
			return nil
		}
	}
	hourly := map[string]string{"granularity": "hour", "from": sp.Start.Add(-30 * 24 * time.Hour).Format(time.RFC3339),
		"to": sp.Start.Add(time.Hour).Format(time.RFC3339)}
	for _, q := range []struct {
		dst    *float64
		code   string
		params map[string]string
	}{
		{&r.Stats.RRUPerDefault, tail, nil}, {&r.Stats.RRUPerDefaultTop, top, nil},
		{&r.Stats.RRUPer31DayHourly, tail, hourly}, {&r.Stats.RRUPer31DayHourTop, top, hourly},
	} {
		if _, *q.dst, err = measure(queries, query(q.code, q.params)); err != nil {
			return r, err
		}
	}
	return r, nil
}

var verbose = new(bool)

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
	fmt.Fprintf(w, "%-34s %10s\n", "operation", "units")
	fmt.Fprintf(w, "%-34s %10.3f WRU  (%.0f WRU, %d transactions, %.0f RRU of checkpoint reads)\n",
		"click (today's design)", r.Clicks.WRUPerClick, r.Clicks.WRU, r.Clicks.Transactions, r.Clicks.RRU)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "create, no Idempotency-Key", r.Create.WRUPerCreate, r.Create.RRUPerCreate)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "create with Idempotency-Key", r.Create.WRUPerKeyedCreate, r.Create.RRUPerKeyed)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "replayed create (same key)", r.Create.WRUPerReplay, r.Create.RRUPerReplay)
	mr := r.Create.MultiRegion
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU  (%.3f WRU of it in the reservation table)\n", "multi-Region create, no key", mr.WRUPerCreate, mr.RRUPerCreate, mr.ReservationWRU)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU  (%.3f WRU of it in the reservation table)\n", "multi-Region create with key", mr.WRUPerKeyedCreate, mr.RRUPerKeyed, mr.ReservationWRUKeyed)
	fmt.Fprintf(w, "%-34s %10.3f WRU  %.3f RRU\n", "multi-Region replayed create", mr.WRUPerReplay, mr.RRUPerReplay)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "redirect miss, link found", r.Redirect.RRUPerMiss)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "redirect miss, unknown code", r.Redirect.RRUPerUnknown)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "stats, 7 days daily, tail link", r.Stats.RRUPerDefault)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "stats, 7 days daily, top link", r.Stats.RRUPerDefaultTop)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "stats, 31 days hourly, tail link", r.Stats.RRUPer31DayHourly)
	fmt.Fprintf(w, "%-34s %10.3f RRU\n", "stats, 31 days hourly, top link", r.Stats.RRUPer31DayHourTop)
}
