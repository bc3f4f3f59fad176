package redirectfn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/redirectcache"
)

var start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// countingStore counts lookups and can be made to fail or block.
type countingStore struct {
	linkstore.Store
	gets  atomic.Int32
	fail  atomic.Bool
	block chan struct{}
}

func (c *countingStore) Get(ctx context.Context, code string) (link.Link, error) {
	c.gets.Add(1)
	if c.block != nil {
		select {
		case <-c.block:
		case <-ctx.Done():
			return link.Link{}, fmt.Errorf("get %q: %w: %w", code, link.ErrUnavailable, ctx.Err())
		}
	}
	if c.fail.Load() {
		return link.Link{}, fmt.Errorf("get %q: %w", code, link.ErrUnavailable)
	}
	return c.Store.Get(ctx, code)
}

type fixture struct {
	h     *Handler
	store *countingStore
	clock *storetest.Clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clock := storetest.NewClock(start)
	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	f := &fixture{store: &countingStore{Store: linkstore.NewMemory(clock.Now)}, clock: clock}
	f.h = New(Options{Store: f.store, Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now})
	return f
}

func (f *fixture) put(t *testing.T, l link.Link) link.Link {
	t.Helper()
	if l.Status == "" {
		l.Status = link.StatusActive
	}
	if l.RedirectStatus == 0 {
		l.RedirectStatus = 302
	}
	if l.CreatedAt.IsZero() {
		l.CreatedAt = start.Add(-time.Hour)
	}
	if l.ExpiresAt.IsZero() {
		l.ExpiresAt = start.Add(link.DefaultTTL)
	}
	if l.URL == "" {
		l.URL = "https://example.com/" + l.Code
	}
	require.NoError(t, f.store.Store.Create(context.Background(), l, nil))
	return l
}

func event(t *testing.T, name, code string) events.APIGatewayProxyRequest {
	t.Helper()
	ev := eventtest.Load[events.APIGatewayProxyRequest](t, filepath.Join("testdata", name))
	ev.Path = "/" + code
	ev.PathParameters = map[string]string{"code": code}
	return ev
}

func (f *fixture) get(t *testing.T, code string) events.APIGatewayProxyResponse {
	t.Helper()
	resp, err := f.h.Handle(context.Background(), event(t, "redirect-get.json", code))
	require.NoError(t, err)
	return resp
}

func TestRedirect(t *testing.T) {
	tests := []struct {
		name     string
		link     link.Link
		path     string
		status   int
		location string
		cache    string
	}{
		{name: "active link, default 302", link: link.Link{Code: "Ab3dE5g"}, path: "Ab3dE5g", status: 302,
			location: "https://example.com/Ab3dE5g", cache: "public, max-age=0, s-maxage=86400"},
		{name: "per-link 308", link: link.Link{Code: "perm308", RedirectStatus: 308}, path: "perm308", status: 308,
			location: "https://example.com/perm308", cache: "public, max-age=0, s-maxage=86400"},
		{name: "edge ttl never past expiry", link: link.Link{Code: "soon001", ExpiresAt: start.Add(90 * time.Second)}, path: "soon001",
			status: 302, location: "https://example.com/soon001", cache: "public, max-age=0, s-maxage=90"},
		{name: "a link created seconds ago is cached briefly", link: link.Link{Code: "new0001", CreatedAt: start.Add(-5 * time.Second)},
			path: "new0001", status: 302, location: "https://example.com/new0001", cache: "public, max-age=0, s-maxage=10"},
		{name: "alias in its display spelling", link: link.Link{Code: "summer-sale", Alias: "Summer-Sale"}, path: "Summer-Sale",
			status: 302, location: "https://example.com/summer-sale", cache: "public, max-age=0, s-maxage=86400"},
		{name: "alias typed in another case is cached briefly", link: link.Link{Code: "summer-sale", Alias: "Summer-Sale"}, path: "SUMMER-SALE",
			status: 302, location: "https://example.com/summer-sale", cache: "public, max-age=0, s-maxage=10"},
		{name: "code-shaped alias typed with capitals is sent to its own path", link: link.Link{Code: "hello12", Alias: "Hello12"}, path: "Hello12",
			status: 303, location: "/hello12", cache: "public, max-age=0, s-maxage=10"},
		{name: "expired but not yet deleted by TTL", link: link.Link{Code: "expired", ExpiresAt: start.Add(-time.Second)}, path: "expired",
			status: 410, cache: "public, max-age=0, s-maxage=60"},
		{name: "disabled", link: link.Link{Code: "disable", Status: link.StatusDisabled}, path: "disable", status: 410,
			cache: "public, max-age=0, s-maxage=60"},
		{name: "deleted", link: link.Link{Code: "deleted", Status: link.StatusDeleted}, path: "deleted", status: 410,
			cache: "public, max-age=0, s-maxage=60"},
		{name: "tombstone", link: link.Link{Code: "tombstn", Status: link.StatusTombstone}, path: "tombstn", status: 410,
			cache: "public, max-age=0, s-maxage=60"},
		{name: "a tombstone released soon leaves the edge before its release", path: "relsoon",
			link:   link.Link{Code: "relsoon", Status: link.StatusTombstone, ReclaimAfter: start.Add(30 * time.Second)},
			status: 410, cache: "public, max-age=0, s-maxage=29"},
		{name: "a tombstone released within the error caching minimum is not stored", path: "relnow1",
			link:   link.Link{Code: "relnow1", Status: link.StatusTombstone, ReclaimAfter: start.Add(5 * time.Second)},
			status: 410, cache: "no-store"},
		{name: "unknown", path: "Zz9Zz9Z", status: 404, cache: "public, max-age=0, s-maxage=10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.link.Code != "" {
				f.put(t, tt.link)
			}
			resp := f.get(t, tt.path)
			assert.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, tt.location, resp.Headers["Location"])
			assert.Equal(t, tt.cache, resp.Headers["Cache-Control"])
			if tt.status >= 400 {
				assert.Contains(t, resp.Headers["Content-Type"], "text/html")
				assert.Contains(t, resp.Body, "<h1>")
			}
		})
	}
}

func TestImpossibleCodesNeverReachTheStore(t *testing.T) {
	for _, path := range []string{"", "a.b", "v1", "V2", "qr", "API", "healthz", "favicon.ico", "with/slash",
		"%00abc", "ünïcode", strings.Repeat("x", 101), "_local", "console"} {
		t.Run(path, func(t *testing.T) {
			f := newFixture(t)
			assert.Equal(t, 404, f.get(t, path).StatusCode)
			assert.Zero(t, f.store.gets.Load())
		})
	}
}

// TestAliasesOfEveryAllowedLength: a deployment may allow aliases of 1 to
// 100 characters (YOURLS's own keywords), so the redirect looks every such
// segment up, in any case, whatever the range configured today.
func TestAliasesOfEveryAllowedLength(t *testing.T) {
	long := strings.Repeat("k", 100)
	for _, tt := range []struct{ path, code string }{{"a", "a"}, {"A", "a"}, {"zz", "zz"}, {"ZZ", "zz"}, {long, long}} {
		t.Run(tt.path, func(t *testing.T) {
			f := newFixture(t)
			f.put(t, link.Link{Code: tt.code, Alias: tt.code, URL: "https://example.net/" + tt.code})
			resp := f.get(t, tt.path)
			assert.Equal(t, 302, resp.StatusCode, resp.Body)
			assert.Equal(t, "https://example.net/"+tt.code, resp.Headers["Location"])
		})
	}
}

func TestHeadHasNoBody(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "expired", ExpiresAt: start.Add(-time.Second)})
	f.put(t, link.Link{Code: "active1"})
	for code, status := range map[string]int{"expired": 410, "active1": 302, "missing": 404} {
		resp, err := f.h.Handle(context.Background(), event(t, "redirect-head.json", code))
		require.NoError(t, err)
		assert.Equal(t, status, resp.StatusCode, code)
		assert.Empty(t, resp.Body, code)
	}
}

func TestOtherMethodsAre405(t *testing.T) {
	f := newFixture(t)
	ev := event(t, "redirect-get.json", "active1")
	ev.HTTPMethod = "PUT" // POST reaches the lookup: a protected link's form (decided_test.go)
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, 405, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Headers["Allow"])
}

func TestCacheServesRepeatsWithoutLookups(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "cached1"})
	for range 5 {
		assert.Equal(t, 302, f.get(t, "cached1").StatusCode)
		assert.Equal(t, 404, f.get(t, "absent1").StatusCode)
	}
	assert.Equal(t, int32(2), f.store.gets.Load(), "one lookup per code, misses cached too")

	f.clock.Add(31 * time.Second) // past both TTLs
	f.get(t, "cached1")
	f.get(t, "absent1")
	assert.Equal(t, int32(4), f.store.gets.Load())
}

// TestEdgeNeverOutlivesTheProcessCache: an answer built from the
// in-process cache may be kept at the edge only as long as the cache entry
// stays fresh; otherwise an edge invalidation landing while the entry is
// fresh would be refilled with the old target and kept for a day.
func TestEdgeNeverOutlivesTheProcessCache(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "cached1"})
	assert.Equal(t, "public, max-age=0, s-maxage=86400", f.get(t, "cached1").Headers["Cache-Control"], "read from the store")
	f.clock.Add(5 * time.Second)
	assert.Equal(t, "public, max-age=0, s-maxage=15", f.get(t, "cached1").Headers["Cache-Control"], "from a 20 s cache entry 5 s old")
	assert.Equal(t, int32(1), f.store.gets.Load())
}

// TestEdgeLifeIsBoundedByFreshness: every answer, negative ones included,
// is kept at the edge no longer than what it was built from stays fresh;
// only data whose read began within config.FreshRead gets the answer's
// full TTL (docs/lifecycle.md). An error CloudFront would keep for its
// error caching minimum (10 s) beyond that is not cached at all.
func TestEdgeLifeIsBoundedByFreshness(t *testing.T) {
	tests := []struct {
		name  string
		link  link.Link
		path  string
		age   time.Duration // of the in-process entry when asked again
		fail  bool          // DynamoDB fails, so the entry is served stale
		cache string
	}{
		{name: "redirect, fresh read", link: link.Link{Code: "cached1"}, path: "cached1", age: 999 * time.Millisecond,
			cache: "public, max-age=0, s-maxage=86400"},
		{name: "redirect, entry one read-window old", link: link.Link{Code: "cached1"}, path: "cached1", age: time.Second,
			cache: "public, max-age=0, s-maxage=19"},
		{name: "redirect, entry about to expire", link: link.Link{Code: "cached1"}, path: "cached1", age: 15500 * time.Millisecond,
			cache: "public, max-age=0, s-maxage=4"},
		{name: "redirect served stale while DynamoDB fails", link: link.Link{Code: "cached1"}, path: "cached1", age: 25 * time.Second, fail: true,
			cache: "no-store"},
		{name: "404, fresh read", path: "absent1", age: 500 * time.Millisecond, cache: "public, max-age=0, s-maxage=10"},
		{name: "404 from a remembered miss", path: "absent1", age: time.Second, cache: "no-store"},
		{name: "404 from a remembered miss, stale", path: "absent1", age: 12 * time.Second, fail: true, cache: "no-store"},
		{name: "410, fresh read", link: link.Link{Code: "deleted", Status: link.StatusDeleted}, path: "deleted", age: 0,
			cache: "public, max-age=0, s-maxage=60"},
		{name: "410 from an entry 5 s old", link: link.Link{Code: "deleted", Status: link.StatusDeleted}, path: "deleted", age: 5 * time.Second,
			cache: "public, max-age=0, s-maxage=15"},
		{name: "410 from an entry 12 s old", link: link.Link{Code: "deleted", Status: link.StatusDeleted}, path: "deleted", age: 12 * time.Second,
			cache: "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.h.Cache = redirectcache.New[cached](redirectcache.Options{TTL: f.h.CacheTTL, NegativeTTL: f.h.NegativeCacheTTL,
				StaleFor: time.Minute, NotFound: link.ErrNotFound, Now: f.clock.Now}) // no jitter
			if tt.link.Code != "" {
				f.put(t, tt.link)
			}
			f.get(t, tt.path)
			f.clock.Add(tt.age)
			f.store.fail.Store(tt.fail)
			assert.Equal(t, tt.cache, f.get(t, tt.path).Headers["Cache-Control"])
			assert.Equal(t, int32(1+map[bool]int32{true: 1}[tt.fail]), f.store.gets.Load(), "answered from the entry")
		})
	}
}

func TestExpiryIsEnforcedEvenFromCache(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "expires", ExpiresAt: start.Add(5 * time.Second)})
	assert.Equal(t, 302, f.get(t, "expires").StatusCode)
	f.clock.Add(6 * time.Second) // still inside the cache TTL
	assert.Equal(t, 410, f.get(t, "expires").StatusCode)
	assert.Equal(t, int32(1), f.store.gets.Load())
}

func TestStoreFailures(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "cached1"})
	require.Equal(t, 302, f.get(t, "cached1").StatusCode)
	f.store.fail.Store(true)
	f.clock.Add(25 * time.Second) // the entry is expired, but may be served stale

	resp := f.get(t, "cached1")
	assert.Equal(t, 302, resp.StatusCode, "a cached link keeps redirecting while DynamoDB fails")

	resp = f.get(t, "uncached")
	assert.Equal(t, 503, resp.StatusCode)
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"], "an outage must not be cached at the edge")
}

func TestSlowStoreAnswersWithinTheDeadline(t *testing.T) {
	f := newFixture(t)
	f.h.Timeout = 50 * time.Millisecond
	f.store.block = make(chan struct{}) // never released: DynamoDB hangs
	defer close(f.store.block)
	resp := f.get(t, "Slow123")
	assert.Equal(t, 503, resp.StatusCode)
}

func TestConcurrentMissesShareOneLookup(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "popular"})
	f.store.block = make(chan struct{})
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = f.get(t, "popular").StatusCode
		}()
	}
	require.Eventually(t, func() bool { return f.store.gets.Load() >= 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // let the others pile up behind the first
	close(f.store.block)
	wg.Wait()
	assert.Equal(t, int32(1), f.store.gets.Load())
	for _, s := range statuses {
		assert.Equal(t, 302, s)
	}
}

func TestNotFoundIsNotAnError(t *testing.T) {
	f := newFixture(t)
	_, err := f.h.resolve(context.Background(), "nothere", link.LookupKeys("nothere"), start)
	assert.True(t, errors.Is(err, link.ErrNotFound))
}

// TestStaleNeverOutlivesTheFreshnessPromise: an entry served stale while
// DynamoDB fails is still an answer built from old data. A change saved
// just after the entry was read must show within 30 s (the promise of
// docs/lifecycle.md, "6. How fast a change shows"), so the entry may be served stale only for what the promise
// leaves after its fresh life: past that, a 503 rather than a target the
// owner has replaced.
func TestStaleNeverOutlivesTheFreshnessPromise(t *testing.T) {
	f := newFixture(t)
	l := f.put(t, link.Link{Code: "changed1"})
	require.Equal(t, l.URL, f.get(t, "changed1").Headers["Location"])
	// The owner changes the target just after that read; then DynamoDB
	// fails, so the redirect cannot learn of the change.
	l.URL = "https://example.com/new-target"
	l.Version++
	require.NoError(t, f.store.Store.Update(context.Background(), l, l.Version-1))
	f.store.fail.Store(true)

	for _, after := range []time.Duration{25 * time.Second, 29 * time.Second, 31 * time.Second, 45 * time.Second} {
		f.clock.Set(start.Add(after))
		resp := f.get(t, "changed1")
		if after > 30*time.Second {
			assert.NotEqual(t, "https://example.com/changed1", resp.Headers["Location"],
				"%s after the change the old target is still served", after)
			assert.Equal(t, 503, resp.StatusCode, "at +%s", after)
		}
	}
}
