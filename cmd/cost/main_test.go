package main

import (
	"context"
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
	// Up to four items a click, 2 WRU each in a transaction, fewer where a
	// batch holds a code twice: between 2 and 8 per click.
	require.NotNil(t, r.Clicks)
	assert.Greater(t, r.Clicks.WRUPerClick, 2.0)
	assert.Less(t, r.Clicks.WRUPerClick, 8.0)
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
