package redirectcache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	errNotFound = errors.New("not found")
	errBoom     = errors.New("dynamodb: throttled")
)

// fakeClock is a manually advanced clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// stubLoader answers with whatever val and err are set to, counting calls.
// Tests set val and err between Gets, never during one.
type stubLoader struct {
	calls atomic.Int32
	val   string
	err   error
}

func (l *stubLoader) load(context.Context) (string, error) {
	l.calls.Add(1)
	return l.val, l.err
}

// mustNotLoad fails the test if the cache calls the loader.
func mustNotLoad(t *testing.T) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		t.Errorf("loader called, want an answer from the cache")
		return "", errors.New("unexpected load")
	}
}

// step is one Get in a sequential scenario: advance the clock, set the
// loader's answer, Get, and compare.
type step struct {
	name      string
	advance   time.Duration
	loadVal   string
	loadErr   error
	wantVal   string
	wantRes   Result
	wantErr   error // compared with errors.Is; nil means no error
	wantCalls int32 // loader calls so far
}

func runSteps(t *testing.T, c *Cache[string], clock *fakeClock, key string, steps []step) {
	t.Helper()
	var l stubLoader
	for _, s := range steps {
		clock.Advance(s.advance)
		l.val, l.err = s.loadVal, s.loadErr
		v, res, err := c.Get(context.Background(), key, l.load)
		if s.wantErr != nil {
			require.ErrorIs(t, err, s.wantErr, s.name)
		} else {
			require.NoError(t, err, s.name)
		}
		assert.Equal(t, s.wantVal, v, s.name)
		assert.Equal(t, s.wantRes, res, "%s: result %v", s.name, res)
		assert.Equal(t, s.wantCalls, l.calls.Load(), "%s: loader calls", s.name)
	}
}

// keys lists the cache's keys from most to least recently used and checks
// that the list and the map agree.
func keys[V any](t *testing.T, c *Cache[V]) []string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for e := c.lru.next; e != &c.lru; e = e.next {
		require.Same(t, e, e.next.prev, "broken back link at %q", e.key)
		require.Same(t, e, c.items[e.key], "list entry %q not in map", e.key)
		out = append(out, e.key)
		require.LessOrEqual(t, len(out), len(c.items), "list longer than map (cycle?)")
	}
	require.Len(t, out, len(c.items))
	require.LessOrEqual(t, len(out), c.capacity)
	return out
}

func TestTTLExpiry(t *testing.T) {
	clock := newClock()
	c := New[string](Options{TTL: 10 * time.Second, NegativeTTL: time.Second, NotFound: errNotFound, Now: clock.Now})
	runSteps(t, c, clock, "abc", []step{
		{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
		{name: "same instant", loadVal: "x", wantVal: "v1", wantRes: Hit, wantCalls: 1},
		{name: "just before TTL", advance: 10*time.Second - time.Nanosecond, loadVal: "x", wantVal: "v1", wantRes: Hit, wantCalls: 1},
		{name: "at TTL", advance: time.Nanosecond, loadVal: "v2", wantVal: "v2", wantRes: Miss, wantCalls: 2},
		{name: "reloaded value is fresh", advance: 5 * time.Second, loadVal: "x", wantVal: "v2", wantRes: Hit, wantCalls: 2},
		{name: "and expires TTL after its load", advance: 5 * time.Second, loadVal: "v3", wantVal: "v3", wantRes: Miss, wantCalls: 3},
	})
}

func TestLifetimeCountsFromLoadStart(t *testing.T) {
	// A change written just after the load began may be missing from the
	// loaded value; counting from the end of a slow load would let it hide
	// for longer than TTL.
	clock := newClock()
	c := New[string](Options{TTL: 10 * time.Second, Now: clock.Now})
	slow := func(context.Context) (string, error) {
		clock.Advance(4 * time.Second)
		return "v1", nil
	}
	_, res, err := c.Get(context.Background(), "k", slow)
	require.NoError(t, err)
	require.Equal(t, Miss, res)

	clock.Advance(6*time.Second - time.Nanosecond)
	_, res, _ = c.Get(context.Background(), "k", mustNotLoad(t))
	require.Equal(t, Hit, res)

	clock.Advance(time.Nanosecond)
	var l stubLoader
	l.val = "v2"
	v, res, err := c.Get(context.Background(), "k", l.load)
	require.NoError(t, err)
	assert.Equal(t, Miss, res, "an entry must not live past TTL from its load's start")
	assert.Equal(t, "v2", v)
}

func TestJitterDeterministic(t *testing.T) {
	const ttl = 10 * time.Second
	tests := []struct {
		name   string
		jitter float64
		r      float64
		want   time.Duration
	}{
		{"no jitter", 0, 0.7, ttl},
		{"r=0 keeps full TTL", 0.2, 0, ttl},
		{"r=0.5", 0.2, 0.5, 9 * time.Second},
		{"r=1 is the lower bound", 0.2, 1, 8 * time.Second},
		{"r above 1 clamps", 0.2, 7, 8 * time.Second},
		{"r below 0 clamps", 0.2, -3, ttl},
		{"jitter above 1 clamps", 5, 0.5, 5 * time.Second},
		{"negative jitter is none", -0.5, 0.5, ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			c := New[string](Options{TTL: ttl, Jitter: tt.jitter, Now: clock.Now, Rand: func() float64 { return tt.r }})
			var l stubLoader
			l.val = "v"
			_, _, err := c.Get(context.Background(), "k", l.load)
			require.NoError(t, err)

			clock.Advance(tt.want - time.Nanosecond)
			_, res, _ := c.Get(context.Background(), "k", l.load)
			require.Equal(t, Hit, res, "expired before %v", tt.want)

			clock.Advance(time.Nanosecond)
			_, res, _ = c.Get(context.Background(), "k", l.load)
			require.Equal(t, Miss, res, "still fresh at %v", tt.want)
			require.EqualValues(t, 2, l.calls.Load())
		})
	}
}

func TestJitterBounds(t *testing.T) {
	// With the real random source, every lifetime lies in
	// [TTL*(1-j), TTL], for positive and negative entries alike, and the
	// draws actually spread over that range.
	const (
		n      = 5000
		jitter = 0.1
	)
	for _, negative := range []bool{false, true} {
		t.Run(fmt.Sprintf("negative=%v", negative), func(t *testing.T) {
			clock := newClock()
			ttl := 30 * time.Second
			c := New[string](Options{Capacity: n, TTL: ttl, NegativeTTL: ttl, Jitter: jitter, NotFound: errNotFound, Now: clock.Now})
			var l stubLoader
			l.val = "v"
			if negative {
				l.err = errNotFound
			}
			start := clock.Now()
			for i := range n {
				_, _, _ = c.Get(context.Background(), fmt.Sprint(i), l.load)
			}
			lo := time.Duration(float64(ttl) * (1 - jitter))
			minLife, maxLife := ttl, time.Duration(0)
			c.mu.Lock()
			for _, e := range c.items {
				life := e.expires.Sub(start)
				require.LessOrEqual(t, life, ttl, "entry lives past TTL")
				require.GreaterOrEqual(t, life, lo, "entry shorter than TTL*(1-j)")
				minLife, maxLife = min(minLife, life), max(maxLife, life)
			}
			c.mu.Unlock()
			require.Equal(t, n, c.Len())
			assert.Less(t, minLife, lo+ttl/100, "jitter never reaches near its lower bound")
			assert.Greater(t, maxLife, ttl-ttl/100, "jitter never reaches near TTL")
		})
	}
}

func TestNegativeCaching(t *testing.T) {
	notFoundWrapped := fmt.Errorf("get link %q: %w", "abc", errNotFound)

	t.Run("cached for NegativeTTL then reloaded", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "abc", []step{
			{name: "loader says not found", loadErr: notFoundWrapped, wantRes: Miss, wantErr: errNotFound, wantCalls: 1},
			{name: "remembered", advance: 5*time.Second - time.Nanosecond, loadVal: "x", wantRes: NegativeHit, wantErr: errNotFound, wantCalls: 1},
			{name: "forgotten at NegativeTTL", advance: time.Nanosecond, loadVal: "v", wantVal: "v", wantRes: Miss, wantCalls: 2},
			{name: "positive entry keeps TTL", advance: 30 * time.Second, loadErr: notFoundWrapped, wantVal: "v", wantRes: Hit, wantCalls: 2},
			{name: "deleted link replaces positive entry", advance: 30 * time.Second, loadErr: notFoundWrapped, wantRes: Miss, wantErr: errNotFound, wantCalls: 3},
			{name: "and is a negative hit", advance: time.Second, loadVal: "x", wantRes: NegativeHit, wantErr: errNotFound, wantCalls: 3},
		})
	})

	t.Run("the loader's error is returned as is", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, NotFound: errNotFound, Now: clock.Now})
		l := stubLoader{err: notFoundWrapped}
		_, _, err := c.Get(context.Background(), "abc", l.load)
		require.Equal(t, notFoundWrapped, err)
		_, res, err := c.Get(context.Background(), "abc", l.load)
		require.Equal(t, NegativeHit, res)
		require.Equal(t, notFoundWrapped, err)
	})

	t.Run("the loader's value travels with its not-found error", func(t *testing.T) {
		// The redirect keeps when it read a miss beside the error, to bound
		// how long the edge may keep the 404 it answers from it.
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, StaleFor: time.Minute, RetryAfter: -1, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "abc", []step{
			{name: "miss", loadVal: "read at 0s", loadErr: errNotFound, wantVal: "read at 0s", wantRes: Miss, wantErr: errNotFound, wantCalls: 1},
			{name: "negative hit", advance: 4 * time.Second, loadVal: "x", wantVal: "read at 0s", wantRes: NegativeHit, wantErr: errNotFound, wantCalls: 1},
			{name: "stale negative", advance: 2 * time.Second, loadErr: errBoom, wantVal: "read at 0s", wantRes: Stale, wantErr: errNotFound, wantCalls: 2},
		})
	})

	t.Run("other errors are not cached", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "abc", []step{
			{name: "error", loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 1},
			{name: "retried", loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 2},
		})
		require.Zero(t, c.Len())
	})

	t.Run("no NotFound sentinel, no negative caching", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, Now: clock.Now})
		runSteps(t, c, clock, "abc", []step{
			{name: "not found", loadErr: notFoundWrapped, wantRes: Miss, wantErr: errNotFound, wantCalls: 1},
			{name: "asked again", loadErr: notFoundWrapped, wantRes: Miss, wantErr: errNotFound, wantCalls: 2},
		})
	})
}

func TestLRUEviction(t *testing.T) {
	clock := newClock()
	c := New[string](Options{Capacity: 3, TTL: time.Hour, NegativeTTL: time.Hour, NotFound: errNotFound, Now: clock.Now})
	get := func(key string) Result {
		t.Helper()
		_, res, _ := c.Get(context.Background(), key, func(context.Context) (string, error) {
			if key == "neg" {
				return "", errNotFound
			}
			return "v-" + key, nil
		})
		return res
	}
	for _, k := range []string{"a", "b", "c"} {
		require.Equal(t, Miss, get(k))
	}
	require.Equal(t, []string{"c", "b", "a"}, keys(t, c))

	require.Equal(t, Hit, get("a")) // a becomes most recently used
	require.Equal(t, []string{"a", "c", "b"}, keys(t, c))

	require.Equal(t, Miss, get("d")) // evicts b, the least recently used
	require.Equal(t, []string{"d", "a", "c"}, keys(t, c))
	require.Equal(t, 3, c.Len())
	require.Equal(t, Hit, get("a"), "recently used entry was evicted")
	require.Equal(t, Hit, get("c"))

	require.Equal(t, Miss, get("b"), "evicted entry still served")
	require.Equal(t, []string{"b", "c", "a"}, keys(t, c)) // d evicted

	require.Equal(t, Miss, get("neg")) // negative entries count too
	require.Equal(t, NegativeHit, get("neg"))
	require.Equal(t, []string{"neg", "b", "c"}, keys(t, c))
}

func TestDefaultCapacity(t *testing.T) {
	c := New[int](Options{TTL: time.Hour})
	for i := range DefaultCapacity + 10 {
		_, _, err := c.Get(context.Background(), fmt.Sprint(i), func(context.Context) (int, error) { return i, nil })
		require.NoError(t, err)
	}
	require.Equal(t, DefaultCapacity, c.Len())
}

func TestSingleflight(t *testing.T) {
	const n = 64
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{TTL: time.Minute})
		release := make(chan struct{})
		var calls atomic.Int32
		load := func(context.Context) (string, error) {
			calls.Add(1)
			<-release
			return "v", nil
		}
		type out struct {
			v   string
			res Result
			err error
		}
		outs := make([]out, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				v, res, err := c.Get(context.Background(), "k", load)
				outs[i] = out{v, res, err}
			})
		}
		synctest.Wait() // every goroutine is blocked: n waiters, one or more loads
		require.EqualValues(t, 1, calls.Load(), "concurrent Gets did not share one load")
		close(release)
		wg.Wait()
		for i, o := range outs {
			require.NoError(t, o.err, "goroutine %d", i)
			require.Equal(t, "v", o.v, "goroutine %d", i)
			require.Equal(t, Miss, o.res, "goroutine %d", i)
		}
		_, res, _ := c.Get(context.Background(), "k", mustNotLoad(t))
		require.Equal(t, Hit, res)
		require.EqualValues(t, 1, calls.Load())
	})
}

func TestSingleflightPerKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{TTL: time.Minute})
		release := make(chan struct{})
		var calls atomic.Int32
		var wg sync.WaitGroup
		for _, k := range []string{"a", "b", "a", "b"} {
			wg.Go(func() {
				v, _, err := c.Get(context.Background(), k, func(context.Context) (string, error) {
					calls.Add(1)
					<-release
					return "v-" + k, nil
				})
				assert.NoError(t, err)
				assert.Equal(t, "v-"+k, v)
			})
		}
		synctest.Wait()
		require.EqualValues(t, 2, calls.Load(), "want one load per key")
		close(release)
		wg.Wait()
	})
}

func TestStaleOnError(t *testing.T) {
	t.Run("within StaleFor and not beyond", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, StaleFor: 30 * time.Second, RetryAfter: -1, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "expired, loader fails", advance: 15 * time.Second, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "freshness not extended", advance: time.Second, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 3},
			{name: "last instant of the window", advance: 24*time.Second - time.Nanosecond, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 4},
			{name: "window over", advance: time.Nanosecond, loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 5},
			{name: "recovered", advance: time.Second, loadVal: "v2", wantVal: "v2", wantRes: Miss, wantCalls: 6},
			{name: "fresh again", advance: time.Second, loadErr: errBoom, wantVal: "v2", wantRes: Hit, wantCalls: 6},
		})
		require.Equal(t, 1, c.Len())
	})

	t.Run("stale negative entry is served as not found", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: 5 * time.Second, StaleFor: 30 * time.Second, RetryAfter: -1, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "not found", loadErr: errNotFound, wantRes: Miss, wantErr: errNotFound, wantCalls: 1},
			{name: "expired, loader fails", advance: 10 * time.Second, loadErr: errBoom, wantRes: Stale, wantErr: errNotFound, wantCalls: 2},
			{name: "window over", advance: 25 * time.Second, loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 3},
		})
	})

	t.Run("not found during the window is not an error", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, NegativeTTL: 5 * time.Second, StaleFor: 30 * time.Second, RetryAfter: -1, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "deleted", advance: 15 * time.Second, loadErr: errNotFound, wantRes: Miss, wantErr: errNotFound, wantCalls: 2},
			{name: "negative hit", advance: time.Second, loadVal: "x", wantRes: NegativeHit, wantErr: errNotFound, wantCalls: 2},
		})
	})

	t.Run("StaleFor zero never serves stale", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, NotFound: errNotFound, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "expired, loader fails", advance: 10 * time.Second, loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 2},
		})
	})

	t.Run("back-off after a failure", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, StaleFor: 30 * time.Second, RetryAfter: 2 * time.Second, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "fails", advance: 15 * time.Second, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "backing off", advance: 2*time.Second - time.Nanosecond, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "retries", advance: time.Nanosecond, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 3},
			{name: "backing off again", advance: time.Second, loadVal: "v2", wantVal: "v1", wantRes: Stale, wantCalls: 3},
			{name: "recovers", advance: time.Second, loadVal: "v2", wantVal: "v2", wantRes: Miss, wantCalls: 4},
			{name: "fresh", advance: time.Second, loadErr: errBoom, wantVal: "v2", wantRes: Hit, wantCalls: 4},
		})
	})

	t.Run("back-off never extends the window", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, StaleFor: 30 * time.Second, RetryAfter: 5 * time.Second, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "fails near the end", advance: 38 * time.Second, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "window over", advance: 2 * time.Second, loadErr: errBoom, wantRes: Miss, wantErr: errBoom, wantCalls: 3},
		})
	})

	t.Run("default back-off", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: 10 * time.Second, StaleFor: 30 * time.Second, Now: clock.Now})
		runSteps(t, c, clock, "k", []step{
			{name: "cold", loadVal: "v1", wantVal: "v1", wantRes: Miss, wantCalls: 1},
			{name: "fails", advance: 15 * time.Second, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "backing off", advance: DefaultRetryAfter - time.Nanosecond, loadErr: errBoom, wantVal: "v1", wantRes: Stale, wantCalls: 2},
			{name: "retries", advance: time.Nanosecond, loadVal: "v2", wantVal: "v2", wantRes: Miss, wantCalls: 3},
		})
	})
}

func TestCallerCancelDoesNotCancelSharedLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{TTL: time.Minute})
		release := make(chan struct{})
		var (
			calls       atomic.Int32
			loadErr     error
			hasDeadline bool
		)
		load := func(ctx context.Context) (string, error) {
			calls.Add(1)
			_, hasDeadline = ctx.Deadline()
			<-release
			loadErr = ctx.Err()
			return "v", nil
		}
		type out struct {
			v   string
			res Result
			err error
		}
		ctx, cancel := context.WithCancel(context.Background())
		first, second := make(chan out, 1), make(chan out, 1)
		go func() {
			v, res, err := c.Get(ctx, "k", load)
			first <- out{v, res, err}
		}()
		synctest.Wait() // the first Get started the load and waits for it
		go func() {
			v, res, err := c.Get(context.Background(), "k", load)
			second <- out{v, res, err}
		}()
		synctest.Wait()
		require.EqualValues(t, 1, calls.Load())

		cancel()
		synctest.Wait()
		select {
		case o := <-first:
			require.ErrorIs(t, o.err, context.Canceled)
			require.Equal(t, Miss, o.res)
			require.Empty(t, o.v)
		default:
			t.Fatal("Get did not return when its ctx was cancelled")
		}
		select {
		case o := <-second:
			t.Fatalf("the other waiter returned before the load finished: %+v", o)
		default:
		}

		close(release)
		o := <-second
		require.NoError(t, o.err)
		require.Equal(t, "v", o.v)
		require.Equal(t, Miss, o.res)
		require.NoError(t, loadErr, "the shared load's ctx was cancelled with its first caller")
		require.False(t, hasDeadline, "load has a deadline its caller did not set")

		v, res, err := c.Get(context.Background(), "k", mustNotLoad(t))
		require.NoError(t, err)
		require.Equal(t, Hit, res, "the load did not fill the cache")
		require.Equal(t, "v", v)
		require.EqualValues(t, 1, calls.Load())
	})
}

func TestSharedLoadKeepsFirstCallersDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{TTL: time.Minute, StaleFor: time.Minute})
		var (
			calls        atomic.Int32
			loadDeadline time.Time
		)
		load := func(ctx context.Context) (string, error) {
			calls.Add(1)
			loadDeadline, _ = ctx.Deadline()
			<-ctx.Done()
			return "", fmt.Errorf("get item: %w", ctx.Err())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		want, _ := ctx.Deadline()
		start := time.Now()
		var wg sync.WaitGroup
		var firstErr, joinErr error
		wg.Go(func() { _, _, firstErr = c.Get(ctx, "k", load) })
		synctest.Wait()
		wg.Go(func() { _, _, joinErr = c.Get(context.Background(), "k", load) })
		wg.Wait()

		require.EqualValues(t, 1, calls.Load())
		require.True(t, loadDeadline.Equal(want), "load deadline %v, want %v", loadDeadline, want)
		require.ErrorIs(t, firstErr, context.DeadlineExceeded)
		require.ErrorIs(t, joinErr, context.DeadlineExceeded, "the joiner gets the load's error")
		require.Equal(t, 2*time.Second, time.Since(start))
		require.Zero(t, c.Len())
	})
}

func TestCancelledCallerDoesNotStartLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New[string](Options{TTL: time.Minute})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var l stubLoader
		_, res, err := c.Get(ctx, "k", l.load)
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, Miss, res)
		synctest.Wait() // a load started in the background would have run by now
		require.Zero(t, l.calls.Load())
		require.Zero(t, c.Len())
	})
}

func TestInvalidate(t *testing.T) {
	t.Run("drops the entry", func(t *testing.T) {
		clock := newClock()
		c := New[string](Options{TTL: time.Minute, NegativeTTL: time.Minute, NotFound: errNotFound, Now: clock.Now})
		var l stubLoader
		l.val = "v1"
		_, _, err := c.Get(context.Background(), "k", l.load)
		require.NoError(t, err)
		_, _, err = c.Get(context.Background(), "other", l.load)
		require.NoError(t, err)
		require.Equal(t, 2, c.Len())

		c.Invalidate("k")
		c.Invalidate("never-seen")
		require.Equal(t, 1, c.Len())
		require.Equal(t, []string{"other"}, keys(t, c))

		l.val = "v2"
		v, res, err := c.Get(context.Background(), "k", l.load)
		require.NoError(t, err)
		require.Equal(t, Miss, res)
		require.Equal(t, "v2", v)
		require.EqualValues(t, 3, l.calls.Load())

		_, res, _ = c.Get(context.Background(), "other", mustNotLoad(t))
		require.Equal(t, Hit, res)
	})

	t.Run("a load in flight is neither cached nor joined", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := New[string](Options{TTL: time.Minute})
			relOld, relNew := make(chan struct{}), make(chan struct{})
			var oldV, newV string
			var wg sync.WaitGroup
			wg.Go(func() {
				oldV, _, _ = c.Get(context.Background(), "k", func(context.Context) (string, error) {
					<-relOld
					return "old", nil
				})
			})
			synctest.Wait()
			c.Invalidate("k")
			wg.Go(func() {
				newV, _, _ = c.Get(context.Background(), "k", func(context.Context) (string, error) {
					<-relNew
					return "new", nil
				})
			})
			synctest.Wait()
			close(relNew) // the newer load finishes first
			synctest.Wait()
			close(relOld)
			wg.Wait()
			require.Equal(t, "old", oldV, "waiters of the invalidated load get its answer")
			require.Equal(t, "new", newV, "a Get after Invalidate joined the old load")

			v, res, err := c.Get(context.Background(), "k", mustNotLoad(t))
			require.NoError(t, err)
			require.Equal(t, Hit, res)
			require.Equal(t, "new", v, "the invalidated load overwrote the newer value")
		})
	})
}

func TestLoaderPanic(t *testing.T) {
	c := New[string](Options{TTL: time.Minute})
	_, res, err := c.Get(context.Background(), "k", func(context.Context) (string, error) { panic("boom") })
	require.ErrorIs(t, err, ErrLoaderPanic)
	require.ErrorContains(t, err, "boom")
	require.Equal(t, Miss, res)
	require.Zero(t, c.Len())

	_, _, err = c.Get(context.Background(), "k", func(context.Context) (string, error) {
		runtime.Goexit()
		return "", nil
	})
	require.ErrorIs(t, err, ErrLoaderPanic)

	v, res, err := c.Get(context.Background(), "k", func(context.Context) (string, error) { return "v", nil })
	require.NoError(t, err)
	require.Equal(t, Miss, res)
	require.Equal(t, "v", v)
}

func TestGetKeyed(t *testing.T) {
	c := New[string](Options{TTL: time.Minute})
	var calls atomic.Int32
	load := func(_ context.Context, key string) (string, error) {
		calls.Add(1)
		return "v-" + key, nil
	}
	for range 2 {
		for _, k := range []string{"a", "b"} {
			v, _, err := c.GetKeyed(context.Background(), k, load)
			require.NoError(t, err)
			require.Equal(t, "v-"+k, v)
		}
	}
	require.EqualValues(t, 2, calls.Load())
}

func TestResultString(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Miss, "miss"},
		{Hit, "hit"},
		{NegativeHit, "negative_hit"},
		{Stale, "stale"},
		{Result(42), "result(42)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
	}
	var zero Result
	assert.Equal(t, Miss, zero)
}

// TestConcurrentStress mixes Gets, Invalidates, expiries, failures and
// evictions from many goroutines; run it with -race. Every answer must
// belong to the key asked for, and the list must agree with the map.
func TestConcurrentStress(t *testing.T) {
	clock := newClock()
	c := New[string](Options{
		Capacity: 16, TTL: 50 * time.Millisecond, NegativeTTL: 20 * time.Millisecond,
		Jitter: 0.5, StaleFor: 100 * time.Millisecond, RetryAfter: 5 * time.Millisecond,
		NotFound: errNotFound, Now: clock.Now,
	})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 3000 {
				key := fmt.Sprint("k", rng.IntN(40))
				switch n := rng.IntN(100); {
				case n < 2:
					c.Invalidate(key)
				case n < 5:
					clock.Advance(time.Duration(rng.IntN(10)) * time.Millisecond)
				default:
					outcome := rng.IntN(10)
					ctx := context.Background()
					if outcome == 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithCancel(ctx)
						cancel()
					}
					v, res, err := c.Get(ctx, key, func(context.Context) (string, error) {
						switch outcome {
						case 1:
							return "", errNotFound
						case 2:
							return "", errBoom
						}
						return "v-" + key, nil
					})
					switch {
					case res == Hit || (res == Stale && err == nil) || (res == Miss && err == nil):
						if v != "v-"+key {
							t.Errorf("Get(%q) = %q, %v", key, v, res)
							return
						}
					case res == NegativeHit || res == Stale:
						if !errors.Is(err, errNotFound) {
							t.Errorf("Get(%q) = %v, %v", key, res, err)
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	keys(t, c)
	// Loads whose callers gave up may still be finishing.
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.inflight) == 0
	}, 5*time.Second, time.Millisecond)
}
