package edgecache_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgecache"
)

// invalidator is what consumers declare; both implementations satisfy it.
type invalidator interface {
	Invalidate(ctx context.Context, paths ...string) error
}

var (
	_ invalidator = (*edgecache.Recorder)(nil)
	_ invalidator = (*edgecache.CloudFront)(nil)
)

func TestRecorderRecordsPathsWithTheirTime(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	now := start
	r := edgecache.NewRecorder(func() time.Time { return now })

	require.NoError(t, r.Invalidate(context.Background(), "/aB3dE5f"))
	now = now.Add(time.Second)
	require.NoError(t, r.Invalidate(context.Background(), "summer-sale", "/Summer-Sale", "/summer-sale"))

	assert.Equal(t, []edgecache.Invalidation{
		{At: start, Paths: []string{"/aB3dE5f"}},
		{At: start.Add(time.Second), Paths: []string{"/summer-sale", "/Summer-Sale"}},
	}, r.Invalidations())
	assert.Equal(t, []string{"/aB3dE5f", "/summer-sale", "/Summer-Sale"}, r.Paths())
}

func TestRecorderTellsSubscribersBeforeReturning(t *testing.T) {
	r := edgecache.NewRecorder(nil)
	var first, second [][]string
	r.OnInvalidate(func(paths []string) { first = append(first, paths) })
	r.OnInvalidate(func(paths []string) {
		second = append(second, paths)
		paths[0] = "/mutated" // a subscriber's copy is its own
	})

	require.NoError(t, r.Invalidate(context.Background(), "/a", "/b"))
	require.NoError(t, r.Invalidate(context.Background(), "/c"))

	assert.Equal(t, [][]string{{"/a", "/b"}, {"/c"}}, first)
	assert.Equal(t, [][]string{{"/mutated", "/b"}, {"/mutated"}}, second)
	assert.Equal(t, []string{"/a", "/b", "/c"}, r.Paths(), "the record is not changed by subscribers")
}

func TestRecorderSubscribersAreCalledOneAtATime(t *testing.T) {
	r := edgecache.NewRecorder(nil)
	var inside, seen int // unguarded on purpose: the race detector checks the promise
	r.OnInvalidate(func([]string) {
		inside++
		if inside != 1 {
			t.Error("subscriber called concurrently")
		}
		seen++
		inside--
	})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { assert.NoError(t, r.Invalidate(context.Background(), "/x")) })
	}
	wg.Wait()
	assert.Equal(t, 50, seen)
	assert.Len(t, r.Invalidations(), 50)
}

func TestRecorderRefusesWhatCloudFrontWould(t *testing.T) {
	r := edgecache.NewRecorder(nil)
	called := false
	r.OnInvalidate(func([]string) { called = true })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	assert.ErrorIs(t, r.Invalidate(ctx, "/a"), context.Canceled)
	assert.Error(t, r.Invalidate(context.Background(), "/a*b"))
	assert.NoError(t, r.Invalidate(context.Background()))

	assert.Empty(t, r.Invalidations())
	assert.False(t, called)
}
