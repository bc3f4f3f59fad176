package clicksfn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	streamARN = "arn:aws:kinesis:us-east-1:123456789012:stream/shortener-clicks"
	shard0    = streamARN + "/shardId-000000000000"
)

var (
	noon     = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	midnight = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	nextDay  = midnight.Add(24 * time.Hour)
)

func event(t *testing.T, name string) events.KinesisEvent {
	t.Helper()
	ev := eventtest.Load[events.KinesisEvent](t, filepath.Join("testdata", name))
	require.NotEmpty(t, ev.Records)
	return ev
}

// flakyDB passes calls to DynamoDB Local, except that the TransactWriteItems
// calls numbered in failOn (1-based) fail with a server error.
type flakyDB struct {
	*dynamodb.Client
	mu      sync.Mutex
	calls   int
	failOn  map[int]bool
	applied int
}

func (f *flakyDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	fail := f.failOn[n]
	f.mu.Unlock()
	if fail {
		return nil, &types.InternalServerError{Message: aws.String("injected failure")}
	}
	out, err := f.Client.TransactWriteItems(ctx, in, optFns...)
	if err == nil {
		f.mu.Lock()
		f.applied++
		f.mu.Unlock()
	}
	return out, err
}

// design is a click store layout the DynamoDB tests run against.
type design struct {
	name    string
	packed  bool // packedclicks rather than dynamo.ClickStore
	compact bool // with the handler compacting after every chunk
}

var designs = []design{
	{name: "items"},
	{name: "packed"},
	{name: "packed, compacting"},
}

func init() {
	designs[1].packed = true
	designs[2].packed, designs[2].compact = true, true
}

// forEachDesign runs test against every design.
func forEachDesign(t *testing.T, test func(t *testing.T, d design)) {
	for _, d := range designs {
		t.Run(d.name, func(t *testing.T) { test(t, d) })
	}
}

// store is what the tests need of a click store.
type store interface {
	clickstore.Store
}

type fixture struct {
	design  design
	table   string
	client  *dynamodb.Client
	store   store
	metrics *logtest.Buffer
}

// newFixture creates a fresh analytics table on DynamoDB Local.
func newFixture(t *testing.T, d design) *fixture {
	t.Helper()
	client := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "clicks")
	require.NoError(t, localtable.Create(context.Background(), client, table, tableschema.Analytics()))
	f := &fixture{design: d, table: table, client: client, metrics: &logtest.Buffer{}}
	f.store = f.newStore(client)
	return f
}

// allAPI is what both stores call.
type allAPI interface {
	dynamo.API
	dynamo.API
}

func (f *fixture) newStore(db allAPI) store {
	// DynamoDB Local's first calls are slow on a busy machine.
	if f.design.packed {
		return packedclicks.New(db, packedclicks.Config{Table: f.table, Timeout: 20 * time.Second, Buckets: 16, Now: func() time.Time { return noon }})
	}
	return dynamo.NewClickStore(db, dynamo.ClickConfig{Table: f.table, Timeout: 20 * time.Second, Now: func() time.Time { return noon }})
}

// handler returns a handler over db (the fixture's client when nil). Its
// chunks are at most clickstore.MaxItems for every design, so that a batch
// is cut the same way.
func (f *fixture) handler(db allAPI) *Handler {
	if db == nil {
		db = f.client
	}
	st := f.newStore(db)
	h := New(Options{
		Store:    st,
		MaxItems: clickstore.MaxItems,
		Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics:  metrics.New(f.metrics, "Shortener", "clicks"),
	})
	if f.design.compact {
		h.Compactor, h.CompactEvery = st.(*packedclicks.Store), 1
	}
	return h
}

func (f *fixture) day(t *testing.T, code string) clickstore.Counts {
	t.Helper()
	points, err := f.store.Series(context.Background(), code, clickstore.Day, midnight, nextDay)
	require.NoError(t, err)
	if len(points) == 0 {
		return clickstore.Counts{}
	}
	require.Len(t, points, 1)
	return points[0].Counts
}

// counters reads every counter of the table, keyed as dynamo.ClickStore lays
// them out ("Ab3dE5g d#20261130"), whatever the design.
func (f *fixture) counters(t *testing.T) map[string]clickstore.Counts {
	t.Helper()
	got := map[string]clickstore.Counts{}
	if ps, ok := f.store.(*packedclicks.Store); ok {
		all, err := ps.Counts(context.Background())
		require.NoError(t, err)
		for k, n := range all {
			if newBreakdown(k.Kind) {
				continue // TestBreakdownsAndVisitors reads them
			}
			got[k.Code+" "+itemBucket(k)] = n
		}
		return got
	}
	p := dynamodb.NewScanPaginator(f.client, &dynamodb.ScanInput{TableName: &f.table, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, item := range out.Items {
			if _, ok := item["seq"]; ok {
				continue
			}
			var c clickstore.Counts
			for name, dst := range map[string]*int64{"total": &c.Total, "human": &c.Human, "bot": &c.Bot} {
				_, err := fmt.Sscan(item[name].(*types.AttributeValueMemberN).Value, dst)
				require.NoError(t, err)
			}
			bucket := item["bucket"].(*types.AttributeValueMemberS).Value
			if strings.HasPrefix(bucket, "a#") || strings.HasPrefix(bucket, "u#") || strings.HasPrefix(bucket, "v#") {
				continue // TestBreakdownsAndVisitors reads them
			}
			key := item["code"].(*types.AttributeValueMemberS).Value + " " + bucket
			got[key] = c
		}
	}
	return got
}

// itemBucket is dynamo.ClickStore's sort key of k.
func itemBucket(k clickstore.Key) string {
	t := time.Unix(k.Start, 0).UTC()
	switch k.Kind {
	case clickstore.Hour:
		return "h#" + t.Format("2006010215")
	case clickstore.Day:
		return "d#" + t.Format("20060102")
	case clickstore.Country:
		return "c#" + t.Format("20060102") + "#" + k.Dim
	case clickstore.Referrer:
		return "r#" + t.Format("20060102") + "#" + k.Dim
	}
	return k.Kind.String() + "#" + t.Format("20060102") + "#" + k.Dim
}

// lastMetrics decodes the last EMF record the handler wrote.
func (f *fixture) lastMetrics(t *testing.T) map[string]any {
	t.Helper()
	lines := f.metrics.Lines(t)
	require.NotEmpty(t, lines, "the handler flushed its metrics")
	return lines[len(lines)-1]
}

func cnt(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

func TestCountsTheFixture(t *testing.T) { forEachDesign(t, testCountsTheFixture) }

func testCountsTheFixture(t *testing.T, d design) {
	// 20 human GETs, 3 HEADs and 5 Slackbot GETs of one link, from 12:00 to
	// 13:59 UTC, most of them edge hits: CloudFront logs them all.
	f := newFixture(t, d)

	resp, err := f.handler(nil).Handle(context.Background(), event(t, "kinesis-clicks.json"))

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, map[string]clickstore.Counts{
		"Ab3dE5g d#20261130":                      cnt(28, 20, 8),
		"Ab3dE5g h#2026113012":                    cnt(16, 12, 4),
		"Ab3dE5g h#2026113013":                    cnt(12, 8, 4),
		"Ab3dE5g c#20261130#DE":                   cnt(10, 10, 0),
		"Ab3dE5g c#20261130#US":                   cnt(14, 6, 8),
		"Ab3dE5g c#20261130#FR":                   cnt(4, 4, 0),
		"Ab3dE5g r#20261130#news.ycombinator.com": cnt(5, 5, 0),
		"Ab3dE5g r#20261130#t.co":                 cnt(3, 3, 0),
	}, f.counters(t))
	m := f.lastMetrics(t)
	assert.Equal(t, 28.0, m["Records"])
	assert.Equal(t, 28.0, m["Clicks"])
	assert.Equal(t, 8.0, m["BotClicks"])
	assert.Equal(t, 1.0, m["ChunksApplied"])
}

func TestMixedStream(t *testing.T) { forEachDesign(t, testMixedStream) }

func testMixedStream(t *testing.T, d design) {
	// Not-clicks, poison records and a duplicate delivery flow past without
	// blocking the shard.
	f := newFixture(t, d)

	resp, err := f.handler(nil).Handle(context.Background(), event(t, "kinesis-mixed.json"))

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, map[string]clickstore.Counts{
		"Ab3dE5g d#20261130":        cnt(1, 1, 0),
		"Ab3dE5g h#2026113012":      cnt(1, 1, 0),
		"Ab3dE5g c#20261130#DE":     cnt(1, 1, 0),
		"Ab3dE5g r#20261130#t.co":   cnt(1, 1, 0),
		"spring-sale d#20261130":    cnt(2, 1, 1),
		"spring-sale h#2026113012":  cnt(2, 1, 1),
		"spring-sale c#20261130#GB": cnt(1, 1, 0),
	}, f.counters(t))
	m := f.lastMetrics(t)
	assert.Equal(t, 11.0, m["Records"])
	assert.Equal(t, 3.0, m["Clicks"])
	assert.Equal(t, 1.0, m["BotClicks"])
	assert.Equal(t, 2.0, m["PoisonRecords"])
	assert.Equal(t, 5.0, m["IgnoredRecords"])
	assert.Equal(t, 1.0, m["DuplicateRecords"])
}

// TestHTTPClicksCountOnce is the regression test through the handler: the
// distribution sends http viewers to https with its own 301, logged with
// result type Redirect, before their click. Each click counts once, and a
// code that does not exist, which gets the same 301, counts none.
func TestHTTPClicksCountOnce(t *testing.T) { forEachDesign(t, testHTTPClicksCountOnce) }

func testHTTPClicksCountOnce(t *testing.T, d design) {
	f := newFixture(t, d)

	resp, err := f.handler(nil).Handle(context.Background(), event(t, "kinesis-http-clicks.json"))

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, map[string]clickstore.Counts{
		// A GET over http then https, another with a query string, a HEAD
		// (a bot's), and one whose viewer hung up after the redirect.
		"Ab3dE5g d#20261130":                      cnt(4, 3, 1),
		"Ab3dE5g h#2026113014":                    cnt(4, 3, 1),
		"Ab3dE5g c#20261130#DE":                   cnt(1, 1, 0),
		"Ab3dE5g c#20261130#US":                   cnt(2, 1, 1),
		"Ab3dE5g c#20261130#FR":                   cnt(1, 1, 0),
		"Ab3dE5g r#20261130#news.ycombinator.com": cnt(1, 1, 0),
		"spring-sale d#20261130":                  cnt(1, 1, 0),
		"spring-sale h#2026113014":                cnt(1, 1, 0),
		"spring-sale c#20261130#GB":               cnt(1, 1, 0),
		"spring-sale r#20261130#t.co":             cnt(1, 1, 0),
	}, f.counters(t), "no click for zzzzzzz, none for CloudFront's own 301s")
	m := f.lastMetrics(t)
	assert.Equal(t, 16.0, m["Records"])
	assert.Equal(t, 5.0, m["Clicks"])
	assert.Equal(t, 11.0, m["IgnoredRecords"])
}

func TestSameBatchTwice(t *testing.T) { forEachDesign(t, testSameBatchTwice) }

func testSameBatchTwice(t *testing.T, d design) {
	f := newFixture(t, d)
	h := f.handler(nil)
	ev := event(t, "kinesis-clicks.json")
	_, err := h.Handle(context.Background(), ev)
	require.NoError(t, err)
	before := f.counters(t)

	resp, err := h.Handle(context.Background(), ev)

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, before, f.counters(t))
	assert.Equal(t, cnt(28, 20, 8), f.day(t, "Ab3dE5g"))
	assert.Equal(t, 28.0, f.lastMetrics(t)["RecordsAlreadyApplied"])
}

// bigBatch is a batch of n records, each a click on one of codes links,
// cycling, so that it takes several chunks. want is each code's day count.
func bigBatch(t *testing.T, n, codes int) (ev events.KinesisEvent, want map[string]clickstore.Counts) {
	t.Helper()
	// 56 digits, like Kinesis's, increasing with i.
	const prefix = "4965689012345678901234567890123456789012345678901"
	want = map[string]clickstore.Counts{}
	countries := []string{"DE", "US", "FR", ""}
	referrers := []string{"https://t.co/", "", "https://news.ycombinator.com/", "https://example.com/x"}
	agents := []string{"Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "Slackbot 1.0", "Mozilla/5.0 (iPhone)"}
	for i := range n {
		code := fmt.Sprintf("code%03d", i%codes)
		r := clicklog.Record{
			Time: noon.Add(time.Duration(i) * 17 * time.Second), Status: 302, Method: "GET", Host: "sho.rt",
			URI: "/" + code, RequestID: fmt.Sprintf("req-%06d", i), UserAgent: agents[i%len(agents)],
			Referer: referrers[i%len(referrers)], ResultType: "Hit", Country: countries[i%len(countries)],
		}
		if i%7 == 3 {
			r.Method = "HEAD"
		}
		c := want[code]
		c.AddClick(r.Method == "HEAD" || r.UserAgent == "Slackbot 1.0")
		want[code] = c
		seq := fmt.Sprintf("%s%07d", prefix, i*10+1)
		ev.Records = append(ev.Records, events.KinesisEventRecord{
			EventID: "shardId-000000000000:" + seq, EventSourceArn: streamARN, EventSource: "aws:kinesis",
			EventName: "aws:kinesis:record", AwsRegion: "us-east-1",
			Kinesis: events.KinesisRecord{SequenceNumber: seq, PartitionKey: code, Data: clicklog.Format(r)},
		})
	}
	return ev, want
}

// from returns the records of ev from the one with sequence number seq on,
// as Lambda redelivers after a reported failure.
func from(t *testing.T, ev events.KinesisEvent, seq string) events.KinesisEvent {
	t.Helper()
	i := slices.IndexFunc(ev.Records, func(r events.KinesisEventRecord) bool { return r.Kinesis.SequenceNumber == seq })
	require.GreaterOrEqual(t, i, 0, "no record %s", seq)
	return events.KinesisEvent{Records: ev.Records[i:]}
}

func TestBatchThatFailsHalfwayIsRetriedExactly(t *testing.T) {
	forEachDesign(t, testBatchThatFailsHalfwayIsRetriedExactly)
}

func testBatchThatFailsHalfwayIsRetriedExactly(t *testing.T, d design) {
	// 150 clicks on 40 links take four transactions of at most 99 items.
	full, want := bigBatch(t, 150, 40)
	tests := []struct {
		name  string
		retry func(t *testing.T, failedAt string) []events.KinesisEvent
	}{
		{name: "Lambda retries from the reported record", retry: func(t *testing.T, failedAt string) []events.KinesisEvent {
			return []events.KinesisEvent{from(t, full, failedAt)}
		}},
		{name: "the whole batch comes back", retry: func(*testing.T, string) []events.KinesisEvent {
			return []events.KinesisEvent{full}
		}},
		{name: "it comes back cut differently", retry: func(*testing.T, string) []events.KinesisEvent {
			return []events.KinesisEvent{{Records: full.Records[:37]}, {Records: full.Records[20:111]}, {Records: full.Records[90:]}}
		}},
		{name: "retried twice", retry: func(t *testing.T, failedAt string) []events.KinesisEvent {
			return []events.KinesisEvent{from(t, full, failedAt), from(t, full, failedAt), full}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, d)
			flaky := &flakyDB{Client: f.client, failOn: map[int]bool{2: true}}

			resp, err := f.handler(flaky).Handle(context.Background(), full)

			require.NoError(t, err)
			require.Len(t, resp.BatchItemFailures, 1)
			assert.Equal(t, 2, flaky.calls, "the batch stops at the failed chunk")
			require.Equal(t, 1, flaky.applied)
			failedAt := resp.BatchItemFailures[0].ItemIdentifier
			assert.NotEqual(t, full.Records[0].Kinesis.SequenceNumber, failedAt, "the first chunk was committed")
			partial := map[string]clickstore.Counts{}
			for code := range want {
				if c := f.day(t, code); c.Total > 0 {
					partial[code] = c
				}
			}
			assert.NotEmpty(t, partial)
			assert.NotEqual(t, want, partial)

			for _, ev := range tt.retry(t, failedAt) {
				resp, err := f.handler(nil).Handle(context.Background(), ev)
				require.NoError(t, err)
				require.Empty(t, resp.BatchItemFailures)
			}

			for code, w := range want {
				assert.Equal(t, w, f.day(t, code), code)
			}
			// And every other counter matches one clean pass.
			clean := newFixture(t, d)
			resp, err = clean.handler(nil).Handle(context.Background(), full)
			require.NoError(t, err)
			require.Empty(t, resp.BatchItemFailures)
			assert.Equal(t, clean.counters(t), f.counters(t))
		})
	}
}

func TestRedeliveryAfterTheHandlerDied(t *testing.T) {
	forEachDesign(t, testRedeliveryAfterTheHandlerDied)
}

func testRedeliveryAfterTheHandlerDied(t *testing.T, d design) {
	// The first invocation committed 50 records and then timed out without
	// answering; Lambda hands over a longer batch from the start.
	full, want := bigBatch(t, 120, 30)
	f := newFixture(t, d)
	h := f.handler(nil)

	_, err := h.Handle(context.Background(), events.KinesisEvent{Records: full.Records[:50]})
	require.NoError(t, err)
	resp, err := h.Handle(context.Background(), full)

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), code)
	}
	assert.Equal(t, 50.0, f.lastMetrics(t)["RecordsAlreadyApplied"])
}

// fakeStore records the chunks it is given and answers from a script.
type fakeStore struct {
	chunks     []clickstore.Chunk
	errs       []error // answer to the nth Apply; nil past the end
	checkpoint string
	cpErr      error
}

func (s *fakeStore) Apply(_ context.Context, c clickstore.Chunk) error {
	c.Items = slices.Clone(c.Items) // the handler reuses them for the next chunk
	s.chunks = append(s.chunks, c)
	if n := len(s.chunks) - 1; n < len(s.errs) {
		return s.errs[n]
	}
	return nil
}

func (s *fakeStore) Checkpoint(context.Context, string) (string, error) { return s.checkpoint, s.cpErr }

func fakeHandler(s *fakeStore) *Handler {
	return New(Options{Store: s, Backoff: time.Microsecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func TestChunking(t *testing.T) {
	ev, want := bigBatch(t, 150, 40)
	tests := []struct {
		name     string
		maxItems int
		minTx    int
	}{
		{name: "transaction size", maxItems: 0, minTx: 4},
		{name: "small chunks", maxItems: 10, minTx: 38},
		{name: "one click per chunk", maxItems: 1, minTx: 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &fakeStore{}
			h := fakeHandler(s)
			h.MaxItems = tt.maxItems

			resp, err := h.Handle(context.Background(), ev)

			require.NoError(t, err)
			assert.Empty(t, resp.BatchItemFailures)
			assert.GreaterOrEqual(t, len(s.chunks), tt.minTx)
			limit := h.maxItems()
			got := map[string]clickstore.Counts{}
			next := 0
			for _, c := range s.chunks {
				assert.LessOrEqual(t, len(c.Items), limit)
				keys := map[clickstore.Key]bool{}
				for _, it := range c.Items {
					assert.False(t, keys[it.Key], "a key twice in one chunk")
					keys[it.Key] = true
				}
				assert.Equal(t, shard0, c.Shard)
				// Chunks are contiguous and in order.
				assert.Equal(t, ev.Records[next].Kinesis.SequenceNumber, c.First)
				last := slices.IndexFunc(ev.Records, func(r events.KinesisEventRecord) bool { return r.Kinesis.SequenceNumber == c.Last })
				require.GreaterOrEqual(t, last, next)
				next = last + 1
				for _, it := range c.Items {
					if it.Kind == clickstore.Day {
						sum := got[it.Code]
						sum.Add(it.Counts)
						got[it.Code] = sum
					}
				}
			}
			assert.Equal(t, len(ev.Records), next, "every record is in a chunk")
			assert.Equal(t, want, got)
		})
	}
}

func TestChunksSplitAtShardChanges(t *testing.T) {
	ev, _ := bigBatch(t, 6, 2)
	for i := 3; i < 6; i++ {
		ev.Records[i].EventID = "shardId-000000000007:" + ev.Records[i].Kinesis.SequenceNumber
	}
	s := &fakeStore{}

	_, err := fakeHandler(s).Handle(context.Background(), ev)

	require.NoError(t, err)
	require.Len(t, s.chunks, 2)
	assert.Equal(t, shard0, s.chunks[0].Shard)
	assert.Equal(t, streamARN+"/shardId-000000000007", s.chunks[1].Shard)
}

// chunksOf is how many chunks a clean run cuts records into.
func chunksOf(t *testing.T, records []events.KinesisEventRecord) int {
	t.Helper()
	s := &fakeStore{}
	_, err := fakeHandler(s).Handle(context.Background(), events.KinesisEvent{Records: records})
	require.NoError(t, err)
	return len(s.chunks)
}

func TestFailures(t *testing.T) {
	ev, _ := bigBatch(t, 150, 40)
	seqOf := func(i int) string { return ev.Records[i].Kinesis.SequenceNumber }
	boom := errors.New("boom")
	all := chunksOf(t, ev.Records)
	require.Greater(t, all, 1)
	tests := []struct {
		name      string
		store     *fakeStore
		ctx       func() context.Context
		wantFail  string // "" for no failure
		wantCalls int
	}{
		{name: "first chunk fails", store: &fakeStore{errs: []error{boom}}, wantFail: seqOf(0), wantCalls: 1},
		{name: "contended, then applied", store: &fakeStore{errs: []error{clickstore.ErrContended, clickstore.ErrContended}}, wantCalls: all + 2},
		{name: "contended every time", store: &fakeStore{errs: []error{clickstore.ErrContended, clickstore.ErrContended, clickstore.ErrContended}}, wantFail: seqOf(0), wantCalls: DefaultAttempts},
		{name: "applied, checkpoint unreadable", store: &fakeStore{errs: []error{clickstore.ErrApplied}, cpErr: boom}, wantFail: seqOf(0), wantCalls: 1},
		{name: "applied, checkpoint below the chunk", store: &fakeStore{errs: []error{clickstore.ErrApplied}, checkpoint: "1"}, wantFail: seqOf(0), wantCalls: 1},
		{name: "applied up to record 9", store: &fakeStore{errs: []error{clickstore.ErrApplied}, checkpoint: seqOf(9)}, wantCalls: 1 + chunksOf(t, ev.Records[10:])},
		{name: "applied past the batch", store: &fakeStore{errs: []error{clickstore.ErrApplied}, checkpoint: seqOf(149) + "0"}, wantCalls: 1},
		{name: "out of time", store: &fakeStore{}, ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, wantFail: seqOf(0), wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}

			resp, err := fakeHandler(tt.store).Handle(ctx, ev)

			require.NoError(t, err, "a handler error would fail the whole batch")
			if tt.wantFail == "" {
				assert.Empty(t, resp.BatchItemFailures)
			} else {
				assert.Equal(t, []events.KinesisBatchItemFailure{{ItemIdentifier: tt.wantFail}}, resp.BatchItemFailures)
			}
			assert.Len(t, tt.store.chunks, tt.wantCalls)
		})
	}
}

func TestSkipsPastTheCheckpointAfterAConflict(t *testing.T) {
	ev, _ := bigBatch(t, 150, 40)
	s := &fakeStore{errs: []error{clickstore.ErrApplied}, checkpoint: ev.Records[9].Kinesis.SequenceNumber}

	_, err := fakeHandler(s).Handle(context.Background(), ev)

	require.NoError(t, err)
	require.GreaterOrEqual(t, len(s.chunks), 2)
	assert.Equal(t, ev.Records[10].Kinesis.SequenceNumber, s.chunks[1].First)
}

func TestNothingToWrite(t *testing.T) {
	notClicks := event(t, "kinesis-mixed.json")
	notClicks.Records = slices.DeleteFunc(notClicks.Records, func(r events.KinesisEventRecord) bool {
		c, err := clicklog.Parse(r.Kinesis.Data)
		if err != nil {
			return false
		}
		_, ok := clicklog.Classify(&c)
		return ok
	})
	require.NotEmpty(t, notClicks.Records)
	tests := []struct {
		name string
		ev   events.KinesisEvent
	}{
		{name: "empty batch", ev: events.KinesisEvent{}},
		{name: "no clicks", ev: notClicks},
		{name: "empty data", ev: events.KinesisEvent{Records: []events.KinesisEventRecord{{EventID: "shardId-000000000000:1", Kinesis: events.KinesisRecord{SequenceNumber: "1"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &fakeStore{}

			resp, err := fakeHandler(s).Handle(context.Background(), tt.ev)

			require.NoError(t, err)
			assert.Empty(t, resp.BatchItemFailures)
			assert.Empty(t, s.chunks)
		})
	}
}

func TestRecordOfTwoLinesIsPoison(t *testing.T) {
	// CloudFront writes one line per Kinesis record.
	ev, _ := bigBatch(t, 3, 1)
	ev.Records[1].Kinesis.Data = append(slices.Clone(ev.Records[1].Kinesis.Data), ev.Records[2].Kinesis.Data...)
	s := &fakeStore{}

	resp, err := fakeHandler(s).Handle(context.Background(), ev)

	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	require.Len(t, s.chunks, 1)
	assert.Equal(t, 2, dayTotal(s.chunks[0]), "records 0 and 2 count, record 1 does not")
}

func dayTotal(c clickstore.Chunk) int {
	n := 0
	for _, it := range c.Items {
		if it.Kind == clickstore.Day {
			n += int(it.Total)
		}
	}
	return n
}

// TestDestinationsCounted: a decided link's clicks also count per
// destination, each once, adding up to the total; a plain link's clicks
// and the password form's answers count none.
func TestDestinationsCounted(t *testing.T) {
	f := newFixture(t, designs[0]) // the items design: counters read per item
	var ev events.KinesisEvent
	add := func(i int, status int, method, ct string) {
		uri := "/geo1234"
		if method == "POST" {
			uri = "/unlock/geo1234" // the password form's
		}
		r := clicklog.Record{Time: noon.Add(time.Duration(i) * time.Second), Status: status, Method: method, Host: "sho.rt",
			URI: uri, RequestID: fmt.Sprintf("req-%06d", i), UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
			ResponseResultType: "Miss", ResultType: "Miss", ContentType: ct}
		seq := fmt.Sprintf("49656890123456789012345678901234567890%018d", i+1)
		ev.Records = append(ev.Records, events.KinesisEventRecord{
			EventID: "shardId-000000000000:" + seq, EventSourceArn: streamARN, EventSource: "aws:kinesis",
			EventName: "aws:kinesis:record", AwsRegion: "us-east-1",
			Kinesis: events.KinesisRecord{SequenceNumber: seq, PartitionKey: "geo1234", Data: clicklog.Format(r)},
		})
	}
	for i := range 10 {
		switch {
		case i < 6:
			add(i, 302, "GET", "text/plain; charset=utf-8; destination=rule-0")
		case i < 9:
			add(i, 302, "GET", "text/plain; charset=utf-8; destination=target-1")
		default:
			add(i, 303, "POST", "text/plain; charset=utf-8; destination=default")
		}
	}
	add(10, 200, "GET", "text/html; charset=utf-8")
	add(11, 403, "POST", "text/html; charset=utf-8")

	resp, err := f.handler(nil).Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	got := f.counters(t)
	assert.Equal(t, cnt(10, 10, 0), got["geo1234 d#20261130"])
	assert.Equal(t, cnt(6, 6, 0), got["geo1234 t#20261130#rule-0"])
	assert.Equal(t, cnt(3, 3, 0), got["geo1234 t#20261130#target-1"])
	assert.Equal(t, cnt(1, 1, 0), got["geo1234 t#20261130#default"])
}

// onShard returns ev's records as shard id's, their sequence numbers
// prefixed so that they are distinct from every other shard's.
func onShard(ev events.KinesisEvent, id string, seqPrefix string) events.KinesisEvent {
	out := events.KinesisEvent{Records: slices.Clone(ev.Records)}
	for i := range out.Records {
		r := &out.Records[i]
		r.Kinesis.SequenceNumber = seqPrefix + r.Kinesis.SequenceNumber[len(seqPrefix):]
		r.EventID = id + ":" + r.Kinesis.SequenceNumber
	}
	return out
}

// sumDays adds up the day counts wants hold per code.
func sumDays(wants ...map[string]clickstore.Counts) map[string]clickstore.Counts {
	out := map[string]clickstore.Counts{}
	for _, w := range wants {
		for code, n := range w {
			v := out[code]
			v.Add(n)
			out[code] = v
		}
	}
	return out
}

func TestReshardingCountsEveryClickOnce(t *testing.T) {
	forEachDesign(t, testReshardingCountsEveryClickOnce)
}

// testReshardingCountsEveryClickOnce: a shard is split in two. Lambda
// finishes the parent before its children, but the parent's last batch
// failed halfway and comes back after a retry; the children's sequence
// numbers are lower than the parent's checkpoint, which must not matter:
// checkpoints are per shard.
func testReshardingCountsEveryClickOnce(t *testing.T, d design) {
	f := newFixture(t, d)
	parent, wantParent := bigBatch(t, 150, 40)
	child1, want1 := bigBatch(t, 60, 10)
	child2, want2 := bigBatch(t, 70, 25)
	child1 = onShard(child1, "shardId-000000000001", "1")
	child2 = onShard(child2, "shardId-000000000002", "2")
	flaky := &flakyDB{Client: f.client, failOn: map[int]bool{2: true}}

	resp, err := f.handler(flaky).Handle(context.Background(), parent)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 1)
	for _, ev := range []events.KinesisEvent{from(t, parent, resp.BatchItemFailures[0].ItemIdentifier), child1, child2, child1} {
		resp, err := f.handler(nil).Handle(context.Background(), ev)
		require.NoError(t, err)
		require.Empty(t, resp.BatchItemFailures)
	}

	want := sumDays(wantParent, want1, want2)
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), code)
	}
}

func TestConcurrentShardsCountEveryClickOnce(t *testing.T) {
	forEachDesign(t, testConcurrentShardsCountEveryClickOnce)
}

// testConcurrentShardsCountEveryClickOnce: three consumers, one a shard,
// each its own instance, count the same links at once (a hot link seen by
// every shard), each batch delivered twice.
func testConcurrentShardsCountEveryClickOnce(t *testing.T, d design) {
	f := newFixture(t, d)
	var wants []map[string]clickstore.Counts
	var streams []events.KinesisEvent
	for s := range 3 {
		ev, want := bigBatch(t, 120, 12)
		streams = append(streams, onShard(ev, fmt.Sprintf("shardId-%012d", s), strconv.Itoa(s+1)))
		wants = append(wants, want)
	}
	var wg sync.WaitGroup
	for _, ev := range streams {
		wg.Go(func() {
			h := f.handler(nil)
			h.Backoff, h.Attempts = 5*time.Millisecond, 10 // hot items conflict in the items design
			for i := 0; i < len(ev.Records); i += 30 {
				batch := events.KinesisEvent{Records: ev.Records[i:min(i+30, len(ev.Records))]}
				for range 2 {
					resp, err := h.Handle(context.Background(), batch)
					assert.NoError(t, err)
					assert.Empty(t, resp.BatchItemFailures)
				}
			}
		})
	}
	wg.Wait()

	want := sumDays(wants...)
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), code)
	}
}

// crashingCompactor stops the compaction after its first item write the
// first time, as a timeout would.
type crashingCompactor struct {
	store   *packedclicks.Store
	crashed bool
}

var errCrash = errors.New("crash")

func (c *crashingCompactor) Compact(ctx context.Context) (packedclicks.Compaction, error) {
	if c.crashed {
		return c.store.Compact(ctx)
	}
	c.crashed = true
	return c.store.CompactWithHook(ctx, func(int) error { return errCrash })
}

func TestCompactionDyingUnderRedeliveryCountsOnce(t *testing.T) {
	// The batch is applied and its compaction dies after one item; the
	// batch comes back (its answer was lost too); the next compaction,
	// past the lease, resumes the dead one. Every read in between is exact.
	d := designs[2]
	f := newFixture(t, d)
	full, want := bigBatch(t, 150, 40)
	clk := noon
	st := packedclicks.New(f.client, packedclicks.Config{Table: f.table, Timeout: 20 * time.Second, Buckets: 16, Now: func() time.Time { return clk }})
	h := f.handler(nil)
	h.Store, h.Compactor = st, &crashingCompactor{store: st}
	h.CompactEvery = 4 // the whole batch (four chunks), then compact

	resp, err := h.Handle(context.Background(), full)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures, "a failed compaction does not fail the batch")
	assert.Equal(t, 1.0, f.lastMetrics(t)["CompactionFailures"])
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), "%s, while the compaction is half done", code)
	}

	resp, err = h.Handle(context.Background(), full)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, 150.0, f.lastMetrics(t)["RecordsAlreadyApplied"])
	clk = clk.Add(packedclicks.DefaultLease + time.Second)
	res, err := h.Compactor.Compact(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Resumed)

	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), code)
	}
	clean := newFixture(t, designs[0])
	resp, err = clean.handler(nil).Handle(context.Background(), full)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, clean.counters(t), f.counters(t), "every counter as one clean pass of the items design")
}

// countingCompactor counts the compactions a handler asks for.
type countingCompactor struct{ n int }

func (c *countingCompactor) Compact(context.Context) (packedclicks.Compaction, error) {
	c.n++
	return packedclicks.Compaction{}, nil
}

// TestInstanceCompactsAfterItsFirstBatch: an instance compacts after the
// first batch it applies, then every CompactEvery chunks. Counting only to
// CompactEvery, an instance that a quiet stream lets Lambda recycle before
// it applied that many chunks never compacted, and rollups never
// compacted expire (packedclicks.DefaultRollupRetention) with no
// CompactionLag to alarm on.
func TestInstanceCompactsAfterItsFirstBatch(t *testing.T) {
	ev, _ := bigBatch(t, 40, 10)
	c := &countingCompactor{}
	h := fakeHandler(&fakeStore{})
	h.Compactor, h.CompactEvery = c, 3
	var got []int
	for i := range 4 {
		resp, err := h.Handle(context.Background(), events.KinesisEvent{Records: ev.Records[i*10 : (i+1)*10]})
		require.NoError(t, err)
		require.Empty(t, resp.BatchItemFailures)
		got = append(got, c.n)
	}
	assert.Equal(t, []int{1, 1, 1, 2}, got, "compactions after each batch of one chunk")

	fresh := fakeHandler(&fakeStore{})
	fresh.Compactor, fresh.CompactEvery = c, 3
	_, err := fresh.Handle(context.Background(), events.KinesisEvent{Records: ev.Records[:10]})
	require.NoError(t, err)
	assert.Equal(t, 3, c.n, "a new instance's first batch compacts too")
}

func newBreakdown(k clickstore.Kind) bool {
	return k == clickstore.Agent || k == clickstore.Campaign || k == clickstore.Visitor
}

func TestBreakdownsAndVisitors(t *testing.T) { forEachDesign(t, testBreakdownsAndVisitors) }

// testBreakdownsAndVisitors: agents and campaigns are counted like
// countries, visitors are estimated from HMAC'd addresses, and a batch
// delivered twice changes none of them.
func testBreakdownsAndVisitors(t *testing.T, d design) {
	f := newFixture(t, d)
	var ev events.KinesisEvent
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
	}
	for i := range 60 {
		uri := "/vis1234"
		if i%3 == 0 {
			uri += "?utm_source=news&utm_medium=email&utm_campaign=dec"
		}
		r := clicklog.Record{Time: noon.Add(time.Duration(i) * time.Second), ClientIP: fmt.Sprintf("192.0.2.%d", i%20),
			Status: 302, Method: "GET", Host: "sho.rt", URI: uri, RequestID: fmt.Sprintf("req-%06d", i),
			UserAgent: agents[i%3], ResponseResultType: "Hit", ResultType: "Hit"}
		seq := fmt.Sprintf("49656890123456789012345678901234567890%018d", i+1)
		ev.Records = append(ev.Records, events.KinesisEventRecord{
			EventID: "shardId-000000000000:" + seq, EventSourceArn: streamARN, EventSource: "aws:kinesis",
			EventName: "aws:kinesis:record", AwsRegion: "us-east-1",
			Kinesis: events.KinesisRecord{SequenceNumber: seq, PartitionKey: "vis1234", Data: clicklog.Format(r)},
		})
	}
	salts := &visitors.Memory{Now: func() time.Time { return noon }}
	for range 2 { // the second delivery is skipped by the checkpoint
		h := f.handler(nil)
		h.Salts = salts
		resp, err := h.Handle(context.Background(), ev)
		require.NoError(t, err)
		require.Empty(t, resp.BatchItemFailures)
	}
	st := f.newStore(f.client)
	from, to := noon.Truncate(24*time.Hour), noon.Truncate(24*time.Hour).Add(24*time.Hour)
	got, _, err := st.Breakdown(context.Background(), "vis1234", clickstore.Agent, from, to)
	require.NoError(t, err)
	assert.Equal(t, map[string]clickstore.Counts{
		"desktop/Windows/Chrome": cnt(20, 20, 0),
		"mobile/iOS/Safari":      cnt(20, 20, 0),
		"bot/other/other":        cnt(20, 0, 20),
	}, got)
	got, _, err = st.Breakdown(context.Background(), "vis1234", clickstore.Campaign, from, to)
	require.NoError(t, err)
	assert.Equal(t, map[string]clickstore.Counts{"news\x1femail\x1fdec": cnt(20, 20, 0)}, got, "every third click: the desktop's")
	got, _, err = st.Breakdown(context.Background(), "vis1234", clickstore.Visitor, from, to)
	require.NoError(t, err)
	var sk visitors.Sketch
	for dim := range got {
		r, ok := visitors.FromDim(dim)
		require.True(t, ok)
		sk.Add(r)
	}
	// Humans are the 40 clicks with i%3 != 2, each a distinct pair of
	// address (i%20) and agent (i%3), as 20 and 3 are coprime; the bot's 20
	// add none, and the second delivery none either.
	assert.InDelta(t, 40, sk.Estimate(), 3*visitors.StandardError*40+2)
}
