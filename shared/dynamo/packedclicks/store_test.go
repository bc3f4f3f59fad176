package packedclicks_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/clickstore/clickstoretest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var now = time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC)

// clock is a manual clock for the stores of one test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	db    *dynamodb.Client
	table string
	clock *clock
	cfg   packedclicks.Config
	store *packedclicks.Store
}

func newFixture(t *testing.T, cfg packedclicks.Config) *fixture {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg.Table = testenv.UniqueName(t, "packed")
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second // DynamoDB Local's first calls are slow on a busy machine
	}
	if cfg.Buckets == 0 {
		cfg.Buckets = 8 // several codes a bucket, as in production
	}
	clk := &clock{t: now}
	cfg.Now = clk.Now
	require.NoError(t, localtable.Create(context.Background(), db, cfg.Table, tableschema.Analytics()))
	return &fixture{db: db, table: cfg.Table, clock: clk, cfg: cfg, store: packedclicks.New(db, cfg)}
}

// another is a second store over the same table, as another instance of
// the clicks function has.
func (f *fixture) another(db dynamo.API) *packedclicks.Store {
	if db == nil {
		db = f.db
	}
	return packedclicks.New(db, f.cfg)
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

// TestDynamoDBLocal runs the behaviour suite on the rollups alone (nothing
// compacted) ...
func TestDynamoDBLocal(t *testing.T) {
	clickstoretest.Run(t, func(t *testing.T, cfg clickstoretest.Config) clickstore.Store {
		return newFixture(t, packedclicks.Config{MaxBreakdownItems: cfg.MaxBreakdownItems}).store
	})
}

// ... and with a compaction after every apply, so reads see day items.
func TestDynamoDBLocalCompacted(t *testing.T) {
	clickstoretest.Run(t, func(t *testing.T, cfg clickstoretest.Config) clickstore.Store {
		return compacting{newFixture(t, packedclicks.Config{MaxBreakdownItems: cfg.MaxBreakdownItems}).store}
	})
}

// ... and with every compaction merging into the chains of day items.
func TestDynamoDBLocalMerged(t *testing.T) {
	clickstoretest.Run(t, func(t *testing.T, cfg clickstoretest.Config) clickstore.Store {
		return compacting{newFixture(t, packedclicks.Config{MaxBreakdownItems: cfg.MaxBreakdownItems, Groups: 2, MergeBytes: 1}).store}
	})
}

// compacting compacts after each Apply.
type compacting struct{ *packedclicks.Store }

func (s compacting) Apply(ctx context.Context, ch clickstore.Chunk) error {
	if err := s.Store.Apply(ctx, ch); err != nil {
		return err
	}
	res, err := s.Compact(ctx)
	if err == nil && res.Rollups == 0 {
		err = errors.New("compaction found nothing to compact")
	}
	return err
}

// codes are n codes that share few buckets.
func codes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Cd%05d", i)
	}
	return out
}

// chunkOf is a chunk of shard with each code clicked at of times (hour,
// day, country and referrer items).
func chunkOf(shard, first, last string, codes []string, at time.Time, times int64) clickstore.Chunk {
	ch := clickstore.Chunk{Shard: shard, First: first, Last: last}
	for _, code := range codes {
		n := c(times, times, 0)
		ch.Items = append(ch.Items,
			clickstore.Item{Key: clickstore.HourKey(code, at), Counts: n},
			clickstore.Item{Key: clickstore.DayKey(code, at), Counts: n},
			clickstore.Item{Key: clickstore.CountryKey(code, at, "DE"), Counts: n},
			clickstore.Item{Key: clickstore.ReferrerKey(code, at, "t.co"), Counts: n})
	}
	return ch
}

const (
	shard0 = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks/shardId-000000000000"
	shard1 = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks/shardId-000000000001"
)

// want is what chunks of chunkOf sum to: code → day count.
func dayCounts(t *testing.T, s clickstore.Store, codes []string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, code := range codes {
		points, err := s.Series(context.Background(), code, clickstore.Day, now.Add(-72*time.Hour), now.Add(72*time.Hour))
		require.NoError(t, err)
		for _, p := range points {
			out[code] += p.Total
		}
	}
	return out
}

func TestCompactionKeepsEveryCount(t *testing.T) {
	f := newFixture(t, packedclicks.Config{})
	ctx := context.Background()
	cs := codes(40)
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "1", "10", cs, now, 1)))
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard1, "5", "9", cs[:20], now.Add(-25*time.Hour), 2)))
	before, err := f.store.Counts(ctx)
	require.NoError(t, err)

	res, err := f.store.Compact(ctx)

	require.NoError(t, err)
	assert.Equal(t, 2, res.Rollups)
	assert.Positive(t, res.Items)
	after, err := f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	again, err := f.store.Compact(ctx)
	require.NoError(t, err)
	assert.Zero(t, again.Rollups, "nothing left to compact")
	got := dayCounts(t, f.store, cs)
	for i, code := range cs {
		want := int64(1)
		if i < 20 {
			want = 3
		}
		assert.Equal(t, want, got[code], code)
	}

	// Applies after a compaction are read from rollups, on top.
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "11", "12", cs[:1], now, 5)))
	assert.Equal(t, int64(8), dayCounts(t, f.store, cs[:1])[cs[0]])
}

// errCrash stands for a compaction dying between two item writes.
var errCrash = errors.New("crash")

func TestCompactionThatDiedIsResumedExactlyOnce(t *testing.T) {
	for _, crashAfter := range []int{1, 3, 7} {
		t.Run(fmt.Sprintf("after %d items", crashAfter), func(t *testing.T) {
			f := newFixture(t, packedclicks.Config{})
			ctx := context.Background()
			cs := codes(60)
			require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "1", "10", cs, now, 1)))
			require.NoError(t, f.store.Apply(ctx, chunkOf(shard1, "1", "3", cs[10:], now, 2)))
			want, err := f.store.Counts(ctx)
			require.NoError(t, err)

			_, err = f.store.CompactWithHook(ctx, func(n int) error {
				if n == crashAfter {
					return errCrash
				}
				return nil
			})
			require.ErrorIs(t, err, errCrash)

			// Mid-way, reads are exact: some day items carry the run's
			// generation, the rest of its rollups are counted from rollups.
			got, err := f.store.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got, "while the run is half done")
			// Within its lease nobody else touches it.
			busy, err := f.another(nil).Compact(ctx)
			require.NoError(t, err)
			assert.True(t, busy.Busy)
			// New clicks meanwhile go to rollups past the run's range.
			require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "11", "11", cs[:1], now, 4)))
			want[clickstore.DayKey(cs[0], now)] = c(5, 5, 0)
			want[clickstore.HourKey(cs[0], now)] = c(5, 5, 0)
			want[clickstore.CountryKey(cs[0], now, "DE")] = c(5, 5, 0)
			want[clickstore.ReferrerKey(cs[0], now, "t.co")] = c(5, 5, 0)

			f.clock.Add(packedclicks.DefaultLease + time.Second)
			res, err := f.another(nil).Compact(ctx)

			require.NoError(t, err)
			assert.True(t, res.Resumed)
			// Items are written 8 at a time, so a few more than crashAfter
			// may have made it before the run stopped.
			assert.GreaterOrEqual(t, res.Skipped, crashAfter, "the items the dead run wrote are not written again")
			got, err = f.store.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			// The next run takes the rollup applied meanwhile, once.
			next, err := f.store.Compact(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, next.Rollups)
			got, err = f.store.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestConcurrentCompactionsCountOnce(t *testing.T) {
	f := newFixture(t, packedclicks.Config{})
	ctx := context.Background()
	cs := codes(50)
	var wg sync.WaitGroup
	// Two shards applying and compacting at once, as two instances of the
	// clicks function do.
	for s, shard := range []string{shard0, shard1} {
		wg.Go(func() {
			st := f.another(nil)
			for i := range 6 {
				seq := fmt.Sprint(10*i + 1)
				assert.NoError(t, st.Apply(ctx, chunkOf(shard, seq, seq, cs[s*10:s*10+30], now, 1)))
				_, err := st.Compact(ctx)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	for {
		res, err := f.store.Compact(ctx)
		require.NoError(t, err)
		if res.Rollups == 0 && !res.Busy {
			break
		}
		if res.Busy {
			f.clock.Add(packedclicks.DefaultLease + time.Second)
		}
	}

	got := dayCounts(t, f.store, cs)
	for i, code := range cs {
		var want int64
		if i < 30 {
			want += 6
		}
		if i >= 10 && i < 40 {
			want += 6
		}
		assert.Equal(t, want, got[code], code)
	}
	all, err := f.store.Counts(ctx)
	require.NoError(t, err)
	var total int64
	for k, n := range all {
		if k.Kind == clickstore.Day {
			total += n.Total
		}
	}
	assert.Equal(t, int64(2*6*30), total)
}

func TestLargeChunkIsSplitIntoParts(t *testing.T) {
	f := newFixture(t, packedclicks.Config{Buckets: 4096})
	ctx := context.Background()
	// 4,000 codes with long referrer hosts: more than one part of 300 KB
	// once compressed? The hosts are distinct and random-ish.
	ch := clickstore.Chunk{Shard: shard0, First: "1", Last: "2"}
	for i := range 4000 {
		code := fmt.Sprintf("L%06d", i)
		host := fmt.Sprintf("%x.%x.example.com", uint64(i)*0x9E3779B97F4A7C15, uint64(i+7)*0xC2B2AE3D27D4EB4F)
		for len(host) < 200 {
			host = fmt.Sprintf("%x.", uint64(len(host)+i)*0x9E3779B97F4A7C15) + host
		}
		ch.Items = append(ch.Items, clickstore.Item{Key: clickstore.ReferrerKey(code, now, host), Counts: c(1, 1, 0)})
	}

	require.NoError(t, f.store.Apply(ctx, ch))

	got, err := f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Len(t, got, 4000)
	_, err = f.store.Compact(ctx)
	require.NoError(t, err)
	again, err := f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

func TestCountsAreTheChunksSummed(t *testing.T) {
	// The same chunks through the in-memory store and this one.
	f := newFixture(t, packedclicks.Config{})
	mem := clickstore.NewMemory(0)
	ctx := context.Background()
	cs := codes(30)
	for i := range 5 {
		seq := fmt.Sprint(i + 1)
		ch := chunkOf(shard0, seq, seq, cs[i*3:i*3+12], now.Add(time.Duration(i)*7*time.Hour), int64(i+1))
		require.NoError(t, f.store.Apply(ctx, ch))
		require.NoError(t, mem.Apply(ctx, ch))
		if i%2 == 1 {
			_, err := f.store.Compact(ctx)
			require.NoError(t, err)
		}
	}
	got, err := f.store.Counts(ctx)
	require.NoError(t, err)
	for _, code := range cs {
		for _, kind := range []clickstore.Kind{clickstore.Hour, clickstore.Day} {
			w, err := mem.Series(ctx, code, kind, now.Add(-48*time.Hour), now.Add(96*time.Hour))
			require.NoError(t, err)
			g, err := f.store.Series(ctx, code, kind, now.Add(-48*time.Hour), now.Add(96*time.Hour))
			require.NoError(t, err)
			assert.Equal(t, w, g, "%s %s", code, kind)
			for _, p := range g {
				k := clickstore.Key{Code: code, Kind: kind, Start: p.Start.Unix()}
				assert.Equal(t, p.Counts, got[k])
			}
		}
		for _, kind := range []clickstore.Kind{clickstore.Country, clickstore.Referrer} {
			w, _, err := mem.Breakdown(ctx, code, kind, now.Add(-48*time.Hour), now.Add(96*time.Hour))
			require.NoError(t, err)
			g, complete, err := f.store.Breakdown(ctx, code, kind, now.Add(-48*time.Hour), now.Add(96*time.Hour))
			require.NoError(t, err)
			assert.True(t, complete)
			assert.Equal(t, w, g, "%s %s", code, kind)
		}
	}
	assert.NotEmpty(t, maps.Collect(maps.All(got)))
}

func TestViewAnswersAsTheStore(t *testing.T) {
	f := newFixture(t, packedclicks.Config{})
	ctx := context.Background()
	cs := codes(10)
	for i := range 4 {
		seq := fmt.Sprint(i + 1)
		require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, seq, seq, cs, now.Add(time.Duration(i)*13*time.Hour), int64(i+1))))
		if i == 1 {
			_, err := f.store.Compact(ctx)
			require.NoError(t, err)
		}
	}
	day := now.Truncate(24 * time.Hour)
	from, to := day.Add(-24*time.Hour), day.Add(72*time.Hour)

	v, err := f.store.View(ctx, cs[3], from, to)
	require.NoError(t, err)

	for _, kind := range []clickstore.Kind{clickstore.Hour, clickstore.Day} {
		want, err := f.store.Series(ctx, cs[3], kind, from.Add(5*time.Hour), to)
		require.NoError(t, err)
		got, err := v.Series(ctx, cs[3], kind, from.Add(5*time.Hour), to)
		require.NoError(t, err)
		assert.NotEmpty(t, got)
		assert.Equal(t, want, got, kind)
	}
	for _, kind := range []clickstore.Kind{clickstore.Country, clickstore.Referrer} {
		want, _, err := f.store.Breakdown(ctx, cs[3], kind, day, to)
		require.NoError(t, err)
		got, complete, err := v.Breakdown(ctx, cs[3], kind, day, to)
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, want, got, kind)
	}
	_, err = v.Series(ctx, cs[3], clickstore.Day, from.Add(-24*time.Hour), to)
	assert.Error(t, err, "a day the view did not read")
	_, _, err = v.Breakdown(ctx, cs[4], clickstore.Country, from, to)
	assert.Error(t, err, "another code")
}

func TestClosedDaysMergeIntoDayItems(t *testing.T) {
	f := newFixture(t, packedclicks.Config{Groups: 2, MergeGroups: 1})
	ctx := context.Background()
	cs := codes(40)
	old := now.Add(-48 * time.Hour)
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "1", "10", cs, old, 1)))
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, "11", "12", cs, now, 1)))
	want, err := f.store.Counts(ctx)
	require.NoError(t, err)

	first, err := f.store.Compact(ctx)
	require.NoError(t, err)
	assert.Positive(t, first.Items, "segments written")
	assert.Zero(t, first.Merged, "a closed day just written to waits MergeAfter")
	got, err := f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got, "in segments")

	// No rollups left, but the closed day is to fold, a group a run.
	f.clock.Add(time.Hour)
	for i := range 2 {
		res, err := f.store.Compact(ctx)
		require.NoError(t, err)
		assert.Zero(t, res.Rollups)
		assert.Positive(t, res.Merged, "group %d folded", i)
		got, err := f.store.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, got, "after folding group %d", i)
	}
	last, err := f.store.Compact(ctx)
	require.NoError(t, err)
	assert.Zero(t, last.Gen, "nothing left: today is still open")

	// Late clicks of the closed day reopen it; it is folded again once
	// they stop for MergeAfter, not while they come.
	require.NoError(t, f.store.Apply(ctx, chunkOf(shard1, "1", "2", cs[:5], old, 2)))
	want, err = f.store.Counts(ctx)
	require.NoError(t, err)
	late, err := f.store.Compact(ctx)
	require.NoError(t, err)
	assert.Zero(t, late.Merged, "not folded while late clicks come")
	f.clock.Add(time.Hour)
	for range 3 {
		_, err := f.store.Compact(ctx)
		require.NoError(t, err)
	}
	got, err = f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got, "late clicks merged")
	days := dayCounts(t, f.another(nil), cs)
	for i, code := range cs {
		n := int64(2)
		if i < 5 {
			n = 4
		}
		assert.Equal(t, n, days[code], code)
	}
}

// failDeletes fails every DeleteItem after the first n, as a compaction
// dying while it folds a day.
type failDeletes struct {
	*dynamodb.Client
	mu sync.Mutex
	n  int
}

func (f *failDeletes) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	f.mu.Lock()
	f.n--
	n := f.n
	f.mu.Unlock()
	if n < 0 {
		return nil, errCrash
	}
	return f.Client.DeleteItem(ctx, in, opts...)
}

// dayItems counts the day items in the table.
func (f *fixture) dayItems(t *testing.T) int {
	t.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(f.db, &dynamodb.ScanInput{TableName: &f.table})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, item := range out.Items {
			if pk, ok := item["code"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "#d#") {
				n++
			}
		}
	}
	return n
}

func TestOpenDaysChainAndClosedDaysFold(t *testing.T) {
	f := newFixture(t, packedclicks.Config{Groups: 2, MergeBytes: 1, Buckets: 4})
	ctx := context.Background()
	cs := codes(30)
	for i := range 3 {
		seq := fmt.Sprint(10 * (i + 1))
		require.NoError(t, f.store.Apply(ctx, chunkOf(shard0, seq, seq, cs, now, 1)))
		res, err := f.store.Compact(ctx)
		require.NoError(t, err)
		assert.Positive(t, res.Merged, "a new item in each chain of today")
	}
	assert.Equal(t, 3*4, f.dayItems(t), "three items in each of 4 buckets' chains")
	want, err := f.store.Counts(ctx)
	require.NoError(t, err)
	for code, n := range dayCounts(t, f.store, cs) {
		assert.Equal(t, int64(3), n, code)
	}

	// The day closes: the fold dies after deleting one folded item, and the
	// next compaction, past the lease, finishes it.
	f.clock.Add(48 * time.Hour)
	dying := f.another(&failDeletes{Client: f.db, n: 1})
	_, err = dying.Compact(ctx)
	require.ErrorIs(t, err, errCrash)
	got, err := f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got, "half folded")
	f.clock.Add(time.Hour)
	for range 3 {
		_, err := f.store.Compact(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, 4, f.dayItems(t), "one item a bucket-day")
	got, err = f.store.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, got, "folded")
}

// recordLevels records the level of every call the store makes, by
// operation and partition key prefix ("#d#" for "#d#3").
type recordLevels struct {
	*dynamodb.Client
	mu   sync.Mutex
	seen map[string]map[packedclicks.Level]int
}

func (r *recordLevels) note(ctx context.Context, op string, k map[string]types.AttributeValue) {
	what := op
	if pk, ok := k["code"].(*types.AttributeValueMemberS); ok {
		prefix, _, _ := strings.Cut(strings.TrimPrefix(pk.Value, "#"), "#")
		what += " #" + prefix
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[what] == nil {
		r.seen[what] = map[packedclicks.Level]int{}
	}
	r.seen[what][packedclicks.LevelOf(ctx)]++
}

func (r *recordLevels) levels() map[string]map[packedclicks.Level]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = map[string]map[packedclicks.Level]int{}
	return out
}

func (r *recordLevels) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.note(ctx, "TransactWriteItems", nil)
	return r.Client.TransactWriteItems(ctx, in, opts...)
}

func (r *recordLevels) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.note(ctx, "PutItem", in.Item)
	return r.Client.PutItem(ctx, in, opts...)
}

func (r *recordLevels) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	r.note(ctx, "DeleteItem", in.Key)
	return r.Client.DeleteItem(ctx, in, opts...)
}

func (r *recordLevels) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.note(ctx, "Query", map[string]types.AttributeValue{"code": in.ExpressionAttributeValues[":pk"]})
	return r.Client.Query(ctx, in, opts...)
}

// TestLevelsNameEveryCall: every write the store makes carries the level
// it belongs to (what cmd/cost splits the units by), and the compaction
// reports the chain items, the folds and the deletes it made.
func TestLevelsNameEveryCall(t *testing.T) {
	f := newFixture(t, packedclicks.Config{Groups: 2, MergeBytes: 1, Buckets: 4})
	rec := &recordLevels{Client: f.db, seen: map[string]map[packedclicks.Level]int{}}
	s := f.another(rec)
	ctx := context.Background()
	cs := codes(30)
	chained := 0
	for i := range 3 {
		seq := fmt.Sprint(10 * (i + 1))
		require.NoError(t, s.Apply(ctx, chunkOf(shard0, seq, seq, cs, now, 1)))
		res, err := s.Compact(ctx)
		require.NoError(t, err)
		assert.Zero(t, res.Folded, "today is not folded")
		assert.Positive(t, res.ChainBytes, "chain items written")
		chained += res.Merged
	}
	assert.Equal(t, 3*4, chained, "one chain item a bucket and compaction")
	got := rec.levels()
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelRollup: 3}, got["TransactWriteItems"], "the rollups")
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelSegment: 3 * 2, packedclicks.LevelChain: 3 * 2}, got["PutItem #s"], "a segment a group and compaction, and each merge's marker")
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelChain: 3 * 4}, got["PutItem #d"], "the chain items")
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelCompaction: 3 * 2}, got["PutItem #meta"], "claimed and finished")
	assert.Empty(t, got["DeleteItem #d"], "no chain is deleted before its day's fold")
	assert.Positive(t, got["Query #s"][packedclicks.LevelChain], "a merge reads its group's segments")

	f.clock.Add(48 * time.Hour)
	res, err := s.Compact(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, res.Folded, "one folded item a bucket-day")
	assert.Equal(t, res.Folded, res.Merged)
	assert.Equal(t, 3*4, res.Deleted, "each folded chain's three items")
	assert.Positive(t, res.FoldBytes)
	assert.GreaterOrEqual(t, res.LargestDayItem, res.FoldBytes/res.Folded)
	got = rec.levels()
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelFold: 4}, got["PutItem #d"], "the folded items")
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelFold: 3 * 4}, got["DeleteItem #d"], "the chains' deletes")
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelFold: 2}, got["PutItem #s"], "a group's fold moves its marker")

	_, err = s.Series(ctx, cs[0], clickstore.Day, now.Add(-24*time.Hour), now.Add(24*time.Hour))
	require.NoError(t, err)
	got = rec.levels()
	assert.Equal(t, map[packedclicks.Level]int{packedclicks.LevelRead: 1}, got["Query #d"], "a read of the bucket's day items")
}
