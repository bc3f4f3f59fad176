package redirectcache

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// DefaultCapacity is the number of entries a Cache holds when
// Options.Capacity is not positive.
const DefaultCapacity = 10_000

// DefaultRetryAfter is the back-off used when Options.RetryAfter is zero.
const DefaultRetryAfter = time.Second

// ErrLoaderPanic is wrapped by the error a Get returns when the loader
// panicked or called runtime.Goexit. The panic does not escape the shared
// load's goroutine, and nothing is cached.
var ErrLoaderPanic = errors.New("redirectcache: loader panicked")

var errGoexit = fmt.Errorf("%w: runtime.Goexit", ErrLoaderPanic)

// Options configures a Cache. The zero value is usable but caches nothing
// fresh (TTL 0): set TTL and NegativeTTL.
type Options struct {
	// Capacity is the maximum number of entries, positive and negative,
	// fresh or kept for stale serving. The least recently used entry is
	// evicted beyond it. Not positive: DefaultCapacity.
	Capacity int
	// TTL is how long a loaded value is served without asking the loader
	// again. Not positive: values are never fresh, every Get loads (shared
	// between concurrent callers), and the values are kept for stale serving.
	TTL time.Duration
	// NegativeTTL is how long a "not found" is remembered (5-30 s). Not
	// positive: misses are not remembered as fresh.
	NegativeTTL time.Duration
	// Jitter, in [0, 1], shortens each entry's lifetime by a random
	// fraction: it is drawn uniformly from [TTL*(1-Jitter), TTL]. It never
	// lengthens it. Values outside [0, 1] are clamped.
	Jitter float64
	// StaleFor is how long past its expiry an entry may still be served
	// when the loader fails with an error other than NotFound. Not
	// positive: never.
	StaleFor time.Duration
	// RetryAfter is, after a failed load that served a stale entry, how long
	// further Gets for that key serve it without calling the loader. It
	// never extends the stale window. Zero: DefaultRetryAfter; negative:
	// every Get retries the loader.
	RetryAfter time.Duration
	// NotFound is the sentinel by which the loader says the key does not
	// exist (link.ErrNotFound): a load error e with errors.Is(e, NotFound)
	// is cached as a negative entry and returned as is. Nil: nothing is
	// negative-cached.
	NotFound error
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// Rand returns a number in [0, 1) for jitter. Nil: math/rand/v2.Float64.
	Rand func() float64
}

// Result says how a Get was answered, for metrics and logs.
type Result uint8

const (
	// Miss: the value or error comes from the loader (called by this Get
	// or shared with a concurrent one), or the Get gave up (ctx ended).
	Miss Result = iota
	// Hit: a fresh positive entry.
	Hit
	// NegativeHit: a fresh negative entry; the error matches NotFound.
	NegativeHit
	// Stale: the loader failed and an expired entry was served within
	// StaleFor. A stale negative entry is served as its not-found error.
	Stale
)

// String returns a lower-case name fit for a metric dimension or a log field.
func (r Result) String() string {
	switch r {
	case Miss:
		return "miss"
	case Hit:
		return "hit"
	case NegativeHit:
		return "negative_hit"
	case Stale:
		return "stale"
	default:
		return fmt.Sprintf("result(%d)", uint8(r))
	}
}

// Cache is a bounded, concurrency-safe LRU cache with TTLs, negative
// caching, shared loads and stale-on-error. Create it with New.
type Cache[V any] struct {
	mu       sync.Mutex
	items    map[string]*entry[V]
	lru      entry[V] // sentinel: lru.next is the most, lru.prev the least recently used
	inflight map[string]*call[V]

	capacity   int
	ttl        time.Duration
	negTTL     time.Duration
	jitter     float64
	staleFor   time.Duration
	retryAfter time.Duration
	notFound   error
	now        func() time.Time
	rand       func() float64
}

type entry[V any] struct {
	key string
	val V
	// err is nil for a positive entry; for a negative one, the loader's
	// not-found error, returned as is, with the value the loader returned
	// beside it (what the caller needs to know about the miss, such as
	// when it was read).
	err        error
	expires    time.Time // fresh while now is before it
	staleUntil time.Time // servable on load errors while now is before it
	retryAt    time.Time // after a failed load, serve stale without loading until then
	prev, next *entry[V]
}

// call is one shared load. Its result fields are written before done is
// closed and read only after.
type call[V any] struct {
	done chan struct{}
	val  V
	res  Result
	err  error
}

// New returns an empty cache configured by opts.
func New[V any](opts Options) *Cache[V] {
	c := &Cache[V]{
		items:      make(map[string]*entry[V]),
		inflight:   make(map[string]*call[V]),
		capacity:   opts.Capacity,
		ttl:        opts.TTL,
		negTTL:     opts.NegativeTTL,
		jitter:     opts.Jitter,
		staleFor:   max(opts.StaleFor, 0),
		retryAfter: opts.RetryAfter,
		notFound:   opts.NotFound,
		now:        opts.Now,
		rand:       opts.Rand,
	}
	if c.capacity <= 0 {
		c.capacity = DefaultCapacity
	}
	if !(c.jitter > 0) { // also NaN
		c.jitter = 0
	}
	c.jitter = min(c.jitter, 1)
	if c.retryAfter == 0 {
		c.retryAfter = DefaultRetryAfter
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
	return c
}

// Get returns the value for key, from the cache or from load.
//
//   - fresh positive entry: value, Hit, nil;
//   - fresh negative entry: the value the loader returned with its
//     not-found error (often zero), NegativeHit, that error;
//   - otherwise load is called, once for all concurrent Gets of key, with a
//     context that ignores ctx's cancellation but keeps its deadline (the
//     deadline of the Get that started the load). A value is cached and
//     returned with Miss; an error matching NotFound is cached as a
//     negative entry, with the value the loader returned beside it, and
//     both are returned with Miss; any other error serves an expired entry
//     within StaleFor with Stale (its value, and its not-found error if
//     the entry is negative, else a nil error), or is returned with Miss.
//
// If ctx ends before the shared load does, Get returns zero, Miss,
// ctx.Err(), and the load goes on to fill the cache. A Get whose ctx has
// already ended does not start a load.
func (c *Cache[V]) Get(ctx context.Context, key string, load func(ctx context.Context) (V, error)) (V, Result, error) {
	return c.get(ctx, key, load, nil)
}

// GetKeyed is Get with a loader that receives the key. Since that loader
// needs no per-request state it can be built once, so a hit allocates
// nothing; Get's loader usually captures the key and costs its caller an
// allocation per call.
func (c *Cache[V]) GetKeyed(ctx context.Context, key string, load func(ctx context.Context, key string) (V, error)) (V, Result, error) {
	return c.get(ctx, key, nil, load)
}

func (c *Cache[V]) get(ctx context.Context, key string,
	load func(context.Context) (V, error),
	loadKeyed func(context.Context, string) (V, error),
) (V, Result, error) {
	now := c.now()
	c.mu.Lock()
	if e := c.items[key]; e != nil {
		if now.Before(e.expires) {
			c.touch(e)
			v, err := e.val, e.err
			c.mu.Unlock()
			if err != nil {
				return v, NegativeHit, err
			}
			return v, Hit, nil
		}
		if now.Before(e.retryAt) && now.Before(e.staleUntil) {
			c.touch(e)
			v, err := e.val, e.err
			c.mu.Unlock()
			return v, Stale, err
		}
	}
	cl := c.inflight[key]
	if cl == nil {
		if err := ctx.Err(); err != nil {
			c.mu.Unlock()
			var zero V
			return zero, Miss, err
		}
		cl = &call[V]{done: make(chan struct{})}
		c.inflight[key] = cl
		go c.load(ctx, key, cl, now, load, loadKeyed)
	}
	c.mu.Unlock()

	select {
	case <-cl.done:
		return cl.val, cl.res, cl.err
	case <-ctx.Done():
		select {
		case <-cl.done: // both ready: prefer the answer
			return cl.val, cl.res, cl.err
		default:
		}
		var zero V
		return zero, Miss, ctx.Err()
	}
}

// load runs a shared load in its own goroutine and publishes its outcome.
// start is when the Get that began it looked at the clock: entries count
// their lifetime from there, since the loaded value is at least that fresh.
func (c *Cache[V]) load(parent context.Context, key string, cl *call[V], start time.Time,
	load func(context.Context) (V, error),
	loadKeyed func(context.Context, string) (V, error),
) {
	ctx := context.WithoutCancel(parent)
	if deadline, ok := parent.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	var (
		val V
		err = errGoexit
	)
	// Deferred so that waiters are released even if the loader calls
	// runtime.Goexit (t.FailNow in a test loader, for one).
	defer func() { c.finish(key, cl, start, val, err) }()
	val, err = invoke(ctx, key, load, loadKeyed)
}

func invoke[V any](ctx context.Context, key string,
	load func(context.Context) (V, error),
	loadKeyed func(context.Context, string) (V, error),
) (val V, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero V
			val, err = zero, fmt.Errorf("%w: %v", ErrLoaderPanic, r)
		}
	}()
	if loadKeyed != nil {
		return loadKeyed(ctx, key)
	}
	return load(ctx)
}

func (c *Cache[V]) finish(key string, cl *call[V], start time.Time, val V, err error) {
	var end time.Time
	if err != nil && !c.isNotFound(err) {
		end = c.now() // only stale serving needs the time the load failed
	}
	c.mu.Lock()
	// An Invalidate during the load dropped cl from inflight: its answer
	// still goes to its waiters but may predate the change, so it is not
	// cached.
	current := c.inflight[key] == cl
	if current {
		delete(c.inflight, key)
	}
	cl.res = Miss
	switch {
	case err == nil:
		cl.val = val
		if current {
			c.store(key, val, nil, start, c.ttl)
		}
	case c.isNotFound(err):
		cl.val, cl.err = val, err
		if current {
			c.store(key, val, err, start, c.negTTL)
		}
	default:
		cl.err = err
		if e := c.items[key]; e != nil && end.Before(e.staleUntil) {
			cl.val, cl.err, cl.res = e.val, e.err, Stale
			c.touch(e)
			if current && c.retryAfter > 0 {
				e.retryAt = end.Add(c.retryAfter)
			}
		}
	}
	c.mu.Unlock()
	close(cl.done)
}

func (c *Cache[V]) isNotFound(err error) bool {
	return c.notFound != nil && errors.Is(err, c.notFound)
}

// lifetime draws an entry's lifetime from [ttl*(1-jitter), ttl].
func (c *Cache[V]) lifetime(ttl time.Duration) time.Duration {
	if ttl <= 0 || c.jitter == 0 {
		return ttl
	}
	r := c.rand()
	if !(r >= 0) { // also NaN
		r = 0
	}
	r = min(r, 1)
	cut := c.jitter * r * float64(ttl)
	if cut >= float64(math.MaxInt64) {
		return 0
	}
	return ttl - time.Duration(cut) // truncation keeps it within [ttl*(1-jitter), ttl]
}

// store caches val (err == nil) or a negative entry, loaded at start. c.mu is held.
func (c *Cache[V]) store(key string, val V, err error, start time.Time, ttl time.Duration) {
	expires := start.Add(c.lifetime(ttl))
	e := c.items[key]
	if e == nil {
		e = &entry[V]{key: key}
		c.items[key] = e
		c.pushFront(e)
		if len(c.items) > c.capacity {
			c.remove(c.lru.prev)
		}
	} else {
		c.touch(e)
	}
	e.val, e.err = val, err
	e.expires = expires
	e.staleUntil = expires.Add(c.staleFor)
	e.retryAt = time.Time{}
}

// Invalidate drops key's entry, and makes a load in flight for key neither
// cached nor joined by later Gets: the next Get loads afresh.
func (c *Cache[V]) Invalidate(key string) {
	c.mu.Lock()
	if e := c.items[key]; e != nil {
		c.remove(e)
	}
	delete(c.inflight, key)
	c.mu.Unlock()
}

// Len returns the number of entries held, expired ones kept for stale
// serving included.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// List operations; c.mu is held.

func (c *Cache[V]) pushFront(e *entry[V]) {
	e.prev, e.next = &c.lru, c.lru.next
	e.prev.next, e.next.prev = e, e
}

func (c *Cache[V]) touch(e *entry[V]) {
	if c.lru.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	c.pushFront(e)
}

func (c *Cache[V]) remove(e *entry[V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	delete(c.items, e.key)
}
