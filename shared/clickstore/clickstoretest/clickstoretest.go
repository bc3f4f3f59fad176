// Package clickstoretest is the one behaviour suite every clickstore.Store
// must pass: the in-memory store in unit tests and the DynamoDB adapter
// against DynamoDB Local. A behaviour the suite does not pin down is one
// the two may silently disagree on, so new store methods come with suite
// cases.
package clickstoretest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// Config is what a test asks of the store it gets.
type Config struct {
	// MaxBreakdownItems bounds the items one Breakdown reads;
	// clickstore.DefaultMaxBreakdownItems when zero.
	MaxBreakdownItems int
}

// Factory returns a fresh, empty store configured as cfg says.
type Factory func(t *testing.T, cfg Config) clickstore.Store

// Run runs the suite against the stores newStore makes.
func Run(t *testing.T, newStore Factory) {
	tests := []struct {
		name string
		run  func(*testing.T, Factory)
	}{
		{name: "apply is exactly once", run: applyIsExactlyOnce},
		{name: "a batch redelivered after a half-failed apply counts once", run: redeliveryAfterHalfFailure},
		{name: "checkpoints are per shard", run: checkpointsArePerShard},
		{name: "apply takes a full transaction", run: applyTakesAFullTransaction},
		{name: "refused chunks change nothing", run: refusedChunksChangeNothing},
		{name: "series and breakdown ranges", run: seriesAndBreakdownRanges},
		{name: "breakdown stops at max items", run: breakdownStopsAtMaxItems},
		{name: "kinds are checked", run: kindsAreChecked},
		{name: "agents and campaigns break down", run: agentsAndCampaigns},
		{name: "campaigns are capped per code and day", run: campaignsAreCapped},
		{name: "visitors are a set of registers", run: visitorsAreASet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newStore) })
	}
}

var now = time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC)

// Shard is the shard the suite's chunks come from.
const Shard = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks/shardId-000000000000"

// shard and chunk keep the spelling the tests had before they moved here.
const shard = Shard

var chunk = NewChunk

// NewChunk is a chunk of Shard's records first to last with counts.
func NewChunk(first, last string, counts map[clickstore.Key]clickstore.Counts) clickstore.Chunk {
	c := clickstore.Chunk{Shard: Shard, First: first, Last: last}
	for k, n := range counts {
		c.Items = append(c.Items, clickstore.Item{Key: k, Counts: n})
	}
	return c
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

// redeliveryAfterHalfFailure: a consumer applied the first chunk of a
// batch and failed before the second; Lambda redelivers the batch, cut
// differently. The overlapping chunk is refused whole, the checkpoint
// says where to resume, and the rest applies once.
func redeliveryAfterHalfFailure(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	ctx := context.Background()
	day, hour := clickstore.DayKey("Ab3dE5g", now), clickstore.HourKey("Ab3dE5g", now)
	require.NoError(t, s.Apply(ctx, chunk("10", "20", map[clickstore.Key]clickstore.Counts{day: c(2, 1, 1), hour: c(2, 1, 1)})))

	err := s.Apply(ctx, chunk("10", "30", map[clickstore.Key]clickstore.Counts{day: c(5, 4, 1), hour: c(5, 4, 1)}))

	require.ErrorIs(t, err, clickstore.ErrApplied)
	cp, err := s.Checkpoint(ctx, shard)
	require.NoError(t, err)
	require.Equal(t, "20", cp)
	require.NoError(t, s.Apply(ctx, chunk("21", "30", map[clickstore.Key]clickstore.Counts{day: c(3, 3, 0), hour: c(3, 3, 0)})))
	for _, kind := range []clickstore.Kind{clickstore.Day, clickstore.Hour} {
		points, err := s.Series(ctx, "Ab3dE5g", kind, now.Add(-24*time.Hour), now.Add(24*time.Hour))
		require.NoError(t, err)
		require.Len(t, points, 1, kind)
		assert.Equal(t, c(5, 4, 1), points[0].Counts, kind)
	}
	cp, err = s.Checkpoint(ctx, shard)
	require.NoError(t, err)
	assert.Equal(t, "30", cp)
}

// kindsAreChecked: Series serves hours and days, Breakdown countries and
// referrers.
func kindsAreChecked(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})

	_, err := s.Series(context.Background(), "abc", clickstore.Country, now, now.Add(time.Hour))
	assert.Error(t, err)
	_, _, err = s.Breakdown(context.Background(), "abc", clickstore.Day, now, now.Add(time.Hour))
	assert.Error(t, err)
}

func applyIsExactlyOnce(t *testing.T, newStore Factory) {
	at := now
	key := clickstore.DayKey("Ab3dE5g", at)
	// of is a chunk of records first..last counting n on key alone.
	of := func(first, last string, n clickstore.Counts) clickstore.Chunk {
		return chunk(first, last, map[clickstore.Key]clickstore.Counts{key: n})
	}
	tests := []struct {
		name    string
		chunks  []clickstore.Chunk
		applied []bool // whether each chunk applies
		want    clickstore.Counts
		wantCP  string
	}{
		{
			name:    "one chunk",
			chunks:  []clickstore.Chunk{of("10", "20", c(2, 1, 1))},
			applied: []bool{true}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "the same chunk twice",
			chunks: []clickstore.Chunk{
				of("10", "20", c(2, 1, 1)),
				of("10", "20", c(2, 1, 1)),
			},
			applied: []bool{true, false}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "a chunk overlapping the checkpoint",
			chunks: []clickstore.Chunk{
				of("10", "20", c(2, 1, 1)),
				of("20", "30", c(5, 5, 0)),
			},
			applied: []bool{true, false}, want: c(2, 1, 1), wantCP: "20",
		},
		{
			name: "an older chunk after a newer one",
			chunks: []clickstore.Chunk{
				of("21", "30", c(1, 1, 0)),
				of("10", "20", c(2, 1, 1)),
			},
			applied: []bool{true, false}, want: c(1, 1, 0), wantCP: "30",
		},
		{
			name: "consecutive chunks",
			chunks: []clickstore.Chunk{
				of("10", "20", c(2, 1, 1)),
				of("21", "30", c(3, 3, 0)),
			},
			applied: []bool{true, true}, want: c(5, 4, 1), wantCP: "30",
		},
		{
			// As strings "9" > "10"; as numbers it is the other way round.
			name: "numeric order, not string order",
			chunks: []clickstore.Chunk{
				of("9", "9", c(1, 1, 0)),
				of("10", "10", c(1, 0, 1)),
				of("9", "9", c(1, 1, 0)),
			},
			applied: []bool{true, true, false}, want: c(2, 1, 1), wantCP: "10",
		},
		{
			name: "real 56-digit sequence numbers",
			chunks: []clickstore.Chunk{
				of("49568167373333333333333333333333333333333333333333333333", "49568167373333333334444444444444444444444444444444444444", c(1, 1, 0)),
				of("49568167373333333334444444444444444444444444444444444445", "49568167373333333334444444444444444444444444444444444445", c(1, 1, 0)),
				of("49568167373333333334444444444444444444444444444444444444", "49568167373333333334444444444444444444444444444444444445", c(1, 1, 0)),
			},
			applied: []bool{true, true, false}, want: c(2, 2, 0), wantCP: "49568167373333333334444444444444444444444444444444444445",
		},
		{
			name: "128 digits",
			chunks: []clickstore.Chunk{
				of(strings.Repeat("9", 127), strings.Repeat("9", 128), c(1, 1, 0)),
				of(strings.Repeat("9", 128), strings.Repeat("9", 128), c(1, 1, 0)),
			},
			applied: []bool{true, false}, want: c(1, 1, 0), wantCP: strings.Repeat("9", 128),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, Config{})
			for i, ch := range tt.chunks {
				err := s.Apply(context.Background(), ch)
				if tt.applied[i] {
					require.NoError(t, err, "chunk %d", i)
				} else {
					require.ErrorIs(t, err, clickstore.ErrApplied, "chunk %d", i)
				}
			}

			points, err := s.Series(context.Background(), "Ab3dE5g", clickstore.Day, at.Add(-24*time.Hour), at.Add(24*time.Hour))
			require.NoError(t, err)
			require.Len(t, points, 1)
			assert.Equal(t, tt.want, points[0].Counts)
			cp, err := s.Checkpoint(context.Background(), shard)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCP, cp)
		})
	}
}

func checkpointsArePerShard(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	key := clickstore.DayKey("Ab3dE5g", now)
	other := strings.Replace(shard, "shardId-000000000000", "shardId-000000000001", 1)

	require.NoError(t, s.Apply(context.Background(), chunk("50", "60", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)})))
	ch := chunk("10", "20", map[clickstore.Key]clickstore.Counts{key: c(1, 1, 0)})
	ch.Shard = other
	require.NoError(t, s.Apply(context.Background(), ch))

	got, err := s.Checkpoint(context.Background(), other)
	require.NoError(t, err)
	assert.Equal(t, "20", got)
	got, err = s.Checkpoint(context.Background(), "never-seen")
	require.NoError(t, err)
	assert.Empty(t, got)
}

func applyTakesAFullTransaction(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	counts := map[clickstore.Key]clickstore.Counts{}
	for i := range clickstore.MaxItems {
		counts[clickstore.DayKey(fmt.Sprintf("code%03d", i), now)] = c(1, 1, 0)
	}

	require.NoError(t, s.Apply(context.Background(), chunk("1", "2", counts)))

	points, err := s.Series(context.Background(), "code098", clickstore.Day, now.Add(-24*time.Hour), now)
	require.NoError(t, err)
	require.Len(t, points, 1)
	assert.Equal(t, c(1, 1, 0), points[0].Counts)
}

// Malformed is a chunk every store must refuse before it writes anything.
type Malformed struct {
	Name  string
	Chunk clickstore.Chunk
}

// MalformedChunks are the chunks clickstore.Chunk.Validate refuses: for
// code "Ab3dE5g" on the suite's shard, each wrong in one way.
func MalformedChunks() []Malformed { return MalformedChunksFor(clickstore.MaxItems) }

// MalformedChunksFor are the chunks a store taking maxItems counter items
// a chunk (clickstore.MaxChunkItems) must refuse.
func MalformedChunksFor(maxItems int) []Malformed {
	one := map[clickstore.Key]clickstore.Counts{clickstore.DayKey("Ab3dE5g", now): c(1, 1, 0)}
	tooMany := map[clickstore.Key]clickstore.Counts{}
	for i := range maxItems + 1 {
		tooMany[clickstore.DayKey(fmt.Sprintf("code%03d", i), now)] = c(1, 1, 0)
	}
	return []Malformed{
		{Name: "no counts", Chunk: chunk("1", "2", nil)},
		{Name: "over the store's most items", Chunk: chunk("1", "2", tooMany)},
		{Name: "empty first", Chunk: chunk("", "2", one)},
		{Name: "non-decimal", Chunk: chunk("1", "2x", one)},
		{Name: "negative", Chunk: chunk("-1", "2", one)},
		{Name: "129 digits", Chunk: chunk("1", strings.Repeat("1", 129), one)},
		{Name: "first after last", Chunk: chunk("3", "2", one)},
		{Name: "a key twice", Chunk: clickstore.Chunk{Shard: shard, First: "1", Last: "2", Items: []clickstore.Item{
			{Key: clickstore.DayKey("Ab3dE5g", now), Counts: c(1, 1, 0)},
			{Key: clickstore.HourKey("Ab3dE5g", now), Counts: c(1, 1, 0)},
			{Key: clickstore.DayKey("Ab3dE5g", now.Add(time.Hour)), Counts: c(1, 0, 1)},
		}}},
	}
}

func refusedChunksChangeNothing(t *testing.T, newStore Factory) {
	maxItems := clickstore.MaxChunkItems(newStore(t, Config{}))
	for _, tt := range MalformedChunksFor(maxItems) {
		t.Run(tt.Name, func(t *testing.T) {
			s := newStore(t, Config{})

			err := s.Apply(context.Background(), tt.Chunk)

			require.Error(t, err)
			assert.NotErrorIs(t, err, clickstore.ErrApplied)
			cp, err := s.Checkpoint(context.Background(), shard)
			require.NoError(t, err)
			assert.Empty(t, cp, "the checkpoint did not move")
			points, err := s.Series(context.Background(), "Ab3dE5g", clickstore.Day, now.Add(-24*time.Hour), now.Add(24*time.Hour))
			require.NoError(t, err)
			assert.Empty(t, points, "no counter moved")
			valid := chunk("1", "2", map[clickstore.Key]clickstore.Counts{clickstore.DayKey("Ab3dE5g", now): c(1, 1, 0)})
			require.NoError(t, s.Apply(context.Background(), valid), "the checkpoint still takes the records")
		})
	}
}

func seriesAndBreakdownRanges(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 30, 0, 0, time.UTC) }
	dec1 := time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC)
	counts := map[clickstore.Key]clickstore.Counts{
		clickstore.HourKey("Ab3dE5g", day(29, 23)):                   c(1, 1, 0),
		clickstore.HourKey("Ab3dE5g", day(30, 0)):                    c(2, 1, 1),
		clickstore.HourKey("Ab3dE5g", day(30, 5)):                    c(4, 4, 0),
		clickstore.HourKey("Ab3dE5gX", day(30, 5)):                   c(8, 8, 0), // another code sharing a prefix
		clickstore.DayKey("Ab3dE5g", day(29, 0)):                     c(1, 1, 0),
		clickstore.DayKey("Ab3dE5g", day(30, 0)):                     c(6, 5, 1),
		clickstore.DayKey("Ab3dE5g", dec1):                           c(9, 9, 0),
		clickstore.CountryKey("Ab3dE5g", day(29, 0), "DE"):           c(1, 1, 0),
		clickstore.CountryKey("Ab3dE5g", day(30, 0), "DE"):           c(2, 1, 1),
		clickstore.CountryKey("Ab3dE5g", day(30, 0), "US"):           c(4, 4, 0),
		clickstore.ReferrerKey("Ab3dE5g", day(30, 0), "t.co"):        c(3, 3, 0),
		clickstore.ReferrerKey("Ab3dE5g", dec1, "t.co"):              c(5, 5, 0),
		clickstore.DestinationKey("Ab3dE5g", day(30, 0), "rule-0"):   c(4, 3, 1),
		clickstore.DestinationKey("Ab3dE5g", day(30, 0), "target-1"): c(2, 2, 0),
		clickstore.DestinationKey("Ab3dE5g", dec1, "rule-0"):         c(1, 1, 0),
	}
	require.NoError(t, s.Apply(context.Background(), chunk("1", "1", counts)))
	ctx := context.Background()
	midnight := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }

	t.Run("hours of one day", func(t *testing.T) {
		got, err := s.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(30), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{
			{Start: midnight(30), Counts: c(2, 1, 1)},
			{Start: midnight(30).Add(5 * time.Hour), Counts: c(4, 4, 0)},
		}, got)
	})
	t.Run("to is exclusive", func(t *testing.T) {
		got, err := s.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{{Start: midnight(29).Add(23 * time.Hour), Counts: c(1, 1, 0)}}, got)
	})
	t.Run("a bucket starting before from is out", func(t *testing.T) {
		got, err := s.Series(ctx, "Ab3dE5g", clickstore.Hour, midnight(30).Add(time.Second), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{{Start: midnight(30).Add(5 * time.Hour), Counts: c(4, 4, 0)}}, got)
	})
	t.Run("days across a month", func(t *testing.T) {
		got, err := s.Series(ctx, "Ab3dE5g", clickstore.Day, midnight(29), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		assert.Equal(t, []clickstore.Point{
			{Start: midnight(29), Counts: c(1, 1, 0)},
			{Start: midnight(30), Counts: c(6, 5, 1)},
			{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Counts: c(9, 9, 0)},
		}, got)
	})
	t.Run("empty range", func(t *testing.T) {
		got, err := s.Series(ctx, "Ab3dE5g", clickstore.Day, midnight(30), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("unknown code", func(t *testing.T) {
		got, err := s.Series(ctx, "nothing", clickstore.Day, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("countries of one day", func(t *testing.T) {
		got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Country, midnight(30), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"DE": c(2, 1, 1), "US": c(4, 4, 0)}, got)
	})
	t.Run("countries summed over days", func(t *testing.T) {
		got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Country, midnight(29), midnight(30).Add(24*time.Hour))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"DE": c(3, 2, 1), "US": c(4, 4, 0)}, got)
	})
	t.Run("referrers across a month", func(t *testing.T) {
		got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Referrer, midnight(30), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"t.co": c(8, 8, 0)}, got)
	})
	t.Run("destinations summed over days", func(t *testing.T) {
		got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Destination, midnight(29), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
		require.NoError(t, err)
		assert.True(t, complete)
		assert.Equal(t, map[string]clickstore.Counts{"rule-0": c(5, 4, 1), "target-1": c(2, 2, 0)}, got)
	})
	t.Run("referrers exclude the day at to", func(t *testing.T) {
		got, _, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Referrer, midnight(29), midnight(30))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

func breakdownStopsAtMaxItems(t *testing.T, newStore Factory) {
	s := newStore(t, Config{MaxBreakdownItems: 3})
	counts := map[clickstore.Key]clickstore.Counts{}
	for _, cc := range []string{"AT", "BE", "CH", "DE", "ES"} {
		counts[clickstore.CountryKey("Ab3dE5g", now, cc)] = c(1, 1, 0)
	}
	require.NoError(t, s.Apply(context.Background(), chunk("1", "1", counts)))

	got, complete, err := s.Breakdown(context.Background(), "Ab3dE5g", clickstore.Country, now.Add(-24*time.Hour), now.Add(24*time.Hour))

	require.NoError(t, err)
	assert.False(t, complete)
	assert.Len(t, got, 3)
}

func agentsAndCampaigns(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	ctx := context.Background()
	desk, mob := clickstore.AgentDim("desktop", "Windows", "Chrome"), clickstore.AgentDim("mobile", "iOS", "Safari")
	camp := "news\x1femail\x1fspring"
	require.NoError(t, s.Apply(ctx, chunk("1", "2", map[clickstore.Key]clickstore.Counts{
		clickstore.AgentKey("Ab3dE5g", now, desk):                    c(3, 2, 1),
		clickstore.AgentKey("Ab3dE5g", now, mob):                     c(1, 1, 0),
		clickstore.AgentKey("Ab3dE5g", now.Add(-24*time.Hour), desk): c(5, 5, 0),
		clickstore.CampaignKey("Ab3dE5g", now, camp):                 c(2, 2, 0),
	})))

	got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Agent, now.Add(-48*time.Hour), now.Add(24*time.Hour))
	require.NoError(t, err)
	assert.True(t, complete)
	assert.Equal(t, map[string]clickstore.Counts{desk: c(8, 7, 1), mob: c(1, 1, 0)}, got)
	got, _, err = s.Breakdown(ctx, "Ab3dE5g", clickstore.Campaign, now.Add(-48*time.Hour), now.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, map[string]clickstore.Counts{camp: c(2, 2, 0)}, got)
}

// campaignsAreCapped: past MaxCampaigns a day's further campaigns count
// as OtherCampaign, with every click still counted. Which campaigns stay
// named may differ between stores (the first ones, or the most clicked);
// the bound and the total may not.
func campaignsAreCapped(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	ctx := context.Background()
	seq := 0
	for i := range clickstore.MaxCampaigns + 5 {
		seq++
		n := strconv.Itoa(seq)
		require.NoError(t, s.Apply(ctx, chunk(n, n, map[clickstore.Key]clickstore.Counts{
			clickstore.CampaignKey("Ab3dE5g", now, "src\x1fmed\x1fc"+strconv.Itoa(i)): c(1, 1, 0),
		})))
	}
	got, _, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Campaign, now.Add(-24*time.Hour), now.Add(24*time.Hour))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(got), clickstore.MaxCampaigns+1)
	assert.Contains(t, got, clickstore.OtherCampaign)
	var sum clickstore.Counts
	for _, n := range got {
		sum.Add(n)
	}
	assert.Equal(t, c(clickstore.MaxCampaigns+5, clickstore.MaxCampaigns+5, 0), sum)
}

// visitorsAreASet: a register observation applied twice is there once;
// an estimate over the observations is all a reader takes from them.
func visitorsAreASet(t *testing.T, newStore Factory) {
	s := newStore(t, Config{})
	ctx := context.Background()
	salt := visitors.NewSalt()
	want := map[string]bool{}
	seq := 0
	for round := range 2 { // the second round sees the same visitors again
		for part := range 4 { // a chunk holds at most 99 items
			counts := map[clickstore.Key]clickstore.Counts{}
			for i := part * 50; i < part*50+50; i++ {
				r := visitors.Observe(salt, "192.0.2."+strconv.Itoa(i), "ua")
				counts[clickstore.VisitorKey("Ab3dE5g", now, r.Dim())] = c(1, 1, 0)
				want[r.Dim()] = true
			}
			seq++
			n := strconv.Itoa(seq)
			require.NoError(t, s.Apply(ctx, chunk(n, n, counts)), "round %d", round)
		}
	}
	got, complete, err := s.Breakdown(ctx, "Ab3dE5g", clickstore.Visitor, now.Add(-24*time.Hour), now.Add(24*time.Hour))
	require.NoError(t, err)
	require.True(t, complete)
	var sk, all visitors.Sketch
	for d := range got {
		r, ok := visitors.FromDim(d)
		require.True(t, ok, "%q", d)
		sk.Add(r)
	}
	for d := range want {
		r, _ := visitors.FromDim(d)
		all.Add(r)
	}
	assert.Equal(t, all.Estimate(), sk.Estimate())
	assert.InDelta(t, 200, sk.Estimate(), 3*visitors.StandardError*200+1)
}
