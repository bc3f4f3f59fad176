package edgecache

import (
	"context"
	"log/slog"
	"time"

	"github.com/shortlink-dev/shortener/shared/metrics"
)

// Invalidator drops paths from the edge caches: CloudFront in AWS, a
// Recorder in tests and the local run.
type Invalidator interface {
	Invalidate(ctx context.Context, paths ...string) error
}

// DefaultPurgeTimeout bounds the wait for an invalidation after a change.
const DefaultPurgeTimeout = 3 * time.Second

// responseMargin is kept free of the Lambda deadline for the answer, so a
// slow invalidation never turns a saved change into a timeout.
const responseMargin = 250 * time.Millisecond

// Metric names a Purger counts under.
const (
	MetricPaths    = "EdgeInvalidationPaths"
	MetricFailures = "EdgeInvalidationFailures"
	// MetricSkipped counts the invalidations not sent because no edge
	// could hold the paths (Purger.Held), and MetricHeldErrors the checks
	// that failed, after which the invalidation was sent.
	MetricSkipped    = "InvalidationSkipped"
	MetricHeldErrors = "EdgeMarkReadFailures"
)

// Purger invalidates the edge after a change that is already saved,
// Settle after it was saved. A
// failure is logged and counted, never returned: a 5xx would tell the
// client its change failed when it did not, and its retry would then fail
// its If-Match (412), find the link gone (404) or the alias taken (409).
// What a failure costs is freshness: the edge may serve the old answer
// until the redirect's s-maxage runs out, which is what the
// EdgeInvalidationFailures metric alarms on.
//
// Settle is why the invalidation is not sent at once: a redirect that read
// the link just before the change may be on its way to the edge with the
// old answer and the full edge TTL, and an invalidation that completed
// before it arrived would leave it there for a day. The redirect gives the
// full TTL only to data read within config.FreshRead, so an invalidation
// sent Settle (more than FreshRead) after the change is sent after every
// such answer has reached the edge, and removes it (docs/lifecycle.md).
type Purger struct {
	Edge Invalidator
	// Settle is how long after the change to send the invalidation
	// (config.InvalidationSettle); zero sends it at once.
	Settle time.Duration
	// Sleep waits out Settle; time.Sleep when nil. It is not cut short by
	// the request's cancellation, since the change is saved.
	Sleep func(time.Duration)
	// Timeout bounds the wait for the invalidation itself;
	// DefaultPurgeTimeout when zero.
	Timeout time.Duration
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Held, when set, is asked once Settle has passed whether an edge may
	// still hold an answer for the paths (shared/edgemarks): false, with
	// no error, skips the invalidation. An error sends it (fail safe), and
	// so does a Settle the deadline cut short, without asking. The
	// management API learns the answer when it fences the marks, before
	// Settle, and Held hands it over.
	Held func(ctx context.Context) (bool, error)
}

// minInvalidateRoom is the least time kept for the CreateInvalidation call
// when the Lambda deadline leaves no room for the whole Settle.
const minInvalidateRoom = time.Second

// Purge waits Settle, then invalidates paths, unless Held says no edge
// holds them. The request's own
// cancellation must not skip the invalidation of a saved change; the
// timeout, kept within the Lambda deadline, bounds it instead. A deadline
// too close for the whole Settle shortens it, with a warning: the
// invalidation still goes, and only the race Settle guards against is
// left open.
func (p Purger) Purge(ctx context.Context, requestID string, paths ...string) {
	if p.Edge == nil || len(paths) == 0 {
		return
	}
	ask := p.Held
	if settle := p.Settle; settle > 0 {
		if deadline, ok := ctx.Deadline(); ok {
			room := time.Until(deadline) - responseMargin - minInvalidateRoom
			if room < settle {
				settle = max(room, 0)
				// A mark of an answer read before the change may not be
				// durable yet: invalidate without asking.
				ask = nil
				p.Log.WarnContext(ctx, "edge invalidation sent before its settle time: too close to the deadline",
					"settle", p.Settle.String(), "waited", settle.String(), "paths", paths, "request_id", requestID)
			}
		}
		sleep := p.Sleep
		if sleep == nil {
			sleep = time.Sleep
		}
		sleep(settle)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultPurgeTimeout
	}
	if deadline, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(deadline)-responseMargin, 0))
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if ask != nil {
		held, err := ask(pctx)
		if err != nil {
			p.Metrics.Add(MetricHeldErrors, metrics.Count, 1)
			p.Log.WarnContext(ctx, "edge marks not read; invalidating", "paths", paths, "error", err.Error(), "request_id", requestID)
		}
		if !held && err == nil {
			p.Metrics.Add(MetricSkipped, metrics.Count, 1)
			return
		}
	}
	p.Metrics.Add(MetricPaths, metrics.Count, float64(len(paths)))
	if err := p.Edge.Invalidate(pctx, paths...); err != nil {
		p.Metrics.Add(MetricFailures, metrics.Count, 1)
		p.Log.ErrorContext(ctx, "edge invalidation failed; the change is saved, the edge may serve the old answer until its s-maxage ends",
			"paths", paths, "error", err.Error(), "request_id", requestID)
	}
}
