package localedge

import (
	"context"
	"net/http"
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
