package localroute53

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/internal/pace"
)

// Route 53's health check figures (doc.go).
const (
	// DefaultInterval is RequestInterval's default; 10 s is the fast one.
	DefaultInterval = 30 * time.Second
	// DefaultFailureThreshold is FailureThreshold's default.
	DefaultFailureThreshold = 3
	// MaxFailureThreshold is the largest FailureThreshold Route 53 takes.
	MaxFailureThreshold = 10
	// ConnectTimeout is how long an HTTP check waits for its connection.
	ConnectTimeout = 4 * time.Second
	// AnswerTimeout is how long it then waits for the status line.
	AnswerTimeout = 2 * time.Second
	// DefaultPath is the checked path: the local gateway's health check.
	DefaultPath = "/healthz"
)

// Record is one latency record: a Region and the endpoint its health check
// requests (its API's origin, scheme and host).
type Record struct {
	Region string
	Target string
}

// Options configure a Resolver. Records is required.
type Options struct {
	// Records are the latency records, the nearest Region first.
	Records []Record
	// Interval is the health checks' RequestInterval (DefaultInterval).
	Interval time.Duration
	// FailureThreshold is how many consecutive checks must pass or fail
	// before a record changes status (DefaultFailureThreshold, 1 to 10).
	FailureThreshold int
	// Path is the checked path (DefaultPath).
	Path string
	// Client makes the checks; nil: one with Route 53's timeouts.
	Client *http.Client
	// Log gets a line each time a record changes status; slog.Default()
	// when nil.
	Log *slog.Logger
}

// Status is a record's health as the checks see it.
type Status struct {
	Region  string `json:"region"`
	Target  string `json:"target"`
	Healthy bool   `json:"healthy"`
	// Passes and Failures count the consecutive checks that passed or
	// failed, whichever the last check did; the other is zero.
	Passes   int `json:"passes"`
	Failures int `json:"failures"`
	// Checks counts the checks made so far.
	Checks int64 `json:"checks"`
	// LastError is why the last check failed; empty when it passed.
	LastError string `json:"last_error,omitempty"`
}

// Resolver answers which Region the /v1 domain resolves to.
type Resolver struct {
	interval  time.Duration
	threshold int
	path      string
	client    *http.Client
	log       *slog.Logger

	mu      sync.Mutex
	records []Status
}

// New builds a resolver whose records are all healthy until checked.
func New(o Options) (*Resolver, error) {
	if len(o.Records) == 0 {
		return nil, errors.New("localroute53: no records")
	}
	r := &Resolver{interval: o.Interval, threshold: o.FailureThreshold, path: o.Path, client: o.Client, log: o.Log}
	if r.interval == 0 {
		r.interval = DefaultInterval
	}
	if r.interval < 0 {
		return nil, fmt.Errorf("localroute53: interval %s is negative", r.interval)
	}
	if r.threshold == 0 {
		r.threshold = DefaultFailureThreshold
	}
	if r.threshold < 1 || r.threshold > MaxFailureThreshold {
		return nil, fmt.Errorf("localroute53: failure threshold %d is not between 1 and %d", r.threshold, MaxFailureThreshold)
	}
	if r.path == "" {
		r.path = DefaultPath
	}
	if r.client == nil {
		r.client = &http.Client{
			Transport: &http.Transport{
				DialContext:           (&net.Dialer{Timeout: ConnectTimeout}).DialContext,
				ResponseHeaderTimeout: AnswerTimeout,
				DisableKeepAlives:     true, // each check connects, as Route 53's do
			},
			// A 3xx passes: the check does not follow it.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	seen := map[string]bool{}
	for _, rec := range o.Records {
		if rec.Region == "" || rec.Target == "" || seen[rec.Region] {
			return nil, fmt.Errorf("localroute53: record %+v: a Region and a target, each Region once", rec)
		}
		seen[rec.Region] = true
		r.records = append(r.records, Status{Region: rec.Region, Target: rec.Target, Healthy: true})
	}
	return r, nil
}

// Resolve returns the Region a query gets now: the nearest healthy one,
// or the nearest of all when none is healthy.
func (r *Resolver) Resolve() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.records {
		if s.Healthy {
			return s.Region
		}
	}
	return r.records[0].Region
}

// Statuses returns every record's status, the nearest first.
func (r *Resolver) Statuses() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Status(nil), r.records...)
}

// Run checks every record each interval until ctx is done. As on Route
// 53, the next round starts an interval after the last answer.
func (r *Resolver) Run(ctx context.Context) {
	for pace.Sleep(ctx, r.interval) {
		r.CheckAll(ctx)
	}
}

// CheckAll checks every record once, all at the same time, and updates
// their statuses.
func (r *Resolver) CheckAll(ctx context.Context) {
	r.mu.Lock()
	targets := make([]string, len(r.records))
	for i, s := range r.records {
		targets[i] = s.Target
	}
	r.mu.Unlock()
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, target := range targets {
		wg.Go(func() { errs[i] = r.check(ctx, target) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return // a check cut short says nothing of the endpoint
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.records {
		r.record(&r.records[i], errs[i])
	}
}

// record counts one check's outcome and flips the status after threshold
// consecutive ones against it.
func (r *Resolver) record(s *Status, err error) {
	s.Checks++
	if err == nil {
		s.Passes++
		s.Failures = 0
		s.LastError = ""
	} else {
		s.Failures++
		s.Passes = 0
		s.LastError = err.Error()
	}
	switch {
	case s.Healthy && s.Failures >= r.threshold:
		s.Healthy = false
		r.log.Warn("health check unhealthy", "region", s.Region, "failures", s.Failures, "error", s.LastError)
	case !s.Healthy && s.Passes >= r.threshold:
		s.Healthy = true
		r.log.Info("health check healthy", "region", s.Region, "passes", s.Passes)
	}
}

// check makes one HTTP check of target.
func (r *Resolver) check(ctx context.Context, target string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target+r.path, nil)
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 5120))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 399 {
		return errors.New("status " + strconv.Itoa(resp.StatusCode))
	}
	return nil
}
