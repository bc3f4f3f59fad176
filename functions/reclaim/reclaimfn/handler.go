// Package reclaimfn is the reclaim function, the task of the reclaim state
// machine (shared/reclaimflow). It keeps the expiry lifecycle moving:
//
//  1. expiry: links whose expiry has passed become their tombstones, in
//     place, so an expired code never disappears. The link's TTL attribute
//     lies a day after its expiry (dynamo.DefaultPurgeDelay), so this
//     runs long before DynamoDB's TTL could remove the link; ttlstream, fed
//     by a TTL removal, is only the backstop. Without it the code would be
//     absent between the TTL removal and ttlstream's tombstone: answered
//     404 rather than 410, and open to re-registration without grace;
//  2. release: tombstones whose grace has passed are deleted, so their
//     codes can be issued again.
//
// It says whether more may be due. The Lambda in functions/reclaim and the
// local run (through reclaimflow.Run) invoke this same handler.
//
// With versioned cache keys (EDGE_VERSION_KEYS), the invocation that
// finds nothing more due, the last of a run, then sweeps the edge's key
// value store of the link versions no answer at the edge can be cached
// under any more (edgeversion.Sweeper), within SweepBudget of its own: so
// the store, which gains a key for each changed path, stays bounded, once
// a run (the reclaim schedule, hourly as deployed). A sweep that fails or
// runs out of time is logged and counted, and fails nothing: what it
// leaves the next run's sweep finds again.
//
// One invocation lists due items through the sparse indexes in batches
// (never a scan) and handles each with bounded parallelism, expiries
// first. It keeps going until a batch comes back short (nothing more is
// due), MaxBatches batches of a step are done, or its time runs out:
// Budget after it started, or Margin before the Lambda deadline, whichever
// is first. Stopping early answers more: true and the state machine
// invokes it again; so a backlog of any size is drained in steps that
// never meet the Lambda timeout. The indexes are eventually consistent, so
// a listing may still show codes handled a moment ago; an invocation
// handles each code once.
//
// Every write is conditional: a tombstone only over a link that has
// expired, a release only of a tombstone still due. So an invocation
// retried by the state machine, two overlapping runs, a link extended or a
// code re-issued meanwhile never lose or double anything; only what
// happened is counted.
package reclaimfn

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
)

// Store is what reclaim needs of the link store.
type Store interface {
	ExpiredLinks(ctx context.Context, now time.Time, limit int) ([]linkstore.Expired, error)
	Tombstone(ctx context.Context, t link.Tombstone) (written bool, err error)
	DueTombstones(ctx context.Context, now time.Time, limit int) ([]string, error)
	Release(ctx context.Context, code string, now time.Time) (released bool, err error)
}

// Defaults for the Handler's zero fields.
const (
	DefaultBatchSize   = 200
	DefaultParallelism = 8
	// DefaultBudget keeps each invocation short, so progress is reported
	// (and counted by the state machine) at least once a minute.
	DefaultBudget = time.Minute
	// DefaultMargin leaves room before the Lambda deadline for the
	// writes in flight (each bounded by the store's call timeout) and the
	// answer.
	DefaultMargin = 10 * time.Second
)

// indexLag is the pause before listing again when a listing held only
// codes already handled: GSIs typically catch up within a second.
const indexLag = 200 * time.Millisecond

// Metric names.
const (
	// MetricExpired counts links turned into their tombstones.
	MetricExpired = "LinkExpired"
	// MetricExpirySkipped counts expired links that were no longer
	// expired links when their turn came: tombstoned by an overlapping
	// run or by ttlstream, extended, or listed from a lagging index.
	MetricExpirySkipped = "ExpirySkipped"
	MetricReleased      = "TombstoneReleased"
	// MetricSkipped counts due tombstones that were no longer releasable
	// when their turn came: released by an overlapping run, re-issued, or
	// listed from a lagging index.
	MetricSkipped = "ReleaseSkipped"
	// MetricFailed counts failed writes of either step.
	MetricFailed = "ReleaseFailed"

	// The version sweep's (Options.Versions) counts: the keys listed (the
	// store's size, when the sweep was complete), deleted, kept (younger
	// than the edge life and margin), left with a value that is no
	// version, and left by a failed or conflicting delete; and 1 for a
	// sweep that did not get through the store (failed, or out of time
	// or keys).
	MetricVersionsListed      = "VersionKeysListed"
	MetricVersionsSwept       = "VersionKeysSwept"
	MetricVersionsKept        = "VersionKeysKept"
	MetricVersionsUnparsable  = "VersionKeysUnparsable"
	MetricVersionsFailed      = "VersionKeysFailed"
	MetricVersionSweepPartial = "VersionSweepIncomplete"
)

// DefaultSweepBudget bounds one version sweep: with the reclaim steps'
// minute and the margins it fits the function's five minutes. Listing for
// three quarters of it at some 30 ms a ListKeys page of 50 (not measured)
// gets through about 150,000 keys; the sweep keeps some 73,000 at the
// seed (docs/cost-model.md, "Versioned cache keys").
const DefaultSweepBudget = 2 * time.Minute

// Options are what New builds a Handler from: the store, the grace and the
// bounds of one invocation.
type Options struct {
	Store Store
	// Grace is how long a tombstone written here holds its code
	// (link.DefaultTombstoneGrace when zero): the same as ttlstream's.
	Grace time.Duration
	// Now reads the clock that decides what is due; time.Now when nil.
	Now func() time.Time
	// BatchSize is how many due codes one listing asks for
	// (DefaultBatchSize when zero).
	BatchSize int
	// Parallelism bounds the writes in flight (DefaultParallelism when zero).
	Parallelism int
	// MaxBatches bounds the batches of each step of one invocation; 0
	// means as many as the time allows.
	MaxBatches int
	// Budget is how long one invocation keeps starting writes
	// (DefaultBudget when zero).
	Budget time.Duration
	// Margin: no write starts closer than this to the Lambda deadline
	// (DefaultMargin when zero).
	Margin time.Duration
	// Versions, when set, sweeps the edge's key value store of old link
	// versions after the invocation that finds nothing more due.
	// SweepBudget bounds the sweep (DefaultSweepBudget when zero), Margin
	// before the deadline still kept.
	Versions    *edgeversion.Sweeper
	SweepBudget time.Duration
	// Log gets one line per invocation; slog.Default() when nil.
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Handler tombstones expired links and releases due tombstones.
type Handler struct {
	Options
}

// New builds a handler from o, every unset setting at its default, so the
// steps read settings rather than defaults.
func New(o Options) *Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Log = cmp.Or(o.Log, slog.Default())
	o.BatchSize = orDefault(o.BatchSize, DefaultBatchSize)
	o.Parallelism = orDefault(o.Parallelism, DefaultParallelism)
	o.Budget = orDefault(o.Budget, DefaultBudget)
	o.Margin = orDefault(o.Margin, DefaultMargin)
	o.SweepBudget = orDefault(o.SweepBudget, DefaultSweepBudget)
	return &Handler{Options: o}
}

// step is one of the invocation's two sweeps: list what is due, act on
// each item with a conditional write; code names an item.
type step[T any] struct {
	list func(ctx context.Context, now time.Time, limit int) ([]T, error)
	code func(T) string
	act  func(ctx context.Context, item T, now time.Time) (bool, error)
}

// Handle runs one invocation.
func (h *Handler) Handle(ctx context.Context, in reclaimflow.Input) (reclaimflow.Output, error) {
	started := time.Now()
	stopAt := started.Add(h.Budget)
	if deadline, ok := ctx.Deadline(); ok {
		if !started.Before(deadline.Add(-h.Margin)) {
			return reclaimflow.Output{}, fmt.Errorf("%s left before the deadline, less than the %s margin: the function's timeout is too short",
				time.Until(deadline).Round(time.Millisecond), h.Margin)
		}
		if d := deadline.Add(-h.Margin); d.Before(stopAt) {
			stopAt = d
		}
	}

	var expired, released tally
	more, batches, err := sweep(ctx, h, h.expiry(), stopAt, &expired)
	if err == nil && !more {
		var n int
		more, n, err = sweep(ctx, h, h.release(), stopAt, &released)
		batches += n
	}

	if h.Versions != nil && err == nil && !more {
		h.sweepVersions(ctx)
	}

	h.Metrics.Add(MetricExpired, metrics.Count, float64(expired.done))
	h.Metrics.Add(MetricExpirySkipped, metrics.Count, float64(expired.skipped))
	h.Metrics.Add(MetricReleased, metrics.Count, float64(released.done))
	h.Metrics.Add(MetricSkipped, metrics.Count, float64(released.skipped))
	h.Metrics.Add(MetricFailed, metrics.Count, float64(expired.failed+released.failed))
	if ferr := h.Metrics.Flush(); ferr != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", ferr.Error())
	}
	out := reclaimflow.Output{
		Reclaimed: released.done, Total: in.Total + released.done,
		Expired: expired.done, ExpiredTotal: in.ExpiredTotal + expired.done,
		More: more,
	}
	if err != nil && released.done == 0 && expired.done == 0 {
		// Nothing to report: fail, and let the state machine's retry
		// policy decide.
		return reclaimflow.Output{}, fmt.Errorf("reclaim: %w", err)
	}
	if err != nil {
		// Report the progress; the next invocation retries the rest, and
		// fails if the error persists.
		out.More = true
		h.Log.WarnContext(ctx, "reclaim stopped early", "error", err.Error(), "failed", expired.failed+released.failed)
	}
	h.Log.InfoContext(ctx, "reclaim", "expired", out.Expired, "reclaimed", out.Reclaimed,
		"skipped", expired.skipped+released.skipped, "total", out.Total, "more", out.More, "batches", batches,
		"ms", time.Since(started).Milliseconds())
	return out, nil
}

// sweepVersions runs one version sweep until SweepBudget from now or
// Margin before the deadline, whichever is first, and logs and counts
// what it did.
func (h *Handler) sweepVersions(ctx context.Context) {
	started := time.Now()
	stopAt := started.Add(h.SweepBudget)
	if deadline, ok := ctx.Deadline(); ok && deadline.Add(-h.Margin).Before(stopAt) {
		stopAt = deadline.Add(-h.Margin)
	}
	res, err := h.Versions.Sweep(ctx, stopAt)
	h.Metrics.Add(MetricVersionsListed, metrics.Count, float64(res.Listed))
	h.Metrics.Add(MetricVersionsSwept, metrics.Count, float64(res.Swept))
	h.Metrics.Add(MetricVersionsKept, metrics.Count, float64(res.Kept))
	h.Metrics.Add(MetricVersionsUnparsable, metrics.Count, float64(res.Unparsable))
	h.Metrics.Add(MetricVersionsFailed, metrics.Count, float64(res.Failed))
	partial := 0.0
	if !res.Complete {
		partial = 1
	}
	h.Metrics.Add(MetricVersionSweepPartial, metrics.Count, partial)
	attrs := []any{"listed", res.Listed, "swept", res.Swept, "kept", res.Kept, "unparsable", res.Unparsable,
		"failed", res.Failed, "conflicts", res.Conflicts, "complete", res.Complete, "ms", time.Since(started).Milliseconds()}
	switch {
	case err != nil:
		h.Log.WarnContext(ctx, "version sweep failed; the next run sweeps again", append(attrs, "error", err.Error())...)
	case !res.Complete:
		h.Log.WarnContext(ctx, "version sweep stopped at its time or key bound; the next run goes on", attrs...)
	default:
		h.Log.InfoContext(ctx, "version sweep", attrs...)
	}
}

// expiry is the step that turns expired links into their tombstones.
func (h *Handler) expiry() step[linkstore.Expired] {
	return step[linkstore.Expired]{
		list: h.Store.ExpiredLinks,
		code: func(e linkstore.Expired) string { return e.Code },
		act: func(ctx context.Context, e linkstore.Expired, now time.Time) (bool, error) {
			return h.Store.Tombstone(ctx, link.NewTombstone(e.Code, e.Owner, link.ReasonExpired, now, h.Grace))
		},
	}
}

// release is the step that deletes due tombstones.
func (h *Handler) release() step[string] {
	return step[string]{list: h.Store.DueTombstones, code: func(c string) string { return c }, act: h.Store.Release}
}

// sweep runs one step until a listing comes back short, MaxBatches
// listings are done or the time is up; more says it stopped with work
// left.
func sweep[T any](ctx context.Context, h *Handler, s step[T], stopAt time.Time, t *tally) (more bool, batches int, err error) {
	// seen holds the codes this invocation has handled: the index is
	// eventually consistent in AWS, so the next listing may still show
	// codes just handled, and each would cost a failed conditional write.
	seen := map[string]bool{}
	for {
		now := h.Now().UTC()
		items, err := s.list(ctx, now, h.BatchSize)
		if err != nil {
			return false, batches, err
		}
		batches++
		fresh := items[:0:0]
		for _, it := range items {
			if c := s.code(it); !seen[c] {
				seen[c] = true
				fresh = append(fresh, it)
			}
		}
		if len(fresh) == 0 && len(items) > 0 {
			sleep(ctx, indexLag) // let the index catch up
		}
		stopped := run(ctx, h, s, fresh, now, stopAt, t)
		if t.failed > 0 {
			return false, batches, t.err
		}
		full := len(items) >= h.BatchSize
		if stopped || (full && (h.MaxBatches > 0 && batches >= h.MaxBatches || !time.Now().Before(stopAt))) {
			return true, batches, nil
		}
		if !full {
			return false, batches, nil
		}
	}
}

// tally counts the outcomes of one step's writes.
type tally struct {
	mu                    sync.Mutex
	done, skipped, failed int64
	err                   error
}

func (t *tally) add(done bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil:
		t.failed++
		if t.err == nil {
			t.err = err // the first says enough; the count says how many
		}
	case done:
		t.done++
	default:
		t.skipped++
	}
}

// run acts on items with at most Parallelism calls in flight, and starts
// none once stopAt has passed; stopped says it left some.
func run[T any](ctx context.Context, h *Handler, s step[T], items []T, now, stopAt time.Time, t *tally) (stopped bool) {
	work := make(chan T)
	var wg sync.WaitGroup
	for range min(h.Parallelism, len(items)) {
		wg.Go(func() {
			for it := range work {
				t.add(s.act(ctx, it, now))
			}
		})
	}
	for _, it := range items {
		if ctx.Err() != nil || !time.Now().Before(stopAt) {
			stopped = true
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
	return stopped
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
