package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localkinesis"
	"github.com/shortlink-dev/shortener/internal/localrun"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/shortcode"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

const (
	apiKey   = "load-key"
	owner    = "load-owner"
	edgeHit  = "Hit from cloudfront"
	edgeMiss = "Miss from cloudfront"
	// target is where every link of the run points.
	target = "https://example.com/landing?utm_source=loadgen"
)

func run(ctx context.Context, c settings, out io.Writer) error {
	fmt.Fprintf(out, "loadgen %s\nmachine: %s\n", time.Now().UTC().Format(time.RFC3339), machine())
	fmt.Fprintf(out, "phases: %s measured after %s warm-up, at most %d requests; %d rounds; %d connections (misses: %d, creates: %d)\n",
		c.duration, c.warmup, c.maxRequests, c.rounds, c.concurrency, c.missConcurrency, c.createConcurrency)
	fmt.Fprintf(out, "local run: SHORTENER_ACCESS_LOG=%s (its JSON line per request); the edge's real-time log to Kinesis is on in every phase\n",
		c.accessLog)

	dir, err := os.MkdirTemp("", "loadgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := c.binary
	if bin == "" {
		fmt.Fprintln(out, "building cmd/shortener-local ...")
		if bin, err = localrun.Build(ctx, dir); err != nil {
			return err
		}
	}
	bare, barePID, stopBare, err := startBare()
	if err != nil {
		return err
	}
	defer stopBare()
	sum := &summary{barePID: barePID}
	client := newClient(c.concurrency)

	if c.runs("hit") {
		if err := isolatedHits(ctx, c, out, bin, bare, client, sum); err != nil {
			return err
		}
	}

	var env map[string]string
	what := "with the click pipeline"
	if !c.clickPipeline {
		null, err := localkinesis.StartNull()
		if err != nil {
			return err
		}
		defer null.Close()
		env, what = map[string]string{"SHORTENER_KINESIS_ENDPOINT": null.Origin}, "with its click log discarded"
	}
	l, err := startLocal(ctx, c, out, bin, env, what)
	if err != nil {
		return err
	}
	defer l.stop()
	sum.localPID = l.run.PID()
	var d *drainer
	if c.clickPipeline {
		d = &drainer{client: client, origin: l.run.Origin, store: l.store}
	}
	if err := d.wait(ctx, out); err != nil { // and so check the pipeline counts
		return err
	}
	if c.runs("hit") {
		hot, err := writeLinks(ctx, l.store, "H", 0, c.hotCodes)
		if err == nil {
			err = prime(ctx, client, l.run.Origin, hot)
		}
		if err != nil {
			return err
		}
		header(out, "redirects (GET, closed loop): edge hits, the whole local run, access log "+c.accessLog)
		if err := redirects(ctx, c, out, "edge hit", l.run.Origin, bare, hot, client, d, sum, &sum.hitBare, &sum.hits); err != nil {
			return err
		}
	}
	if c.runs("miss") {
		fmt.Fprintf(out, "writing %d links for the edge-miss phase ...\n", c.missCodes)
		miss, err := writeLinks(ctx, l.store, "M", 0, c.missCodes)
		if err != nil {
			return err
		}
		if err := misses(ctx, c, out, l, bare, miss, client, d, sum); err != nil {
			return err
		}
	}
	if c.runs("create") {
		if err := creates(ctx, c, out, l, d, sum); err != nil {
			return err
		}
	}

	fmt.Fprintf(out, "\nthe whole local run %s:\n", what)
	if err := tally(ctx, out, client, l, c.clickPipeline); err != nil {
		return err
	}

	fmt.Fprintf(out, "\nratios (all rounds pooled: requests / time)\n")
	ratio := func(name string, a, b []result, goal string) {
		if len(a) > 0 && len(b) > 0 {
			fmt.Fprintf(out, "  %-40s %.2f%s\n", name, total(a)/total(b), goal)
		}
	}
	accessLog := "   (access log " + c.accessLog + ")"
	ratio("edge hit, log discarded / bare 302", sum.isolated, sum.isolatedBare, accessLog+"   (goal >= 0.85)")
	ratio("edge hit, whole local run / bare 302", sum.hits, sum.hitBare, accessLog)
	ratio("edge miss / bare 302", sum.misses, sum.missBare, accessLog)
	ratio("edge miss / raw GetItem", sum.misses, sum.gets, accessLog)
	ratio("POST /v1/links / raw PutItem", sum.creates, sum.puts, accessLog)
	if bad := sum.bad(); bad > 0 {
		fmt.Fprintf(out, "\n%d requests failed or were answered otherwise than expected: %s\n", bad, odd)
		// A 503 is the redirect's and the create's designed answer when
		// a DynamoDB call passes its deadline (retryable, Retry-After: 1),
		// which a saturated two-core machine can make happen: reported,
		// not fatal. Anything else is.
		designed := odd.only("GET 503 Error from cloudfront") + odd.only("POST 503")
		if odd.total()-designed > 0 || sum.transportErrors() > 0 {
			return fmt.Errorf("unexpected answers or transport errors; the local run's warnings:\n%s", l.run.Output())
		}
	}
	return nil
}

// isolatedHits measures edge hits on a local run whose real-time log goes
// to a null Kinesis, so that no click pipeline runs beside the edge: the
// edge's own cost next to the bare server's.
func isolatedHits(ctx context.Context, c settings, out io.Writer, bin, bare string, client *http.Client, sum *summary) error {
	null, err := localkinesis.StartNull()
	if err != nil {
		return err
	}
	defer null.Close()
	l, err := startLocal(ctx, c, out, bin, map[string]string{"SHORTENER_KINESIS_ENDPOINT": null.Origin}, "with its click log discarded")
	if err != nil {
		return err
	}
	defer l.stop()
	hot, err := writeLinks(ctx, l.store, "H", 0, c.hotCodes)
	if err != nil {
		return err
	}
	if err := prime(ctx, client, l.run.Origin, hot); err != nil {
		return err
	}
	sum.localPID = l.run.PID()
	header(out, "redirects (GET, closed loop): edge hits without the click pipeline, access log "+c.accessLog)
	if err := redirects(ctx, c, out, "edge hit, log discarded", l.run.Origin, bare, hot, client, nil, sum, &sum.isolatedBare, &sum.isolated); err != nil {
		return err
	}
	return tally(ctx, out, client, l, false)
}

// local is one local run with the handles the phases use.
type local struct {
	run       *localrun.Run
	db        *dynamodb.Client
	tables    dynamo.LinkConfig
	analytics string // the analytics table
	store     *dynamo.LinkStore
}

// startLocal starts the local run with its own emulators and fresh tables.
func startLocal(ctx context.Context, c settings, out io.Writer, bin string, env map[string]string, what string) (*local, error) {
	suffix := randomHex(4)
	tables := dynamo.LinkConfig{LinksTable: "load-links-" + suffix, IdempotencyTable: "load-idem-" + suffix}
	analytics := "load-analytics-" + suffix
	e := map[string]string{
		"SHORTENER_API_KEYS": apiKey + "=" + owner,
		// One key makes every create: a usage plan that measures the
		// create path, not the default plan's 100/s per key.
		"SHORTENER_API_RATE_LIMIT":  "1000000",
		"SHORTENER_API_BURST_LIMIT": "1000000",
		"LINKS_TABLE":               tables.LinksTable,
		"IDEMPOTENCY_TABLE":         tables.IdempotencyTable,
		"ANALYTICS_TABLE":           analytics,
		"CLICKS_STREAM":             "load-clicks-" + suffix,
		// Only the developer's access log: the edge's real-time log records
		// still go to Kinesis, as CloudFront's do.
		"SHORTENER_ACCESS_LOG": c.accessLog,
	}
	for k, v := range env {
		e[k] = v
	}
	var logw io.Writer
	if c.verbose {
		logw = os.Stderr
	}
	fmt.Fprintf(out, "\nstarting the local run %s, SHORTENER_ACCESS_LOG=%s ...\n", what, c.accessLog)
	lr, err := localrun.Start(ctx, bin, e, logw, 3*time.Minute)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "local run %s (DynamoDB Local %s, Kinesis %s)\n", lr.Origin, lr.DynamoDB, lr.Kinesis)
	db := emulator.NewDynamoDBClient(lr.DynamoDB)
	return &local{run: lr, db: db, tables: tables, analytics: analytics, store: dynamo.NewLinkStore(db, tables)}, nil
}

func (l *local) stop() {
	if err := l.run.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen: stopping the local run:", err)
	}
}

// prime puts each code in the edge's cache and checks that the next
// request is a hit.
func prime(ctx context.Context, client *http.Client, origin string, codes []string) error {
	for _, code := range codes {
		for attempt := range 2 {
			resp, err := get(ctx, client, origin+"/"+code)
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusFound || attempt == 1 && resp.Header.Get("X-Cache") != edgeHit {
				return fmt.Errorf("priming %s: %d %q", code, resp.StatusCode, resp.Header.Get("X-Cache"))
			}
		}
	}
	return nil
}

// summary collects every measured phase.
type summary struct {
	// bares are every bare-server phase; the ratios pair each comparison
	// with its own: isolatedBare, hitBare and missBare.
	bares, isolatedBare, hitBare, missBare []result
	isolated, hits, gets, misses           []result
	puts, creates                          []result
	localPID, barePID                      int
}

func (s *summary) transportErrors() int {
	n := 0
	for _, rs := range [][]result{s.bares, s.isolated, s.hits, s.gets, s.misses, s.puts, s.creates} {
		for _, r := range rs {
			n += r.errors
		}
	}
	return n
}

func (s *summary) bad() int {
	n := 0
	for _, rs := range [][]result{s.bares, s.isolated, s.hits, s.gets, s.misses, s.puts, s.creates} {
		for _, r := range rs {
			n += r.unexpected + r.errors
		}
	}
	return n
}

// redirects compares the bare server and edge hits on a few established
// codes, -rounds times, adding their results to bares and hits.
//
// Without a click pipeline (d nil) each round interleaves the two in
// turns of a second (see measureInterleaved), so that both sides see the
// same machine. With one, the edge leaves the pipeline catching up for
// many seconds after it, which must not run under the bare server: each
// round measures the two whole, one after the other, waits for the
// pipeline after the edge's phase, and swaps which goes first each round
// (bare then edge, edge then bare, ...), so that a drift in the shared
// machine's speed weighs on both alike.
func redirects(ctx context.Context, c settings, out io.Writer, name, origin, bare string, hot []string, client *http.Client,
	d *drainer, sum *summary, bares, hits *[]result) error {
	bareOp := redirectOp(client, func(int) string { return bare + "/Bare123" }, "")
	edgeOp := redirectOp(client, func(i int) string { return origin + "/" + hot[i%len(hot)] }, edgeHit)
	if d == nil {
		turns := max(int(c.duration/time.Second), 1)
		for round := range c.rounds {
			b, h := measureInterleaved(ctx, c.limits(c.concurrency), turns, "bare net/http 302", sum.barePID, bareOp,
				name, sum.localPID, edgeOp)
			b.note = fmt.Sprintf("round %d, %d turns interleaved with the edge's", round+1, turns)
			h.note = fmt.Sprintf("round %d, %d codes, access log %s, edge/bare %.2f", round+1, len(hot), c.accessLog, h.rate()/b.rate())
			line(out, b)
			line(out, h)
			sum.bares, *bares = append(sum.bares, b), append(*bares, b)
			*hits = append(*hits, h)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	for round := range c.rounds {
		var b, h result
		ratio := func() string { return fmt.Sprintf(", edge/bare %.2f", h.rate()/b.rate()) }
		for i := range 2 {
			bareTurn := (i == 0) == (round%2 == 0) // bare first in even rounds, second in odd ones
			if bareTurn {
				b, _ = measure(ctx, "bare net/http 302", c.limits(c.concurrency), 0, sum.barePID, bareOp)
				b.note = fmt.Sprintf("round %d", round+1)
				if i == 1 {
					b.note += ratio()
				}
				line(out, b)
				sum.bares, *bares = append(sum.bares, b), append(*bares, b)
				continue
			}
			h, _ = measure(ctx, name, c.limits(c.concurrency), 0, sum.localPID, edgeOp)
			h.note = fmt.Sprintf("round %d, %d codes, access log %s", round+1, len(hot), c.accessLog)
			if i == 1 {
				h.note += ratio()
			}
			line(out, h)
			*hits = append(*hits, h)
			if err := d.wait(ctx, out); err != nil { // before anything else runs
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// misses compares edge misses (each code requested once: a tenth of them
// warm the path up, the rest are measured until they run out or the time
// does) with raw GetItem calls for the same codes on the same DynamoDB
// Local, and with the bare server.
func misses(ctx context.Context, c settings, out io.Writer, l *local, bare string, codes []string, client *http.Client, d *drainer, sum *summary) error {
	header(out, "redirects the edge misses (GET of distinct codes, closed loop)")
	b, _ := measure(ctx, "bare net/http 302", c.limits(c.concurrency), 0, sum.barePID, redirectOp(client, func(int) string { return bare + "/Bare123" }, ""))
	line(out, b)
	sum.bares, sum.missBare = append(sum.bares, b), append(sum.missBare, b)
	g, _ := measure(ctx, "raw GetItem", c.limits(c.missConcurrency), 0, 0, getItemOp(l.db, l.tables.LinksTable, codes))
	g.note = "the same codes, eventually consistent"
	line(out, g)
	sum.gets = append(sum.gets, g)
	do := redirectOp(client, func(i int) string { return l.run.Origin + "/" + codes[i] }, edgeMiss)
	warm := limits{concurrency: c.missConcurrency, duration: c.duration, maxRequests: len(codes) / 10}
	_, next := measure(ctx, "warm-up", warm, 0, sum.localPID, do)
	m, _ := measure(ctx, "edge miss (origin)", limits{concurrency: c.missConcurrency, duration: c.duration,
		maxRequests: min(len(codes)-next, c.maxRequests)}, next, sum.localPID, do)
	m.note = fmt.Sprintf("distinct codes, access log %s; ratio to GetItem %.2f, to bare %.2f", c.accessLog, m.rate()/g.rate(), m.rate()/b.rate())
	line(out, m)
	sum.misses = append(sum.misses, m)
	return d.wait(ctx, out)
}

// creates alternates raw conditional PutItem calls and POST /v1/links.
func creates(ctx context.Context, c settings, out io.Writer, l *local, d *drainer, sum *summary) error {
	header(out, "creates (closed loop)")
	codes, err := shortcode.New(7, nil)
	if err != nil {
		return err
	}
	client := newClient(c.createConcurrency)
	for round := range c.rounds {
		p, _ := measure(ctx, "raw conditional PutItem", c.limits(c.createConcurrency), 0, 0, putOp(l.db, l.tables.LinksTable, codes))
		p.note = fmt.Sprintf("round %d", round+1)
		line(out, p)
		cr, _ := measure(ctx, "POST /v1/links", c.limits(c.createConcurrency), 0, 0, createOp(client, l.run.Origin))
		cr.note = fmt.Sprintf("round %d, access log %s, ratio to PutItem %.2f", round+1, c.accessLog, cr.rate()/p.rate())
		line(out, cr)
		sum.puts, sum.creates = append(sum.puts, p), append(sum.creates, cr)
		if err := d.wait(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// total is the pooled rate of results: all their requests over all their time.
func total(rs []result) float64 {
	var n int
	var d time.Duration
	for _, r := range rs {
		n += r.requests
		d += r.elapsed
	}
	return float64(n) / d.Seconds()
}

// redirectOp GETs url(i) and expects a 302, and X-Cache xcache unless empty.
func redirectOp(c *http.Client, url func(int) string, xcache string) op {
	return func(ctx context.Context, i int) (bool, error) {
		resp, err := get(ctx, c, url(i))
		if err != nil {
			return false, err
		}
		ok := resp.StatusCode == http.StatusFound && (xcache == "" || resp.Header.Get("X-Cache") == xcache)
		if !ok {
			odd.add(fmt.Sprintf("GET %d %s", resp.StatusCode, resp.Header.Get("X-Cache")))
		}
		return ok, nil
	}
}

// oddities counts the unexpected answers by kind, for the report.
type oddities struct {
	mu sync.Mutex
	m  map[string]int
}

var odd = &oddities{m: map[string]int{}}

func (o *oddities) add(kind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.m[kind]++
}

// total returns the count of every kind.
func (o *oddities) total() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, v := range o.m {
		n += v
	}
	return n
}

// only returns the count of kind.
func (o *oddities) only(kind string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.m[kind]
}

func (o *oddities) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return fmt.Sprint(o.m)
}

// getItemOp is the edge miss's floor: the redirect's eventually
// consistent GetItem of a code, straight through the SDK.
func getItemOp(db *dynamodb.Client, table string, codes []string) op {
	return func(ctx context.Context, i int) (bool, error) {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, ConsistentRead: aws.Bool(false),
			Key: map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: codes[i%len(codes)]}}})
		return err == nil && out.Item != nil, err
	}
}

// createOp creates a link through the API, without an Idempotency-Key:
// one conditional PutItem behind it.
func createOp(c *http.Client, origin string) op {
	return func(ctx context.Context, i int) (bool, error) {
		body := `{"url":"` + target + `&n=` + strconv.Itoa(i) + `"}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin+"/v1/links", strings.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("x-api-key", apiKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return false, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			odd.add(fmt.Sprintf("POST %d", resp.StatusCode))
		}
		return resp.StatusCode == http.StatusCreated, err
	}
}

// putOp is the create's floor: the conditional PutItem of a link item
// with a freshly drawn code, straight through the SDK.
func putOp(db *dynamodb.Client, table string, codes *shortcode.Generator) op {
	cond := aws.String("attribute_not_exists(" + tableschema.AttrCode + ")")
	return func(ctx context.Context, i int) (bool, error) {
		code, err := codes.Next()
		if err != nil {
			return false, err
		}
		now := time.Now()
		n := func(v int64) types.AttributeValue {
			return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
		}
		s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, ConditionExpression: cond,
			Item: map[string]types.AttributeValue{
				tableschema.AttrCode:           s(code),
				tableschema.AttrURL:            s(target + "&n=" + strconv.Itoa(i)),
				tableschema.AttrOwner:          s(owner),
				tableschema.AttrCreatedAt:      n(now.UnixMilli()),
				tableschema.AttrUpdatedAt:      n(now.UnixMilli()),
				tableschema.AttrExpiresAt:      n(now.Add(link.DefaultTTL).Unix()),
				tableschema.AttrStatus:         s(string(link.StatusActive)),
				tableschema.AttrVersion:        n(1),
				tableschema.AttrRedirectStatus: n(302),
				tableschema.AttrCustomAlias:    &types.AttributeValueMemberBOOL{Value: false},
			}})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return false, nil // a collision, as the create path would retry
		}
		return err == nil, err
	}
}

// writeLinks writes n established links with codes prefix and six
// digits (seven characters, the shape of a generated code), in parallel,
// and returns their codes.
func writeLinks(ctx context.Context, store *dynamo.LinkStore, prefix string, start, n int) ([]string, error) {
	codes := make([]string, n)
	created := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				codes[i] = fmt.Sprintf("%s%06d", prefix, start+i)
				err := store.Create(ctx, link.Link{
					Code: codes[i], Owner: owner, URL: target, CreatedAt: created, UpdatedAt: created,
					ExpiresAt: created.Add(link.DefaultTTL).Truncate(time.Second), Status: link.StatusActive,
					Version: 1, RedirectStatus: http.StatusFound,
				}, nil)
				if err != nil {
					errs <- fmt.Errorf("write link %s: %w", codes[i], err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return codes, ctx.Err()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
