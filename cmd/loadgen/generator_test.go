package main

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMeasureInterleaved: the two sides take turns, ABBA, each pooled
// into one result with its own requests, time and sorted latencies.
func TestMeasureInterleaved(t *testing.T) {
	var mu sync.Mutex
	var order []string
	side := func(name string, wait time.Duration) op {
		return func(ctx context.Context, i int) (bool, error) {
			mu.Lock()
			if len(order) == 0 || order[len(order)-1] != name {
				order = append(order, name)
			}
			mu.Unlock()
			time.Sleep(wait)
			return true, nil
		}
	}
	l := limits{concurrency: 2, duration: 400 * time.Millisecond}
	a, b := measureInterleaved(context.Background(), l, 4, "a", 0, side("a", time.Millisecond), "b", 0, side("b", 2*time.Millisecond))

	// a b, b a, a b, b a: with each run of one side counted once.
	assert.Equal(t, []string{"a", "b", "a", "b", "a"}, order)
	for _, r := range []result{a, b} {
		assert.Positive(t, r.requests)
		assert.Len(t, r.latencies, r.requests)
		assert.True(t, slices.IsSorted(r.latencies))
		assert.InDelta(t, 400*time.Millisecond, r.elapsed, float64(100*time.Millisecond))
		assert.Zero(t, r.errors+r.unexpected)
	}
	assert.Equal(t, "a", a.name)
	assert.Greater(t, a.rate(), b.rate(), "the faster side answers more")

	// maxRequests bounds each side in all.
	l.maxRequests = 10
	a, b = measureInterleaved(context.Background(), l, 4, "a", 0, side("a", time.Millisecond), "b", 0, side("b", time.Millisecond))
	assert.Equal(t, 10, a.requests)
	assert.Equal(t, 10, b.requests)
}
