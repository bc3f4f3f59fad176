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
)

// Purger invalidates the edge after a change that is already saved. A
// failure is logged and counted, never returned: a 5xx would tell the
// client its change failed when it did not, and its retry would then fail
// its If-Match (412), find the link gone (404) or the alias taken (409).
// What a failure costs is freshness: the edge may serve the old answer
// until the redirect's s-maxage runs out, which is what the
// EdgeInvalidationFailures metric alarms on.
type Purger struct {
	Edge Invalidator
	// Timeout bounds the wait; DefaultPurgeTimeout when zero.
	Timeout time.Duration
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Purge invalidates paths. The request's own cancellation must not skip
// the invalidation of a saved change; the timeout, kept within the Lambda
// deadline, bounds it instead.
func (p Purger) Purge(ctx context.Context, requestID string, paths ...string) {
	if p.Edge == nil || len(paths) == 0 {
		return
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
	p.Metrics.Add(MetricPaths, metrics.Count, float64(len(paths)))
	if err := p.Edge.Invalidate(pctx, paths...); err != nil {
		p.Metrics.Add(MetricFailures, metrics.Count, 1)
		p.Log.ErrorContext(ctx, "edge invalidation failed; the change is saved, the edge may serve the old answer until its s-maxage ends",
			"paths", paths, "error", err.Error(), "request_id", requestID)
	}
}
