package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestRunMeasures runs the command's measurements on a small stream and
// checks the figures that follow from the schema: a link item and its two
// index entries, a transaction doubling the items it writes, half a unit
// per eventually consistent read.
func TestRunMeasures(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint)}
	sp := streamSpec{Records: 2_000, Codes: 2_000, Zipf: 1, BotShare: 0.2, Countries: 30, Referrers: 50, CodeLength: 7,
		Rate: 3858, Shards: 2, BatchSize: 1000, Window: 5 * time.Second, HitRatio: 0.9,
		Start: time.Date(2026, 11, 30, 11, 50, 0, 0, time.UTC), Seed: 3}
	r, err := run(context.Background(), emulator.AWSConfig(endpoint), &meter, sp, options{Designs: "both", Buckets: 16, CompactEvery: 1, Creates: 20, Queries: 5, Check: 100})
	require.NoError(t, err, "run, including the check that both designs counted the same")

	assert.Equal(t, 2_000, r.Stream.Clicks)
	assert.Equal(t, 100+50, r.Checked)
	// Up to seven items a click (hour, day, country, referrer, agent,
	// campaign, visitor), 2 WRU each in a transaction, fewer where a batch
	// holds a code twice: between 2 and 14 per click.
	require.NotNil(t, r.Clicks)
	assert.Greater(t, r.Clicks.WRUPerClick, 2.0)
	assert.Less(t, r.Clicks.WRUPerClick, 14.0)
	// The new design: a rollup of a few KB per batch, and a segment per
	// group (16) and compaction.
	require.NotNil(t, r.Packed)
	assert.Less(t, r.Packed.WRUPerClick, r.Clicks.WRUPerClick/10)
	assert.Positive(t, r.Packed.ByOperation["TransactWriteItems"], "the rollups")
	assert.Positive(t, r.Packed.ByOperation["PutItem"], "the compaction's writes")
	assert.Equal(t, r.Stream.Batches, r.Packed.Compactions, "one compaction a batch, the last one after the stream")
	// The link, its by-owner, by-owner-all and expiring-links entries (an
	// untagged link writes nothing to the tags table).
	assert.Equal(t, 4.0, r.Create.WRUPerCreate)
	assert.Equal(t, 7.0, r.Create.WRUPerKeyedCreate)
	assert.Equal(t, 1.0, r.Create.RRUPerKeyed)
	assert.Equal(t, 0.0, r.Create.WRUPerReplay, "a replay writes nothing")
	// Through the reservation table: the link's put as before, plus a
	// reservation put and its confirmation, each one unit.
	mr := r.Create.MultiRegion
	assert.Equal(t, 6.0, mr.WRUPerCreate)
	assert.Equal(t, 2.0, mr.ReservationWRU)
	assert.Greater(t, mr.ReservationWRUKeyed, mr.ReservationWRU, "a key adds its claim and its settling")
	assert.Equal(t, 0.0, mr.WRUPerReplay, "a replay writes nothing")
	assert.Equal(t, 2.0, mr.CallsPerCreate, "reserve, confirm")
	assert.Equal(t, 5.0, mr.CallsPerKeyedCreate, "the key's read, claim, reserve, confirm, settle")
	assert.Equal(t, 1.0, mr.CallsPerReplay, "the key's read")
	assert.Equal(t, 0.5, r.Redirect.RRUPerMiss)
	assert.Equal(t, 0.5, r.Redirect.RRUPerUnknown)
	// The /v1 authorizer: a key its cache does not hold is one eventually
	// consistent GetItem, the same key again nothing; a token is one read of
	// the members table, a Query of the by-user index that finds nothing
	// billed the minimum as DynamoDB bills it.
	require.NotNil(t, r.Authorizer)
	assert.Equal(t, authorizerFigures{KeyMiss: 0.5, KeyCached: 0, Token: 0.5, TokenNamed: 0.5, TokenNoMember: 0.5}, *r.Authorizer)
	assert.Greater(t, r.Stats.RRUPerDefaultTop, 0.0)
	assert.Greater(t, r.PackedStats.RRUPer90DayHourly, 0.0)
}

// TestRunSplitsTheNewDesignByLevel runs the new design alone over a
// simulated day and more, in few buckets and one group with a small merge
// threshold, so that every level is written: each write unit is billed to
// one kind, the chains are folded and deleted, and the counts are checked
// against a count in memory of the same stream. Its batches are about an
// hour of simulated time apart, so day one's last segments are written
// up to two hours past midnight; 30 hours leave its fold due within the
// stream.
func TestRunSplitsTheNewDesignByLevel(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint), Tag: levelOf}
	sp := streamSpec{Records: 6_000, Codes: 3_000, Zipf: 1, BotShare: 0.2, Countries: 30, Referrers: 50, CodeLength: 7,
		Rate: 3858, Shards: 2, BatchSize: 200, Window: 5 * time.Second, HitRatio: 0.9, Span: 30 * time.Hour,
		Start: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Seed: 5}
	r, err := run(context.Background(), emulator.AWSConfig(endpoint), &meter, sp,
		options{Designs: "new", Buckets: 4, Groups: 1, MergeBytes: 4096, CompactEvery: 2, Creates: 2, Queries: 2, Check: 100})
	require.NoError(t, err, "run, including the check against a count in memory")

	assert.Nil(t, r.Clicks, "today's design not measured")
	assert.Equal(t, "a count in memory", r.CheckedAgainst)
	assert.Equal(t, 100+50, r.Checked)
	p := r.Packed
	require.NotNil(t, p)
	assert.Equal(t, 1, r.Groups)
	var tagged float64
	for _, k := range writeKinds {
		assert.Positive(t, p.ByLevel[k.key], k.name)
		tagged += p.ByLevel[k.key]
	}
	assert.InDelta(t, p.WRU, tagged, 1e-6, "every write unit is billed to one kind")
	assert.Positive(t, p.Days.ChainItems)
	assert.Equal(t, 4, p.Days.Folded, "day one folded, one item a bucket")
	assert.Positive(t, p.Days.Deleted, "the folded chains deleted")
	assert.Positive(t, p.Days.ChainBytes)
	require.NotEmpty(t, p.Hours)
	var rollups float64
	for _, h := range p.Hours {
		rollups += h.ByLevel["rollup TransactWriteItems"]
	}
	assert.InDelta(t, p.ByLevel["rollup TransactWriteItems"], rollups, 1e-6, "every rollup is billed to the hour of its batch")
}

// TestRunMeasuresAtTwoVolumes measures the new design's clicks at the
// run's volume per group and at ten times it (the same clicks over a
// tenth of the span), each on its own table, and prints them side by side.
// The run's 30 hours pass midnight, so day one is folded; the 10x run's 3
// hours do not, which the columns without the fold compare like for like.
func TestRunMeasuresAtTwoVolumes(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint), Tag: levelOf}
	sp := streamSpec{Records: 4_000, Codes: 2_000, Zipf: 1, BotShare: 0.2, Countries: 30, Referrers: 50, CodeLength: 7,
		Rate: 3858, Shards: 2, BatchSize: 200, Window: 5 * time.Second, HitRatio: 0.9, Span: 30 * time.Hour,
		Start: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Seed: 7}
	r, err := run(context.Background(), emulator.AWSConfig(endpoint), &meter, sp,
		options{Designs: "new", Buckets: 4, Groups: 1, MergeBytes: 4096, CompactEvery: 2, Creates: 2, Queries: 2, Check: 50, Volumes: []float64{10}})
	require.NoError(t, err)
	require.Len(t, r.Volumes, 2)
	one, ten := r.Volumes[0], r.Volumes[1]

	tests := []struct {
		name      string
		got, want any
	}{
		{"the run's volume", [2]any{one.Times, one.Span}, [2]any{1.0, 30 * time.Hour}},
		{"ten times it", [2]any{ten.Times, ten.Span}, [2]any{10.0, 3 * time.Hour}},
		{"the same clicks", ten.Clicks, one.Clicks},
		{"the run's figures", [2]float64{one.WRUPerClick, one.RRUPerClick}, [2]float64{r.Packed.WRUPerClick, r.Packed.RRUPerClick}},
		{"day one folded in the run only", [2]int{one.Folded, ten.Folded}, [2]int{4, 0}},
		{"both volumes' counts checked", [2]int{one.Checked, ten.Checked}, [2]int{r.Checked, r.Checked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	assert.Less(t, one.WRUPerClickWithoutFold, one.WRUPerClick, "the fold's writes left out")
	assert.InDelta(t, ten.WRUPerClick, ten.WRUPerClickWithoutFold, 1e-9, "no fold at 10x")
	assert.Positive(t, ten.WRUPerClick)
	require.NotNil(t, ten.Stats)
	assert.Positive(t, ten.Stats.RRUPer90DayHourly)

	var out strings.Builder
	r.print(&out)
	assert.Contains(t, out.String(), "new design's clicks by volume per group")
	assert.Regexp(t, `WRU per click\s+\d\.\d{4}\s+\d\.\d{4}\n`, out.String(), "both volumes in one row")
	assert.Regexp(t, `WRU per click, segment\s+\d\.\d{4}\s+\d\.\d{4}\n`, out.String(), "the levels at both volumes")
	assert.Regexp(t, `counts equal a count in memory\s+100\s+100\n`, out.String())
}
