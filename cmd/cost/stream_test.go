package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
)

func TestStreamHasTheShapeItPromises(t *testing.T) {
	sp := streamSpec{Records: 20_000, Codes: 5_000, Zipf: 1, BotShare: 0.2, Countries: 30, Referrers: 50, CodeLength: 7,
		Rate: 3858, Shards: 4, BatchSize: 1000, Window: 5 * time.Second, HitRatio: 0.9,
		Start: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Seed: 7}
	st, err := generate(sp)
	require.NoError(t, err)
	require.Equal(t, sp.Records, st.Clicks)
	assert.InDelta(t, 0.2, float64(st.Bots)/float64(st.Clicks), 0.02)

	countries, referrers, perCode := map[string]bool{}, map[string]bool{}, map[string]int{}
	records, bots := 0, 0
	for _, b := range st.Batches {
		require.NotEmpty(t, b.Records)
		require.LessOrEqual(t, len(b.Records), sp.BatchSize)
		shard, _, _ := strings.Cut(b.Records[0].EventID, ":")
		first := b.Records[0].Kinesis.ApproximateArrivalTimestamp.Time
		prev := ""
		for _, rec := range b.Records {
			id, seq, _ := strings.Cut(rec.EventID, ":")
			assert.Equal(t, shard, id, "a batch holds one shard's records")
			assert.Equal(t, seq, rec.Kinesis.SequenceNumber)
			if prev != "" {
				assert.Equal(t, 1, clickstore.CompareSequence(seq, prev), "sequence numbers grow within a batch")
			}
			prev = seq
			assert.Less(t, rec.Kinesis.ApproximateArrivalTimestamp.Time.Sub(first), sp.Window, "a batch spans at most the window")

			r, err := clicklog.Parse(rec.Kinesis.Data)
			require.NoError(t, err)
			c, ok := clicklog.Classify(&r)
			require.True(t, ok, "every record is a click: %s", rec.Kinesis.Data)
			records++
			if c.Bot {
				bots++
			}
			if c.Country != "" {
				countries[c.Country] = true
			}
			if c.Referrer != "" {
				referrers[c.Referrer] = true
			}
			perCode[c.Code]++
		}
	}
	assert.Equal(t, sp.Records, records)
	assert.Equal(t, st.Bots, bots, "the classifier agrees with the generator on bots")
	assert.Len(t, countries, sp.Countries)
	assert.Len(t, referrers, sp.Referrers)
	// Zipf with s=1 over 5,000 codes: the top link gets 1/H(5000), about
	// 11 % of the clicks, and the 10th a tenth of that.
	top := perCode[st.Codes[0]]
	assert.InDelta(t, 0.11, float64(top)/float64(records), 0.015)
	assert.InDelta(t, 0.1, float64(perCode[st.Codes[9]])/float64(top), 0.04)
}

func TestStreamRefusesNonsense(t *testing.T) {
	_, err := generate(streamSpec{Records: 10, Codes: 0, Shards: 1, BatchSize: 1, Rate: 1})
	assert.Error(t, err)
	_, err = generate(streamSpec{Records: 10, Codes: 1, Shards: 1, BatchSize: 1, Rate: 1, Countries: 31})
	assert.Error(t, err)
}
