package packedclicks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clickstore"
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
