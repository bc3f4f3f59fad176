package clickstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var now = time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC)

const shard = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks/shardId-000000000000"

type fixture struct {
	db    *dynamodb.Client
	table string
	store *clickstore.Store
}

// newFixture creates a fresh analytics table on DynamoDB Local.
func newFixture(t *testing.T, cfg clickstore.Config) *fixture {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg.Table = testenv.UniqueName(t, "clicks")
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second // DynamoDB Local's first calls are slow on a busy machine
	}
	cfg.Now = func() time.Time { return now }
	require.NoError(t, clickstore.CreateTable(context.Background(), db, cfg.Table))
	return &fixture{db: db, table: cfg.Table, store: clickstore.New(db, cfg)}
}

// item reads one raw item, or nil.
func (f *fixture) item(t *testing.T, code, bucket string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      &f.table,
		Key:            map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: code}, "bucket": &types.AttributeValueMemberS{Value: bucket}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

func n(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

func chunk(first, last string, counts map[clickstore.Key]clickstore.Counts) clickstore.Chunk {
	c := clickstore.Chunk{Shard: shard, First: first, Last: last}
	for k, n := range counts {
		c.Items = append(c.Items, clickstore.Item{Key: k, Counts: n})
	}
	return c
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

func TestCreateTableTwice(t *testing.T) {
	f := newFixture(t, clickstore.Config{})

	assert.NoError(t, clickstore.CreateTable(context.Background(), f.db, f.table))
}

func TestApplyWritesTheLayout(t *testing.T) {
	f := newFixture(t, clickstore.Config{HourRetention: 24 * time.Hour, DayRetention: 48 * time.Hour})
	at := time.Date(2026, 11, 30, 12, 5, 0, 0, time.UTC)
	err := f.store.Apply(context.Background(), chunk("100", "105", map[clickstore.Key]clickstore.Counts{
		clickstore.HourKey("Ab3dE5g", at):                             c(3, 2, 1),
		clickstore.DayKey("Ab3dE5g", at):                              c(3, 2, 1),
		clickstore.CountryKey("Ab3dE5g", at, "DE"):                    c(2, 1, 1),
		clickstore.ReferrerKey("Ab3dE5g", at, "news.ycombinator.com"): c(1, 1, 0),
	}))
	require.NoError(t, err)

	hourTTL := fmt.Sprint(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Add(24 * time.Hour).Unix())
	dayTTL := fmt.Sprint(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(48 * time.Hour).Unix())
	tests := []struct {
		bucket            string
		total, human, bot string
		expires           string
	}{
		{bucket: "h#2026113012", total: "3", human: "2", bot: "1", expires: hourTTL},
		{bucket: "d#20261130", total: "3", human: "2", bot: "1", expires: dayTTL},
		{bucket: "c#20261130#DE", total: "2", human: "1", bot: "1", expires: dayTTL},
		{bucket: "r#20261130#news.ycombinator.com", total: "1", human: "1", bot: "0", expires: dayTTL},
	}
	for _, tt := range tests {
		t.Run(tt.bucket, func(t *testing.T) {
			item := f.item(t, "Ab3dE5g", tt.bucket)

			require.NotNil(t, item)
			assert.Equal(t, tt.total, n(item, "total"))
			assert.Equal(t, tt.human, n(item, "human"))
			assert.Equal(t, tt.bot, n(item, "bot"))
			assert.Equal(t, tt.expires, n(item, "expires_at"))
		})
	}
	cp := f.item(t, "#shard#"+shard, "checkpoint")
	require.NotNil(t, cp)
	assert.Equal(t, strings.Repeat("0", 125)+"105", cp["seq"].(*types.AttributeValueMemberS).Value)
	assert.Equal(t, fmt.Sprint(now.Add(clickstore.DefaultCheckpointRetention).Unix()), n(cp, "expires_at"))
}

func TestApplyIsExactlyOnce(t *testing.T) {
	at := now
	key := clickstore.DayKey("Ab3dE5g", at)
	tests := []struct {
		name    string
		chunks  []clickstore.Chunk
		applied []bool // whether each chunk applies
		want    clickstore.Counts
		wantCP  string
	}{
		{
			name:    "one chunk",
			chunks:  []clickstore.Chunk{chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)})},
			applied: []bool{true}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "the same chunk twice",
			chunks: []clickstore.Chunk{
				chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)}),
				chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)}),
			},
			applied: []bool{true, false}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "a chunk overlapping the checkpoint",
			chunks: []clickstore.Chunk{
				chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)}),
				chunk("20", "30", map[clickstore.Key]clickstore.Counts{key: c(5, 5, 0)}),
			},
			applied: []bool{true, false}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "an older chunk after a newer one",
			chunks: []clickstore.Chunk{
				chunk("21", "30", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
				chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)}),
			},
			applied: []bool{true, false}, want: c(1, 1, 0), wantCP: "30",
		},
		{
			name: "consecutive chunks",
			chunks: []clickstore.Chunk{
				chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(2, 1, 1)}),
				chunk("21", "30", map[clickstore.Key]clickstore.Counts{key: c(3, 3, 0)}),
			},
			applied: []bool{true, true}, want: c(5, 4, 1), wantCP: "30",
		},
		{
			// As strings "9" > "10"; as numbers it is the other way round.
			name: "numeric order, not string order",
			chunks: []clickstore.Chunk{
				chunk("9", "9", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
				chunk("10", "10", map[clickstore.Key]clickstore.Counts{key: c(1, 0, 1)}),
				chunk("9", "9", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
			},
			applied: []bool{true, true, false}, want: c(2, 1, 1), wantCP: "10",
		},
		{
			name: "real 56-digit sequence numbers",
			chunks: []clickstore.Chunk{
				chunk("49568167373333333333333333333333333333333333333333333333", "49568167373333333334444444444444444444444444444444444444",
					map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
				chunk("49568167373333333334444444444444444444444444444444444445", "49568167373333333334444444444444444444444444444444444445",
					map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
				chunk("49568167373333333334444444444444444444444444444444444444", "49568167373333333334444444444444444444444444444444444445",
					map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
			},
			applied: []bool{true, true, false}, want: c(2, 2, 0), wantCP: "49568167373333333334444444444444444444444444444444444445",
		},
		{
			name: "128 digits",
			chunks: []clickstore.Chunk{
				chunk(strings.Repeat("9", 127), strings.Repeat("9", 128), map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
				chunk(strings.Repeat("9", 128), strings.Repeat("9", 128), map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)}),
			},
			applied: []bool{true, false}, want: c(1, 1, 0), wantCP: strings.Repeat("9", 128),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, clickstore.Config{})
			for i, ch := range tt.chunks {
				err := f.store.Apply(context.Background(), ch)
				if tt.applied[i] {
					require.NoError(t, err, "chunk %d", i)
				} else {
					require.ErrorIs(t, err, clickstore.ErrApplied, "chunk %d", i)
				}
			}

			points, err := f.store.Series(context.Background(), "Ab3dE5g", clickstore.Day, at.Add(-24*time.Hour), at.Add(24*time.Hour))
			require.NoError(t, err)
			require.Len(t, points, 1)
			assert.Equal(t, tt.want, points[0].Counts)
			cp, err := f.store.Checkpoint(context.Background(), shard)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCP, cp)
		})
	}
}

func TestCheckpointsArePerShard(t *testing.T) {
	f := newFixture(t, clickstore.Config{})
	key := clickstore.DayKey("Ab3dE5g", now)
	other := strings.Replace(shard, "shardId-000000000000", "shardId-000000000001", 1)

	require.NoError(t, f.store.Apply(context.Background(), chunk("50", "60", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)})))
	ch := chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)})
	ch.Shard = other
	require.NoError(t, f.store.Apply(context.Background(), ch))

	got, err := f.store.Checkpoint(context.Background(), other)
	require.NoError(t, err)
	assert.Equal(t, "20", got)
	got, err = f.store.Checkpoint(context.Background(), "never-seen")
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestApplyTakesAFullTransaction(t *testing.T) {
	f := newFixture(t, clickstore.Config{})
	counts := map[clickstore.Key]clickstore.Counts{}
	for i := range clickstore.MaxItems {
		counts[clickstore.DayKey(fmt.Sprintf("code%03d", i), now)] = c(1, 1, 0)
	}

	require.NoError(t, f.store.Apply(context.Background(), chunk("1", "2", counts)))

	points, err := f.store.Series(context.Background(), "code098", clickstore.Day, now.Add(-24*time.Hour), now)
	require.NoError(t, err)
	require.Len(t, points, 1)
	assert.Equal(t, c(1, 1, 0), points[0].Counts)
}

func TestApplyRefusesMalformedChunks(t *testing.T) {
	one := map[clickstore.Key]clickstore.Counts{clickstore.DayKey("Ab3dE5g", now): c(1, 1, 0)}
	tooMany := map[clickstore.Key]clickstore.Counts{}
	for i := range clickstore.MaxItems + 1 {
		tooMany[clickstore.DayKey(fmt.Sprintf("code%03d", i), now)] = c(1, 1, 0)
	}
	tests := []struct {
		name string
		ch   clickstore.Chunk
	}{
		{name: "no counts", ch: chunk("1", "2", nil)},
		{name: "over MaxItems", ch: chunk("1", "2", tooMany)},
		{name: "empty first", ch: chunk("", "2", one)},
		{name: "non-decimal", ch: chunk("1", "2x", one)},
		{name: "negative", ch: chunk("-1", "2", one)},
		{name: "129 digits", ch: chunk("1", strings.Repeat("1", 129), one)},
		{name: "first after last", ch: chunk("3", "2", one)},
		{name: "a key twice", ch: clickstore.Chunk{Shard: shard, First: "1", Last: "2", Items: []clickstore.Item{
			{Key: clickstore.DayKey("Ab3dE5g", now), Counts: c(1, 1, 0)},
			{Key: clickstore.HourKey("Ab3dE5g", now), Counts: c(1, 1, 0)},
			{Key: clickstore.DayKey("Ab3dE5g", now.Add(time.Hour)), Counts: c(1, 0, 1)},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := &failingAPI{}
			s := clickstore.New(db, clickstore.Config{Table: "t"})

			err := s.Apply(context.Background(), tt.ch)

			require.Error(t, err)
			assert.NotErrorIs(t, err, clickstore.ErrApplied)
			assert.Zero(t, db.calls, "nothing is sent")
		})
	}
}

func TestSeriesAndBreakdownRanges(t *testing.T) {
	f := newFixture(t, clickstore.Config{})
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 30, 0, 0, time.UTC) }
	dec1 := time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC)
	counts := map[clickstore.Key]clickstore.Counts{
		clickstore.HourKey("Ab3dE5g", day(29, 23)):            c(1, 1, 0),
		clickstore.HourKey("Ab3dE5g", day(30, 0)):             c(2, 1, 1),
		clickstore.HourKey("Ab3dE5g", day(30, 5)):             c(4, 4, 0),
		clickstore.HourKey("Ab3dE5gX", day(30, 5)):            c(8, 8, 0), // another code sharing a prefix
		clickstore.DayKey("Ab3dE5g", day(29, 0)):              c(1, 1, 0),
		clickstore.DayKey("Ab3dE5g", day(30, 0)):              c(6, 5, 1),
		clickstore.DayKey("Ab3dE5g", dec1):                    c(9, 9, 0),
		clickstore.CountryKey("Ab3dE5g", day(29, 0), "DE"):    c(1, 1, 0),
		clickstore.CountryKey("Ab3dE5g", day(30, 0), "DE"):    c(2, 1, 1),
		clickstore.CountryKey("Ab3dE5g", day(30, 0), "US"):    c(4, 4, 0),
		clickstore.ReferrerKey("Ab3dE5g", day(30, 0), "t.co"): c(3, 3, 0),
		clickstore.ReferrerKey("Ab3dE5g", dec1, "t.co"):       c(5, 5, 0),
	}
	require.NoError(t, f.store.Apply(context.Background(), chunk("1", "1", counts)))
	ctx := context.Background()
	midnight := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }

	t.Run("hours of one day", func(t *testing.T) {
		got, err := f.store.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(30), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{
			{Start: midnight(30), Counts: c(2, 1, 1)},
			{Start: midnight(30).Add(5 * time.Hour), Counts: c(4, 4, 0)},
		}, got)
	})
	t.Run("to is exclusive", func(t *testing.T) {
		got, err := f.store.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{{Start: midnight(29).Add(23 * time.Hour), Counts: c(1, 1, 0)}}, got)
	})
	t.Run("a bucket starting before from is out", func(t *testing.T) {
		got, err := f.store.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(30).Add(time.Second), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{{Start: midnight(30).Add(5 * time.Hour), Counts: c(4, 4, 0)}}, got)
	})
	t.Run("days across a month", func(t *testing.T) {
		got, err := f.store.Series(ctx, "Ab3dE5g", clickstore.Day, midnight(29), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{
			{Start: midnight(29), Counts: c(1, 1, 0)},
			{Start: midnight(30), Counts: c(6, 5, 1)},
			{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Counts: c(9, 9, 0)},
		}, got)
	})
	t.Run("empty range", func(t *testing.T) {
		got, err := f.store.Series(ctx, "Ab3dE5g", clickstore.Day, midnight(30), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("unknown code", func(t *testing.T) {
		got, err := f.store.Series(ctx, "nothing", clickstore.Day, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("countries of one day", func(t *testing.T) {
		got, complete, err := f.store.Breakdown(ctx, "Ab3dE5g", clickstore.Country, midnight(30), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"DE": c(2, 1, 1), "US": c(4, 4, 0)}, got)
	})
	t.Run("countries summed over days", func(t *testing.T) {
		got, complete, err := f.store.Breakdown(ctx, "Ab3dE5g", clickstore.Country, midnight(29), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"DE": c(3, 2, 1), "US": c(4, 4, 0)}, got)
	})
	t.Run("referrers across a month", func(t *testing.T) {
		got, complete, err := f.store.Breakdown(ctx, "Ab3dE5g", clickstore.Referrer, midnight(30), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"t.co": c(8, 8, 0)}, got)
	})
	t.Run("referrers exclude the day at to", func(t *testing.T) {
		got, _, err := f.store.Breakdown(ctx, "Ab3dE5g", clickstore.Referrer, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

func TestBreakdownStopsAtMaxItems(t *testing.T) {
	f := newFixture(t, clickstore.Config{MaxBreakdownItems: 3})
	counts := map[clickstore.Key]clickstore.Counts{}
	for _, cc := range []string{"AT", "BE", "CH", "DE", "ES"} {
		counts[clickstore.CountryKey("Ab3dE5g", now, cc)] = c(1, 1, 0)
	}
	require.NoError(t, f.store.Apply(context.Background(), chunk("1", "1", counts)))

	got, complete, err := f.store.Breakdown(context.Background(), "Ab3dE5g", clickstore.Country, now.Add(-24*time.Hour), now.Add(24*time.Hour))

	require.NoError(t, err)
	assert.False(t, complete)
	assert.Len(t, got, 3)
}

func TestKindsAreChecked(t *testing.T) {
	s := clickstore.New(&failingAPI{}, clickstore.Config{Table: "t"})

	_, err := s.Series(context.Background(), "abc", clickstore.Country, now, now.Add(time.Hour))
	assert.Error(t, err)
	_, _, err = s.Breakdown(context.Background(), "abc", clickstore.Day, now, now.Add(time.Hour))
	assert.Error(t, err)
}

// failingAPI answers every call with err.
type failingAPI struct {
	err   error
	calls int
}

func (f *failingAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *failingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *failingAPI) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	f.calls++
	return nil, f.err
}

func TestApplyErrors(t *testing.T) {
	reasons := func(codes ...string) error {
		e := &types.TransactionCanceledException{Message: aws.String("cancelled")}
		for _, code := range codes {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(code)})
		}
		return e
	}
	tests := []struct {
		name            string
		err             error
		wantApplied     bool
		wantContended   bool
		wantUnavailable bool
	}{
		{name: "checkpoint condition failed", err: reasons("ConditionalCheckFailed", "None"), wantApplied: true},
		{name: "transaction conflict on a counter", err: reasons("None", "TransactionConflict"), wantContended: true, wantUnavailable: true},
		{name: "throttled", err: &types.ThrottlingException{Message: aws.String("slow down")}, wantUnavailable: true},
		{name: "internal error", err: &types.InternalServerError{Message: aws.String("oops")}, wantUnavailable: true},
		{name: "timeout", err: context.DeadlineExceeded, wantUnavailable: true},
		{name: "connection refused", err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), wantUnavailable: true},
		{name: "validation", err: reasons("None", "ValidationError")},
		{name: "missing table", err: &types.ResourceNotFoundException{Message: aws.String("no table")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := clickstore.New(&failingAPI{err: tt.err}, clickstore.Config{Table: "t"})

			err := s.Apply(context.Background(), chunk("1", "2", map[clickstore.Key]clickstore.Counts{clickstore.DayKey("abc", now): c(1, 1, 0)}))

			require.Error(t, err)
			assert.Equal(t, tt.wantApplied, errors.Is(err, clickstore.ErrApplied))
			assert.Equal(t, tt.wantContended, errors.Is(err, clickstore.ErrContended))
			assert.Equal(t, tt.wantUnavailable, errors.Is(err, link.ErrUnavailable))
		})
	}
}

func TestCompareSequence(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{a: "1", b: "1", want: 0},
		{a: "9", b: "10", want: -1},
		{a: "10", b: "9", want: 1},
		{a: "0009", b: "10", want: -1},
		{a: "010", b: "10", want: 0},
		{a: "49568167373333333333333333333333333333333333333333333333", b: "49568167373333333334444444444444444444444444444444444444", want: -1},
		{a: strings.Repeat("9", 128), b: "1" + strings.Repeat("0", 56), want: 1},
		{a: "", b: "0", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, clickstore.CompareSequence(tt.a, tt.b))
		})
	}
}

func TestCountsAddClick(t *testing.T) {
	var got clickstore.Counts
	got.AddClick(false)
	got.AddClick(true)
	got.AddClick(false)
	got.Add(c(10, 4, 6))

	assert.Equal(t, c(13, 6, 7), got)
}
