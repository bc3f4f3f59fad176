package visitors_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/visitors"
)

func TestEstimateWithinTheErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 10, 100, 1000, 10_000, 200_000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var s visitors.Sketch
			for range n {
				s.Add(visitors.FromHash(r.Uint64()))
			}
			got := s.Estimate()
			// Three standard errors, and at least one visitor of slack.
			assert.InDelta(t, float64(n), got, math.Max(3*visitors.StandardError*float64(n), 1), "estimate %.1f of %d", got, n)
		})
	}
	assert.InDelta(t, 0.0325, visitors.StandardError, 0.0005)
}

func TestSameVisitorCountsOnce(t *testing.T) {
	salt := visitors.NewSalt()
	var s visitors.Sketch
	for range 50 {
		s.Add(visitors.Observe(salt, "192.0.2.1", "Mozilla/5.0"))
	}
	assert.InDelta(t, 1, s.Estimate(), 0.01)
	assert.Equal(t, visitors.Observe(salt, "192.0.2.1", "ua"), visitors.Observe(salt, "192.0.2.1", "ua"))
	// Another day's salt makes another observation (almost surely).
	other := visitors.NewSalt()
	same := 0
	for i := range 100 {
		ip := "192.0.2." + strconv.Itoa(i)
		if visitors.Observe(salt, ip, "ua") == visitors.Observe(other, ip, "ua") {
			same++
		}
	}
	assert.Less(t, same, 5)
}

func TestRegisterEncodings(t *testing.T) {
	r := visitors.FromHash(0xFFC0_0000_0000_0000) // the last index, then all zeros
	assert.Equal(t, visitors.Registers-1, r.Index())
	assert.Equal(t, uint8(visitors.MaxRank), r.Rank())
	back, ok := visitors.FromDim(r.Dim())
	require.True(t, ok)
	assert.Equal(t, r, back)
	for _, bad := range []string{"x", "00001", "ABCD", "zz01"} {
		_, ok = visitors.FromDim(bad)
		assert.False(t, ok, bad)
	}
	_, ok = visitors.FromDim("0000")
	assert.False(t, ok, "rank 0 is no observation")

	var s visitors.Sketch
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		s.Add(visitors.FromHash(rnd.Uint64()))
	}
	b := s.AppendDense(nil)
	require.Len(t, b, visitors.DenseBytes)
	var d visitors.Sketch
	require.True(t, d.ReadDense(b))
	assert.Equal(t, s, d)
	var sp visitors.Sketch
	for _, o := range s.Observations() {
		sp.Add(o)
	}
	assert.Equal(t, s, sp, "the sparse form holds the same registers")
}

func TestSaltsLiveTwoDays(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	m := &visitors.Memory{Now: func() time.Time { return now }}
	c := &visitors.Cache{Salts: m, Now: m.Now}
	today := now.Truncate(24 * time.Hour).Unix()
	a, ok, err := c.Salt(context.Background(), today)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, a, visitors.SaltBytes)
	b, _, _ := m.Salt(context.Background(), today)
	assert.Equal(t, a, b, "one salt per day")
	y, ok, _ := c.Salt(context.Background(), today-86400)
	assert.True(t, ok, "yesterday's salt still lives")
	assert.NotEqual(t, a, y)
	_, ok, _ = c.Salt(context.Background(), today-2*86400)
	assert.False(t, ok, "the day before yesterday's is gone")
}
