package reclaimflow

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Input is the reclaim function's payload: the counts so far in this run.
type Input struct {
	Total        int64 `json:"total"`
	ExpiredTotal int64 `json:"expired_total"`
}

// Output is the reclaim function's answer.
type Output struct {
	// Reclaimed is how many codes this invocation released.
	Reclaimed int64 `json:"reclaimed"`
	// Total is Input.Total plus Reclaimed.
	Total int64 `json:"total"`
	// Expired is how many expired links this invocation turned into
	// their tombstones.
	Expired int64 `json:"expired"`
	// ExpiredTotal is Input.ExpiredTotal plus Expired.
	ExpiredTotal int64 `json:"expired_total"`
	// More says links or tombstones may still be due: invoke again.
	More bool `json:"more"`
}

// Result is a run's output, the state machine's and Run's alike.
type Result struct {
	// Reclaimed is how many codes the run released.
	Reclaimed int64 `json:"reclaimed"`
	// Expired is how many expired links the run turned into tombstones.
	Expired int64 `json:"expired"`
	// More is true when the run stopped at MaxIterations with tombstones
	// still due; the next scheduled run continues.
	More bool `json:"more"`
}

// MaxIterations bounds the invocations of one run (see the package doc).
const MaxIterations = 1000

// Invoke calls the reclaim function once.
type Invoke func(ctx context.Context, in Input) (Output, error)

// retrier is one entry of the task's Retry list, in ASL's terms.
type retrier struct {
	ErrorEquals     []string `json:"ErrorEquals"`
	IntervalSeconds int      `json:"IntervalSeconds"`
	MaxAttempts     int      `json:"MaxAttempts"`
	BackoffRate     float64  `json:"BackoffRate"`
	MaxDelaySeconds int      `json:"MaxDelaySeconds,omitempty"`
	JitterStrategy  string   `json:"JitterStrategy,omitempty"`
}

// delay is how long the retrier waits before retry n (1-based), without
// jitter: IntervalSeconds * BackoffRate^(n-1), capped by MaxDelaySeconds.
func (r retrier) delay(n int) time.Duration {
	d := float64(r.IntervalSeconds) * math.Pow(r.BackoffRate, float64(n-1))
	if r.MaxDelaySeconds > 0 {
		d = math.Min(d, float64(r.MaxDelaySeconds))
	}
	return time.Duration(d * float64(time.Second))
}

// The task's retry policy, in order (the first retrier that matches an
// error applies). Lambda's own transient errors, the list AWS recommends
// for the lambda:invoke integration, are retried longer and with jitter.
// Errors the function returns (DynamoDB unavailable past its own retries)
// are retried a few times more slowly, then the execution fails and alarms.
var (
	lambdaErrorRetrier = retrier{
		ErrorEquals:     []string{"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException", "Lambda.TooManyRequestsException"},
		IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, MaxDelaySeconds: 60, JitterStrategy: "FULL",
	}
	// functionErrorRetrier is also the one Run applies, since an
	// in-process invocation has no Lambda service in between.
	functionErrorRetrier = retrier{
		ErrorEquals: []string{"States.TaskFailed"}, IntervalSeconds: 5, MaxAttempts: 3, BackoffRate: 2,
	}
)

// Run executes the state machine's loop in process: invoke with the
// running total, again while the answer says more and fewer than
// MaxIterations invocations were made, retrying a failed invocation as the
// task retries a function error. An invocation that fails past its retries
// fails the run, as it fails the execution; the Result then holds what was
// reclaimed before.
func Run(ctx context.Context, invoke Invoke) (Result, error) {
	return run(ctx, invoke, sleep)
}

func run(ctx context.Context, invoke Invoke, sleep func(context.Context, time.Duration) error) (Result, error) {
	var in Input
	for iteration := 1; ; iteration++ {
		out, err := invokeRetrying(ctx, invoke, in, sleep)
		if err != nil {
			return Result{Reclaimed: in.Total, Expired: in.ExpiredTotal}, fmt.Errorf("reclaim invocation %d: %w", iteration, err)
		}
		in.Total, in.ExpiredTotal = out.Total, out.ExpiredTotal
		if !out.More || iteration >= MaxIterations {
			return Result{Reclaimed: out.Total, Expired: out.ExpiredTotal, More: out.More}, nil
		}
	}
}

func invokeRetrying(ctx context.Context, invoke Invoke, in Input, sleep func(context.Context, time.Duration) error) (Output, error) {
	r := functionErrorRetrier
	for attempt := 0; ; attempt++ {
		out, err := invoke(ctx, in)
		if err == nil || attempt >= r.MaxAttempts || ctx.Err() != nil {
			return out, err
		}
		if serr := sleep(ctx, r.delay(attempt+1)); serr != nil {
			return out, err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
