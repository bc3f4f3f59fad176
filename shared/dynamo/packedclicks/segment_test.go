package packedclicks

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

func sampleSegment() segment {
	at := time.Date(2026, 11, 30, 12, 34, 0, 0, time.UTC)
	s := segment{}
	for _, it := range []clickstore.Item{
		{Key: clickstore.HourKey("Ab3dE5g", at), Counts: clickstore.Counts{Total: 3, Human: 2, Bot: 1}},
		{Key: clickstore.HourKey("Ab3dE5g", at.Add(time.Hour)), Counts: clickstore.Counts{Total: 1, Human: 1}},
		{Key: clickstore.DayKey("Ab3dE5g", at), Counts: clickstore.Counts{Total: 4, Human: 3, Bot: 1}},
		{Key: clickstore.CountryKey("Ab3dE5g", at, "DE"), Counts: clickstore.Counts{Total: 2, Human: 2}},
		{Key: clickstore.ReferrerKey("Ab3dE5g", at, "t.co"), Counts: clickstore.Counts{Total: 1, Human: 1}},
		// A day that is not its hours' sum, and counts whose total is
		// not human + bot: stores keep what they are given.
		{Key: clickstore.DayKey("spring-sale", at.Add(-48*time.Hour)), Counts: clickstore.Counts{Total: 7, Human: 1, Bot: 2}},
		{Key: clickstore.Key{Code: "spring-sale", Kind: clickstore.Kind(9), Start: at.Add(-48 * time.Hour).Truncate(24 * time.Hour).Unix(), Dim: "https://example.com/a"}, Counts: clickstore.Counts{Total: 300, Human: 200, Bot: 100}},
	} {
		s.addItem(it)
	}
	return s
}

func TestSegmentRoundTrip(t *testing.T) {
	s := sampleSegment()

	b, err := s.encode()
	require.NoError(t, err)
	got, err := decodeSegment(b, "")
	require.NoError(t, err)

	assert.Equal(t, s.items(), got.items())
	again, err := got.encode()
	require.NoError(t, err)
	assert.Equal(t, b, again, "the same segment encodes to the same bytes")
	one, err := decodeSegment(b, "spring-sale")
	require.NoError(t, err)
	for _, it := range one.items() {
		assert.Equal(t, "spring-sale", it.Code)
	}
	assert.Len(t, one.items(), 2)
}

func FuzzDecodeSegment(f *testing.F) {
	b, err := sampleSegment().encode()
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte{})
	f.Add(b[:len(b)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := decodeSegment(data, "")
		if err != nil {
			return
		}
		// Whatever decodes re-encodes and decodes to the same counts.
		again, err := s.encode()
		require.NoError(t, err)
		back, err := decodeSegment(again, "")
		require.NoError(t, err)
		assert.Equal(t, s.items(), back.items())
	})
}

// TestSegmentKeepsVisitorsSparseThenDense: observations survive encoding
// as a list while few and as dense registers past maxSparse, with one per
// register index, and the estimate is unchanged.
func TestSegmentKeepsVisitorsSparseThenDense(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 34, 0, 0, time.UTC)
	for _, n := range []int{1, 3, maxSparse, 5000} {
		s := segment{}
		var want visitors.Sketch
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for range n {
			o := visitors.FromHash(r.Uint64())
			want.Add(o)
			s.addItem(clickstore.Item{Key: clickstore.VisitorKey("Ab3dE5g", at, o.Dim()), Counts: clickstore.Counts{Total: 1, Human: 1}})
		}
		s.addItem(clickstore.Item{Key: clickstore.DayKey("Ab3dE5g", at), Counts: clickstore.Counts{Total: int64(n), Human: int64(n)}})
		data, err := s.encode()
		require.NoError(t, err)
		back, err := decodeSegment(data, "")
		require.NoError(t, err)
		var got visitors.Sketch
		seen := map[int]bool{}
		for k := range back[at.Truncate(24*time.Hour).Unix()]["Ab3dE5g"].dims {
			require.Equal(t, clickstore.Visitor, k.kind)
			o, ok := visitors.FromDim(k.dim)
			require.True(t, ok)
			assert.False(t, seen[o.Index()], "one observation per index")
			seen[o.Index()] = true
			got.Add(o)
		}
		assert.Equal(t, want, got, "n=%d", n)
		again, err := back.encode()
		require.NoError(t, err)
		assert.Equal(t, data, again, "n=%d: the same segment encodes to the same bytes", n)
	}
}

func TestSegmentCapsCampaigns(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 34, 0, 0, time.UTC)
	s := segment{}
	for i := range clickstore.MaxCampaigns + 3 {
		s.addItem(clickstore.Item{Key: clickstore.CampaignKey("Ab3dE5g", at, "s\x1fm\x1fc"+strconv.Itoa(i)), Counts: clickstore.Counts{Total: int64(1 + i), Human: int64(1 + i)}})
	}
	data, err := s.encode()
	require.NoError(t, err)
	back, err := decodeSegment(data, "")
	require.NoError(t, err)
	dims := back[at.Truncate(24*time.Hour).Unix()]["Ab3dE5g"].dims
	assert.Len(t, dims, clickstore.MaxCampaigns+1)
	// The three least clicked (1, 2 and 3 clicks) are the other campaign.
	assert.Equal(t, clickstore.Counts{Total: 6, Human: 6}, dims[dimKey{kind: clickstore.Campaign, dim: clickstore.OtherCampaign}])
}
