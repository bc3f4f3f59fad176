// Package handler is the reclaim function, the task of the reclaim state
// machine (shared/reclaimflow): it releases tombstones whose grace has
// passed, so their codes can be issued again, and says whether more may be
// due. The Lambda in functions/reclaim and the local run (through
// reclaimflow.Run) invoke this same handler.
//
// One invocation lists due tombstones through the sparse index in batches
// (never a scan) and releases each with bounded parallelism. It keeps going
// until a batch comes back short (nothing more is due), MaxBatches batches
// are done, or its time runs out: Budget after it started, or Margin before
// the Lambda deadline, whichever is first. Stopping early answers more:
// true and the state machine invokes it again; so a backlog of any size is
// drained in steps that never meet the Lambda timeout. The index is
// eventually consistent, so a listing may still show codes released a
// moment ago; an invocation handles each code once.
//
// Every release is conditional on the item still being a due tombstone, so
// an invocation retried by the state machine, two overlapping runs, or a
// code re-issued meanwhile never release anything twice; only releases that
// happened are counted.
package handler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
)

// Store is what reclaim needs of the link store.
type Store interface {
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
	// releases in flight (each bounded by the store's call timeout) and
	// the answer.
	DefaultMargin = 10 * time.Second
)

// indexLag is the pause before listing again when a listing held only
// codes already handled: GSIs typically catch up within a second.
const indexLag = 200 * time.Millisecond

// Metric names.
const (
	MetricReleased = "TombstoneReleased"
	// MetricSkipped counts due tombstones that were no longer releasable
	// when their turn came: released by an overlapping run, re-issued, or
	// listed from a lagging index.
	MetricSkipped = "ReleaseSkipped"
	MetricFailed  = "ReleaseFailed"
)

// Handler releases due tombstones.
type Handler struct {
	Store Store
	// Now reads the clock that decides what is due; time.Now when nil.
	Now func() time.Time
	// BatchSize is how many due codes one listing asks for
	// (DefaultBatchSize when zero).
	BatchSize int
	// Parallelism bounds the releases in flight (DefaultParallelism when zero).
	Parallelism int
	// MaxBatches bounds the batches of one invocation; 0 means as many as
	// the time allows.
	MaxBatches int
	// Budget is how long one invocation keeps starting releases
	// (DefaultBudget when zero).
	Budget time.Duration
	// Margin: no release starts closer than this to the Lambda deadline
	// (DefaultMargin when zero).
	Margin time.Duration
	// Log gets one line per invocation; slog.Default() when nil.
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Handle runs one invocation.
func (h *Handler) Handle(ctx context.Context, in reclaimflow.Input) (reclaimflow.Output, error) {
	started := time.Now()
	stopAt := started.Add(orDefault(h.Budget, DefaultBudget))
	if deadline, ok := ctx.Deadline(); ok {
		margin := orDefault(h.Margin, DefaultMargin)
		if !started.Before(deadline.Add(-margin)) {
			return reclaimflow.Output{}, fmt.Errorf("%s left before the deadline, less than the %s margin: the function's timeout is too short",
				time.Until(deadline).Round(time.Millisecond), margin)
		}
		if d := deadline.Add(-margin); d.Before(stopAt) {
			stopAt = d
		}
	}
	batchSize := h.BatchSize
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}

	var (
		tally   tally
		more    bool
		batches int
		err     error
		// seen holds the codes this invocation has handled: the index is
		// eventually consistent in AWS, so the next listing may still
		// show codes just released, and each would cost a failed
		// conditional delete.
		seen = map[string]bool{}
	)
	for {
		now := h.now()
		var codes []string
		codes, err = h.Store.DueTombstones(ctx, now, batchSize)
		if err != nil {
			break
		}
		batches++
		fresh := codes[:0:0]
		for _, c := range codes {
			if !seen[c] {
				seen[c] = true
				fresh = append(fresh, c)
			}
		}
		if len(fresh) == 0 && len(codes) > 0 {
			sleep(ctx, indexLag) // let the index catch up
		}
		stopped := h.release(ctx, fresh, now, stopAt, &tally)
		if tally.failed > 0 {
			err = tally.err
			break
		}
		full := len(codes) >= batchSize
		if stopped || (full && (h.MaxBatches > 0 && batches >= h.MaxBatches || !time.Now().Before(stopAt))) {
			more = true
			break
		}
		if !full {
			break
		}
	}

	h.Metrics.Add(MetricReleased, metrics.Count, float64(tally.released))
	h.Metrics.Add(MetricSkipped, metrics.Count, float64(tally.skipped))
	h.Metrics.Add(MetricFailed, metrics.Count, float64(tally.failed))
	if ferr := h.Metrics.Flush(); ferr != nil {
		h.log().WarnContext(ctx, "flush metrics", "error", ferr.Error())
	}
	out := reclaimflow.Output{Reclaimed: tally.released, Total: in.Total + tally.released, More: more}
	if err != nil && tally.released == 0 {
		// Nothing to report: fail, and let the state machine's retry
		// policy decide.
		return reclaimflow.Output{}, fmt.Errorf("reclaim: %w", err)
	}
	if err != nil {
		// Report the progress; the next invocation retries the rest, and
		// fails if the error persists.
		out.More = true
		h.log().WarnContext(ctx, "reclaim stopped early", "error", err.Error(), "failed", tally.failed)
	}
	h.log().InfoContext(ctx, "reclaim", "reclaimed", out.Reclaimed, "skipped", tally.skipped, "total", out.Total,
		"more", out.More, "batches", batches, "ms", time.Since(started).Milliseconds())
	return out, nil
}

// tally counts the outcomes of one invocation's releases.
type tally struct {
	mu                        sync.Mutex
	released, skipped, failed int64
	err                       error
}

func (t *tally) add(released bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil:
		t.failed++
		if t.err == nil {
			t.err = err // the first says enough; the count says how many
		}
	case released:
		t.released++
	default:
		t.skipped++
	}
}

// release releases codes with at most Parallelism calls in flight, and
// starts no release once stopAt has passed; stopped says it left some.
func (h *Handler) release(ctx context.Context, codes []string, now, stopAt time.Time, t *tally) (stopped bool) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(orDefault(h.Parallelism, DefaultParallelism), len(codes)) {
		wg.Go(func() {
			for code := range work {
				t.add(h.Store.Release(ctx, code, now))
			}
		})
	}
	for _, code := range codes {
		if ctx.Err() != nil || !time.Now().Before(stopAt) {
			stopped = true
			break
		}
		work <- code
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

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now().UTC()
	}
	return h.Now().UTC()
}

func (h *Handler) log() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}
