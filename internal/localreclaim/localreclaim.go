// Package localreclaim runs the reclaim state machine in the local run: the
// loop of shared/reclaimflow, which the deployed state machine is generated
// from, around the real reclaim handler invoked in process. The local
// gateway serves it at POST /_local/reclaim and starts it on a schedule, as
// EventBridge Scheduler starts the state machine in AWS.
package localreclaim

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/internal/localmapping"
	"github.com/shortlink-dev/shortener/internal/pace"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
)

// Func is the reclaim function's handler, such as the reclaim handler's
// Handle.
type Func func(context.Context, reclaimflow.Input) (reclaimflow.Output, error)

// Runner runs reclaims one at a time.
type Runner struct {
	fn  Func
	log *slog.Logger
	mu  sync.Mutex
}

// New returns a runner around fn; log gets one line per run (slog.Default()
// when nil).
func New(fn Func, log *slog.Logger) *Runner {
	if log == nil {
		log = slog.Default()
	}
	return &Runner{fn: fn, log: log}
}

// Run executes one reclaim run now and returns its output, the state
// machine's output in AWS. Runs do not overlap: a second waits for the
// first.
func (r *Runner) Run(ctx context.Context) (reclaimflow.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	started := time.Now()
	res, err := reclaimflow.Run(ctx, r.invoke)
	if err != nil {
		r.log.ErrorContext(ctx, "reclaim run failed", "reclaimed", res.Reclaimed, "error", err.Error())
		return res, err
	}
	r.log.InfoContext(ctx, "reclaim run", "reclaimed", res.Reclaimed, "expired", res.Expired, "more", res.More, "ms", time.Since(started).Milliseconds())
	return res, nil
}

// invoke calls the function in process as the Lambda runtime would: the
// payloads cross as JSON, exactly as in AWS, and a panic is a task failure.
func (r *Runner) invoke(ctx context.Context, in reclaimflow.Input) (reclaimflow.Output, error) {
	return localmapping.Invoke(ctx, r.fn, in)
}

// ServeHTTP answers POST with a run's output as JSON, for example
// {"reclaimed":3,"expired":2,"more":false}; a failed run is a 500.
func (r *Runner) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "use POST to run the reclaim", http.StatusMethodNotAllowed)
		return
	}
	res, err := r.Run(req.Context())
	if err != nil {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusInternalServerError)
		json.NewEncoder(w).Encode(map[string]any{"title": "reclaim run failed", "status": http.StatusInternalServerError})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

// Every runs a reclaim every interval until ctx is done; failures are
// logged by Run and the next run goes ahead.
func (r *Runner) Every(ctx context.Context, interval time.Duration) {
	pace.Every(ctx, interval, func(ctx context.Context) {
		_, _ = r.Run(ctx) // Run logs the failure; the next run goes ahead
	})
}
