package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A closed-loop generator: a fixed number of workers, each sending its
// next request as soon as the previous one is answered, for a set time or
// a set count, whichever ends first. Every latency is kept, so the
// percentiles are exact, not estimated from a sketch.
//
// Why not vegeta: its attack is open-loop at a chosen rate, which needs the
// rate picked above the server's capacity to find it (and then measures a
// queue); its percentiles come from a t-digest; and each hit allocates a
// result and goes through its encoder. Here the question is how many
// requests per second each target answers with the same client and
// concurrency, side by side, so the client must cost the same and stay
// small on a two-core machine shared with the servers.

// op sends request number i (from 0, across all workers) and says whether
// the answer was the one expected; err is a transport failure.
type op func(ctx context.Context, i int) (ok bool, err error)

// limits bound one phase.
type limits struct {
	concurrency int
	warmup      time.Duration // requests sent first and not measured
	duration    time.Duration
	maxRequests int // measured requests at most; 0: no bound
}

// result is one measured phase.
type result struct {
	name        string
	concurrency int
	requests    int
	unexpected  int // answered, but not as expected
	errors      int // no answer
	elapsed     time.Duration
	latencies   []time.Duration // sorted
	note        string
	// serverCPU is the CPU the server's process spent per request, and
	// busy the share of the machine's CPUs in use, both over the phase;
	// cpuOK says they could be read.
	serverCPU time.Duration
	busy      float64
	cpuOK     bool
}

func (r result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// quantile returns the q-quantile (0 < q <= 1) by the nearest-rank method.
func (r result) quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	rank := int(q*float64(len(r.latencies))+0.999999) - 1
	return r.latencies[min(max(rank, 0), len(r.latencies)-1)]
}

// measure runs the warm-up, then the measured phase against the server
// process pid. first is the request number the phase starts at; it
// returns the next unused one, so phases over a finite set (distinct
// codes) never reuse a request number.
func measure(ctx context.Context, name string, l limits, first, pid int, do op) (result, int) {
	next := first
	if l.warmup > 0 {
		_, next = loop(ctx, l.concurrency, l.warmup, 0, next, do)
	}
	cpu := startCPU(pid)
	res, next := loop(ctx, l.concurrency, l.duration, l.maxRequests, next, do)
	res.serverCPU, res.busy, res.cpuOK = cpu.stop(res.requests)
	res.name, res.concurrency = name, l.concurrency
	return res, next
}

func loop(ctx context.Context, concurrency int, d time.Duration, maxRequests, first int, do op) (result, int) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var counter atomic.Int64
	counter.Store(int64(first))
	limit := int64(-1)
	if maxRequests > 0 {
		limit = int64(first + maxRequests)
	}
	type worker struct {
		lat                []time.Duration
		unexpected, errors int
	}
	workers := make([]worker, concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wk := &workers[w]
		wk.lat = make([]time.Duration, 0, 4096)
		wg.Go(func() {
			for ctx.Err() == nil {
				i := counter.Add(1) - 1
				if limit >= 0 && i >= limit {
					return
				}
				t0 := time.Now()
				ok, err := do(ctx, int(i))
				took := time.Since(t0)
				if ctx.Err() != nil && err != nil {
					return // cut off by the end of the phase: not a failure
				}
				wk.lat = append(wk.lat, took)
				switch {
				case err != nil:
					wk.errors++
				case !ok:
					wk.unexpected++
				}
			}
		})
	}
	wg.Wait()
	res := result{elapsed: time.Since(start)}
	for _, wk := range workers {
		res.latencies = append(res.latencies, wk.lat...)
		res.unexpected += wk.unexpected
		res.errors += wk.errors
	}
	res.requests = len(res.latencies)
	slices.Sort(res.latencies)
	next := int(counter.Load())
	if limit >= 0 {
		next = min(next, int(limit))
	}
	return res, next
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }

// measureInterleaved measures a and b in turns of l.duration/turns each,
// a first, then b, then b, a, a, b, ... (each pair of turns in the other
// order from the last), after a warm-up of each, and pools each one's
// turns into one result. On a shared machine whose speed drifts from one
// second to the next, both sides then see the same machine. pidA and pidB
// are the server processes whose CPU is counted. l.maxRequests bounds
// each side's measured requests in all.
func measureInterleaved(ctx context.Context, l limits, turns int, nameA string, pidA int, a op, nameB string, pidB int, b op) (result, result) {
	type side struct {
		r         result
		pid, next int
		do        op
		cpu, busy time.Duration // CPU time; busy share x elapsed
	}
	sa := &side{r: result{name: nameA, concurrency: l.concurrency, cpuOK: true}, pid: pidA, do: a}
	sb := &side{r: result{name: nameB, concurrency: l.concurrency, cpuOK: true}, pid: pidB, do: b}
	if l.warmup > 0 {
		loop(ctx, l.concurrency, l.warmup, 0, 0, a)
		loop(ctx, l.concurrency, l.warmup, 0, 0, b)
	}
	turns = max(turns, 1)
	turn := limits{concurrency: l.concurrency, duration: l.duration / time.Duration(turns)}
	for k := range turns {
		order := [2]*side{sa, sb}
		if k%2 == 1 {
			order = [2]*side{sb, sa}
		}
		for _, s := range order {
			if l.maxRequests > 0 {
				if turn.maxRequests = l.maxRequests - s.r.requests; turn.maxRequests <= 0 {
					continue
				}
			}
			var res result
			res, s.next = measure(ctx, s.r.name, turn, s.next, s.pid, s.do)
			s.r.requests += res.requests
			s.r.unexpected += res.unexpected
			s.r.errors += res.errors
			s.r.elapsed += res.elapsed
			s.r.latencies = append(s.r.latencies, res.latencies...)
			s.r.cpuOK = s.r.cpuOK && res.cpuOK
			s.cpu += res.serverCPU * time.Duration(res.requests)
			s.busy += time.Duration(res.busy * float64(res.elapsed))
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, s := range []*side{sa, sb} {
		slices.Sort(s.r.latencies)
		if s.r.requests > 0 && s.r.elapsed > 0 {
			s.r.serverCPU = s.cpu / time.Duration(s.r.requests)
			s.r.busy = float64(s.busy) / float64(s.r.elapsed)
		}
	}
	return sa.r, sb.r
}
