package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// linkState is what the soak knows of one link: what its owner last did
// to it, and how many clicks (redirect answers) it received.
type linkState struct {
	code   string
	worker int // the only worker that edits or deletes it

	mu      sync.Mutex
	url     string    // latest target
	expires time.Time // from the create's answer
	deleted bool
	changed time.Time // when the latest change was sent, then answered

	clicks atomic.Int64 // 3xx answers received
}

// changing marks the link as changing from now: the server applies an edit
// or a delete seconds before it answers (the API waits out its
// invalidation settle after the write), and a redirect in that window may
// already show the new state, which is not yet the one recorded. Until the
// answer comes, and for the freshness promise after it, the link is not
// judged.
func (l *linkState) changing() {
	now := time.Now()
	l.mu.Lock()
	l.changed = now
	l.mu.Unlock()
}

// view is a consistent copy of a link's state.
type view struct {
	url     string
	expires time.Time
	deleted bool
	changed time.Time
}

func (l *linkState) view() view {
	l.mu.Lock()
	defer l.mu.Unlock()
	return view{url: l.url, expires: l.expires, deleted: l.deleted, changed: l.changed}
}

// describe says what the link was at t, for failure messages.
func (v view) describe(t time.Time) string {
	switch {
	case v.deleted:
		return fmt.Sprintf("deleted %s before", t.Sub(v.changed).Round(time.Millisecond))
	case !t.Before(v.expires):
		return fmt.Sprintf("expired %s before", t.Sub(v.expires).Round(time.Millisecond))
	}
	return fmt.Sprintf("live, changed %s before, expires in %s", t.Sub(v.changed).Round(time.Millisecond), v.expires.Sub(t).Round(time.Second))
}

// dead reports whether the link must answer 410 at t.
func (v view) dead(t time.Time) bool { return v.deleted || !t.Before(v.expires) }

// settled reports whether the link's answer at t is certain: its latest
// change is older than the freshness promise, and its expiry is not within
// a couple of seconds of t (the redirect and the soak read different
// clocks, to the second).
func (v view) settled(t time.Time) bool {
	if t.Sub(v.changed) < freshness {
		return false
	}
	d := v.expires.Sub(t)
	return v.deleted || d > 2*time.Second || d < -2*time.Second
}

// registry holds every link the soak created.
type registry struct {
	mu    sync.RWMutex
	all   []*linkState
	owned [][]*linkState // per worker: its links still live
}

func newRegistry(workers int) *registry { return &registry{owned: make([][]*linkState, workers)} }

func (r *registry) add(l *linkState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, l)
	r.owned[l.worker] = append(r.owned[l.worker], l)
}

// random returns any link, or nil when there is none.
func (r *registry) random(rng *rand.Rand) *linkState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.all) == 0 {
		return nil
	}
	return r.all[rng.IntN(len(r.all))]
}

// editable returns one of worker's links that is live and not about to
// expire, or nil; links that are no longer live are dropped from its list.
func (r *registry) editable(worker int, rng *rand.Rand, now time.Time) *linkState {
	r.mu.Lock()
	defer r.mu.Unlock()
	own := r.owned[worker]
	for len(own) > 0 {
		i := rng.IntN(len(own))
		l := own[i]
		v := l.view()
		if !v.deleted && v.expires.Sub(now) > 10*time.Second {
			return l
		}
		if v.deleted || !now.Before(v.expires) {
			own[i] = own[len(own)-1]
			own = own[:len(own)-1]
			r.owned[worker] = own
			continue
		}
		return nil // about to expire: leave it alone this time
	}
	return nil
}

func (r *registry) snapshot() []*linkState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*linkState(nil), r.all...)
}

// tally counts what happened.
type tally struct {
	creates, redirects, heads, edits, deletes, stats atomic.Int64
	status                                           [6]atomic.Int64 // by class: 2xx at 2 ...
	serverErrors                                     atomic.Int64
	transport                                        atomic.Int64 // no answer at all
	unexpected                                       atomic.Int64 // answers the API does not give for that request
	ttlGap                                           atomic.Int64 // 404 for a link expired, deleted by TTL, not yet tombstoned
	stale                                            atomic.Int64 // a settled link answered wrong during the run
	lastChange                                       atomic.Int64 // unix nanos of the latest answered change
	changes                                          atomic.Int64 // edits and deletes answered as done

	mu       sync.Mutex
	failures []string // the first few, for stderr
}

func (t *tally) fail(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failures) < 400 {
		t.failures = append(t.failures, fmt.Sprintf(format, args...))
	}
}

func (t *tally) changedAt(at time.Time) {
	for {
		old := t.lastChange.Load()
		if at.UnixNano() <= old || t.lastChange.CompareAndSwap(old, at.UnixNano()) {
			return
		}
	}
}

func (t *tally) answered(status int) {
	if c := status / 100; c >= 1 && c <= 5 {
		t.status[c].Add(1)
	}
	if status >= 500 {
		t.serverErrors.Add(1)
	}
}

func (t *tally) failureLines() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.failures, "\n")
}
