package localedge

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
)

// TestVersionKeysChangeACachedRedirect: with the cache keyed on link
// versions, a redirect the edge holds for a day changes once a new
// version put into the key value store has propagated, with no
// invalidation, while before that the edge keeps serving what it holds.
// The origin sees the path as the viewer sent it, and a viewer's own
// version header never splits or busts the cache.
func TestVersionKeysChangeACachedRedirect(t *testing.T) {
	const delay = 5 * time.Second
	d := edgespec.Distribution(edgespec.Options{VersionKeys: true})
	var f *fixture
	store := NewKeyValueStore(delay, func() time.Time { return f.clock.Now() }) // the edge's clock
	f = newFixture(t, Options{Distribution: &d, KeyValueStore: store})
	writer := &edgeversion.Writer{API: store, ARN: "arn:aws:cloudfront::123456789012:key-value-store/local", Now: f.clock.Now}

	day := answer{status: 302, cc: "public, max-age=0, s-maxage=86400", target: "https://old.example/"}
	f.origin.set("/abc1234", day)

	first := f.do("GET", "/abc1234")
	assert.Equal(t, "Miss from cloudfront", first.Header.Get("X-Cache"))
	assert.Equal(t, "/abc1234", f.origin.last().URL.Path, "the origin sees the code path")
	assert.Equal(t, edgespec.NoVersion, f.origin.last().Header.Get(edgespec.VersionHeader))
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/abc1234").Header.Get("X-Cache"))
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/abc1234", edgespec.VersionHeader, "42").Header.Get("X-Cache"),
		"the function overwrites a viewer's version header")

	day.target = "https://new.example/"
	f.origin.set("/abc1234", day)
	require.NoError(t, writer.Invalidate(context.Background(), "/abc1234"))

	f.clock.Add(delay - time.Millisecond)
	stale := f.do("GET", "/abc1234")
	assert.Equal(t, "Hit from cloudfront", stale.Header.Get("X-Cache"), "not propagated yet")
	assert.Equal(t, "https://old.example/", stale.Header.Get("Location"))

	f.clock.Add(time.Millisecond)
	fresh := f.do("GET", "/abc1234")
	assert.Equal(t, "Miss from cloudfront", fresh.Header.Get("X-Cache"), "a new version is a new cache key")
	assert.Equal(t, "https://new.example/", fresh.Header.Get("Location"))
	assert.Equal(t, "/abc1234", f.origin.last().URL.Path)
	v := f.origin.last().Header.Get(edgespec.VersionHeader)
	assert.NotEqual(t, edgespec.NoVersion, v)
	assert.Equal(t, "https://new.example/", f.do("GET", "/abc1234").Header.Get("Location"))
	assert.Equal(t, 2, f.origin.count("/abc1234"))

	st := f.edge.Stats()
	assert.Zero(t, st.Invalidations, "no invalidation")
	assert.Zero(t, st.InvalidationPaths)

	// An invalidation still reaches every version's entry of the path.
	f.edge.Invalidate([]string{"/abc1234"})
	f.clock.Add(DefaultInvalidationDelay)
	assert.Equal(t, "Miss from cloudfront", f.do("GET", "/abc1234").Header.Get("X-Cache"))

	// A percent-encoded spelling is refused before the store is read.
	assert.Equal(t, http.StatusBadRequest, f.do("GET", "/%61bc1234").StatusCode)
}

// TestVersionKeysNeedAStore: a distribution whose function reads the key
// value store does not start without one.
func TestVersionKeysNeedAStore(t *testing.T) {
	d := edgespec.Distribution(edgespec.Options{VersionKeys: true})
	_, err := New(Options{Origin: newOrigin(), Distribution: &d})
	assert.ErrorIs(t, err, ErrUnmodelled)
}

// TestKeyValueStoreETag: a PutKey must name the store's current ETag,
// which every write changes; the API reads a write at once, the edge only
// after the propagation delay.
func TestKeyValueStoreETag(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := NewKeyValueStore(0, func() time.Time { return now })
	assert.Equal(t, DefaultPropagationDelay, s.PropagationDelay())
	etag, err := s.DescribeKeyValueStore(ctx, "arn")
	require.NoError(t, err)
	next, err := s.PutKey(ctx, "arn", "/a", "1", etag)
	require.NoError(t, err)
	assert.NotEqual(t, etag, next)
	_, err = s.PutKey(ctx, "arn", "/a", "2", etag)
	assert.ErrorIs(t, err, edgeversion.ErrConflict)
	v, found, err := s.GetKey(ctx, "arn", "/a")
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "1", v)
	_, found, _ = s.Get("/a")
	assert.False(t, found, "not at the edge yet")
	now = now.Add(DefaultPropagationDelay)
	v, found, _ = s.Get("/a")
	assert.True(t, found)
	assert.Equal(t, "1", v)
}

// TestKeyValueStoreListAndUpdate: ListKeys pages the keys in order, a
// page of 1 to 50; UpdateKeys is one write under the store's ETag, all or
// nothing, within its bounds, and a delete reaches the API at once and
// the edge after the propagation delay, as a put does.
func TestKeyValueStoreListAndUpdate(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := NewKeyValueStore(time.Second, func() time.Time { return now })
	w := &edgeversion.Writer{API: s, ARN: "arn", Now: func() time.Time { return now }}
	require.NoError(t, w.Invalidate(ctx, "/c", "/a", "/b"))
	now = now.Add(time.Second)

	var listed []edgeversion.Item
	token, pages := "", 0
	for {
		items, next, err := s.ListKeys(ctx, "arn", 2, token)
		require.NoError(t, err)
		listed, pages = append(listed, items...), pages+1
		if next == "" {
			break
		}
		token = next
	}
	assert.Equal(t, 2, pages)
	v := strconv.FormatInt(now.Add(-time.Second).UnixMilli(), 10)
	assert.Equal(t, []edgeversion.Item{{Key: "/a", Value: v}, {Key: "/b", Value: v}, {Key: "/c", Value: v}}, listed)
	for _, bad := range []int{0, 51} {
		_, _, err := s.ListKeys(ctx, "arn", bad, "")
		assert.Error(t, err, bad)
	}
	_, _, err := s.ListKeys(ctx, "arn", 2, "!")
	assert.Error(t, err, "a token it never answered")

	etag, err := s.DescribeKeyValueStore(ctx, "arn")
	require.NoError(t, err)
	_, err = s.UpdateKeys(ctx, "arn", nil, []string{"/a"}, "stale")
	assert.ErrorIs(t, err, edgeversion.ErrConflict)
	_, err = s.UpdateKeys(ctx, "arn", nil, []string{"/a", "/missing"}, etag)
	assert.ErrorContains(t, err, "does not hold")
	many := make([]string, edgeversion.MaxUpdateKeys+1)
	for i := range many {
		many[i] = "/k" + strconv.Itoa(i)
	}
	_, err = s.UpdateKeys(ctx, "arn", nil, many, etag)
	assert.Error(t, err)
	assert.Equal(t, 3, s.Len(), "a refused update changed nothing")
	same, _ := s.DescribeKeyValueStore(ctx, "arn")
	assert.Equal(t, etag, same)

	next, err := s.UpdateKeys(ctx, "arn", nil, []string{"/a", "/b"}, etag)
	require.NoError(t, err)
	assert.NotEqual(t, etag, next)
	assert.Equal(t, 1, s.Len())
	_, found, _ := s.GetKey(ctx, "arn", "/a")
	assert.False(t, found, "the API reads the delete at once")
	_, found, _ = s.Get("/a")
	assert.True(t, found, "the edge only after the propagation delay")
	now = now.Add(time.Second)
	_, found, _ = s.Get("/a")
	assert.False(t, found)
	items, _, err := s.ListKeys(ctx, "arn", 50, "")
	require.NoError(t, err)
	assert.Equal(t, []edgeversion.Item{{Key: "/c", Value: v}}, items)
}

// TestVersionKeysSweptKeyReadsAsZero: once a changed link's version is
// older than the edge life plus the margin, the sweep deletes its key
// and the path reads version "0" again, and that brings back nothing old:
// the answer cached under "0" before the change was cached more than the
// edge life ago (its s-maxage is at most a day), so it has expired and
// the next request is a miss, answered with the link as it is now. Within
// the window the key stays. A sweep that waited out the margin alone
// (no edge life) would bring back the answer from before the change.
func TestVersionKeysSweptKeyReadsAsZero(t *testing.T) {
	const delay = 5 * time.Second
	const day = 24 * time.Hour
	setup := func(t *testing.T) (*fixture, *KeyValueStore, *edgeversion.Writer) {
		d := edgespec.Distribution(edgespec.Options{VersionKeys: true})
		var f *fixture
		store := NewKeyValueStore(delay, func() time.Time { return f.clock.Now() })
		f = newFixture(t, Options{Distribution: &d, KeyValueStore: store})
		writer := &edgeversion.Writer{API: store, ARN: "arn:aws:cloudfront::123456789012:key-value-store/local", Now: f.clock.Now}

		// Cached under "0" at t0, for a day; changed a minute later.
		f.origin.set("/abc1234", answer{status: 302, cc: "public, max-age=0, s-maxage=86400", target: "https://old.example/"})
		require.Equal(t, "https://old.example/", f.do("GET", "/abc1234").Header.Get("Location"))
		f.clock.Add(time.Minute)
		f.origin.set("/abc1234", answer{status: 302, cc: "public, max-age=0, s-maxage=86400", target: "https://new.example/"})
		require.NoError(t, writer.Invalidate(context.Background(), "/abc1234"))
		f.clock.Add(delay)
		require.Equal(t, "https://new.example/", f.do("GET", "/abc1234").Header.Get("Location"))
		return f, store, writer
	}
	sweep := func(t *testing.T, f *fixture, store *KeyValueStore, edgeLife, margin time.Duration) edgeversion.SweepResult {
		t.Helper()
		sw := &edgeversion.Sweeper{API: store, ARN: "arn", EdgeLife: edgeLife, Margin: margin, Now: f.clock.Now, Pause: -1}
		res, err := sw.Sweep(context.Background(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		return res
	}

	t.Run("after the edge life and margin", func(t *testing.T) {
		f, store, writer := setup(t)
		f.clock.Add(day) // within the window: kept
		res := sweep(t, f, store, day, time.Hour)
		assert.Equal(t, edgeversion.SweepResult{Listed: 1, Kept: 1, Complete: true}, res)
		assert.Equal(t, 1, f.edge.Stats().StoreKeys)

		f.clock.Add(time.Hour)
		res = sweep(t, f, store, day, time.Hour)
		assert.Equal(t, edgeversion.SweepResult{Listed: 1, Swept: 1, Complete: true}, res)
		assert.Zero(t, f.edge.Stats().StoreKeys)
		f.clock.Add(delay)
		got := f.do("GET", "/abc1234")
		assert.Equal(t, "Miss from cloudfront", got.Header.Get("X-Cache"), "the answer under 0 from before the change has expired")
		assert.Equal(t, "https://new.example/", got.Header.Get("Location"))
		assert.Equal(t, edgespec.NoVersion, f.origin.last().Header.Get(edgespec.VersionHeader), "the path reads version 0 again")
		assert.Equal(t, "Hit from cloudfront", f.do("GET", "/abc1234").Header.Get("X-Cache"))

		// The next change puts a version above the clock's: a new key
		// again, and the link leaves the edge as before.
		f.origin.set("/abc1234", answer{status: 302, cc: "public, max-age=0, s-maxage=86400", target: "https://newer.example/"})
		require.NoError(t, writer.Invalidate(context.Background(), "/abc1234"))
		f.clock.Add(delay)
		assert.Equal(t, "https://newer.example/", f.do("GET", "/abc1234").Header.Get("Location"))
		assert.Zero(t, f.edge.Stats().Invalidations)
	})
	t.Run("a sweep that ignored the edge life", func(t *testing.T) {
		f, store, _ := setup(t)
		f.clock.Add(time.Hour)
		res := sweep(t, f, store, 0, time.Minute)
		require.Equal(t, 1, res.Swept)
		f.clock.Add(delay)
		got := f.do("GET", "/abc1234")
		assert.Equal(t, "Hit from cloudfront", got.Header.Get("X-Cache"))
		assert.Equal(t, "https://old.example/", got.Header.Get("Location"), "the answer from before the change is back: why the sweep waits out the edge life")
	})
}

// TestSweepRacesManageOnTheLocalStore: on the local store, with its ETag
// rules, a put of a new version that lands between the sweep's listing
// and its delete makes the delete conflict; the sweep reads the batch
// again and keeps the key, and the edge serves the change.
func TestSweepRacesManageOnTheLocalStore(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := NewKeyValueStore(-1, clock)
	writer := &edgeversion.Writer{API: store, ARN: "arn", Now: clock}
	require.NoError(t, writer.Invalidate(ctx, "/abc1234", "/other"))
	now = now.Add(3 * 24 * time.Hour)
	racing := &racingStore{KeyValueStore: store, before: func() { require.NoError(t, writer.Invalidate(ctx, "/abc1234")) }}
	sw := &edgeversion.Sweeper{API: racing, ARN: "arn", EdgeLife: 24 * time.Hour, Now: clock, Pause: -1}
	res, err := sw.Sweep(ctx, time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, edgeversion.SweepResult{Listed: 2, Swept: 1, Kept: 1, Conflicts: 1, Complete: true}, res)
	v, found, err := store.GetKey(ctx, "arn", "/abc1234")
	require.NoError(t, err)
	require.True(t, found, "the new version is kept")
	assert.Equal(t, strconv.FormatInt(now.UnixMilli(), 10), v)
	_, found, _ = store.GetKey(ctx, "arn", "/other")
	assert.False(t, found)
}

// racingStore runs before once, before the first UpdateKeys: another
// writer's put between the sweep's listing and its delete.
type racingStore struct {
	*KeyValueStore
	before func()
	once   sync.Once
}

func (r *racingStore) UpdateKeys(ctx context.Context, arn string, puts []edgeversion.Item, deletes []string, ifMatch string) (string, error) {
	r.once.Do(r.before)
	return r.KeyValueStore.UpdateKeys(ctx, arn, puts, deletes, ifMatch)
}
