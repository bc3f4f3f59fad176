package edgecache

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Invalidation is one recorded Invalidate call.
type Invalidation struct {
	At    time.Time
	Paths []string // cleaned, as CloudFront would receive them
}

// Recorder is an in-memory invalidator. It records every invalidation with
// its time and hands its paths to subscribers, synchronously: when
// Invalidate returns, every subscriber has seen the paths. The local run's
// CloudFront emulator subscribes and completes each invalidation some
// seconds later, as CloudFront does. It is safe for concurrent use.
type Recorder struct {
	now func() time.Time

	// deliver serialises recording and delivery, so subscribers see the
	// invalidations one at a time and in the order they were recorded.
	deliver sync.Mutex
	mu      sync.Mutex // guards log and subs
	log     []Invalidation
	subs    []func(paths []string)
}

// NewRecorder returns an empty recorder that stamps invalidations with now
// (time.Now when nil).
func NewRecorder(now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{now: now}
}

// OnInvalidate subscribes f to every later invalidation. f gets its own
// copy of the paths, is called once per Invalidate with every path of that
// call, never concurrently with another subscriber call, and must not call
// Invalidate itself. A path ending in "*" is a prefix: the emulator should
// drop every cached path that starts with the rest.
func (r *Recorder) OnInvalidate(f func(paths []string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs = append(r.subs, f)
}

// Invalidate records paths, cleaned and deduplicated as CloudFront's
// invalidator would send them, and hands them to the subscribers. An
// invalid path or an ended ctx records nothing.
func (r *Recorder) Invalidate(ctx context.Context, paths ...string) error {
	clean, err := request(ctx, paths)
	if err != nil || len(clean) == 0 {
		return err
	}
	r.deliver.Lock()
	defer r.deliver.Unlock()
	r.mu.Lock()
	r.log = append(r.log, Invalidation{At: r.now(), Paths: clean})
	subs := slices.Clone(r.subs)
	r.mu.Unlock()
	for _, f := range subs {
		f(slices.Clone(clean))
	}
	return nil
}

// Invalidations returns every invalidation recorded so far, oldest first.
func (r *Recorder) Invalidations() []Invalidation {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Invalidation, len(r.log))
	for i, inv := range r.log {
		out[i] = Invalidation{At: inv.At, Paths: slices.Clone(inv.Paths)}
	}
	return out
}

// Paths returns every path recorded so far, in order, repeats included.
func (r *Recorder) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, inv := range r.log {
		out = append(out, inv.Paths...)
	}
	return out
}
