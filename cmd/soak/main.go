// Command soak runs mixed traffic against the local run (cmd/shortener-local,
// with its edge and click pipeline) for a set time and then checks that
// nothing went wrong:
//
//   - creates, some with a short ttl_seconds so they expire during the run;
//   - redirects (GET, and some HEAD) of every link, live or dead, through
//     the edge;
//   - edits (PATCH of the target) and deletes by the link's owner.
//
// At the end, after waiting out the 30-second freshness promise (a change
// is visible everywhere within 30 s), every live link must redirect to its
// latest target, every deleted or expired one must answer 410, the click
// totals (stats API for live links, the analytics table for dead ones)
// must equal the redirects the soak received, and no request may have
// been answered with a 5xx. During the run, an answer for a link that had
// not changed for 31 s must already be right, and a dead link must answer
// 410, never 404 (which it does for a moment when DynamoDB's TTL deletes
// it before its tombstone is written: counted on its own).
//
// It prints one summary line on stdout (details of failures on stderr) and
// exits 1 if any check failed. A second line gives what the traffic
// measured of the cost model's inputs (docs/cost-model.md, "Measured"):
// the share of changed links the management API invalidated (those an
// edge may hold), the edge marks the redirect wrote per read of a link,
// the real-time log record's bytes and the stats answers' read units. The whole run, the local run's start and
// the final checks included, fits in SOAK_DURATION (default 5m).
//
//	go run ./cmd/soak                 (make soak)
//	SOAK_DURATION=2m go run ./cmd/soak
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	c := config{duration: 5 * time.Minute}
	if v := os.Getenv("SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "soak: SOAK_DURATION: %q is not a duration such as 5m\n", v)
			os.Exit(2)
		}
		c.duration = d
	}
	flag.DurationVar(&c.duration, "duration", c.duration, "the whole run, start and checks included (SOAK_DURATION)")
	flag.IntVar(&c.workers, "workers", 6, "concurrent clients")
	flag.Float64Var(&c.rate, "rate", 150, "operations per second, all workers together")
	flag.StringVar(&c.binary, "local-run", "", "a built cmd/shortener-local (default: build one)")
	flag.BoolVar(&c.verbose, "v", false, "say what it is doing and copy the local run's log to stderr")
	flag.Parse()
	if c.duration < minDuration {
		fmt.Fprintf(os.Stderr, "soak: the duration must be at least %s: the final checks alone take over a minute\n", minDuration)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := run(ctx, c)
	fmt.Println(sum.line())
	if sum.costs != nil {
		fmt.Println(sum.costs.line())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !sum.passed() {
		os.Exit(1)
	}
}

// config is the command's settings.
type config struct {
	duration time.Duration
	workers  int
	rate     float64
	binary   string
	verbose  bool
}

const (
	// minDuration leaves traffic at least a little time after the start,
	// the freshness wait and the checks.
	minDuration = 2 * time.Minute
	// freshness is the promise: a change shows everywhere within 30 s.
	// The soak waits it out, and a second more, before judging a link.
	freshness = 31 * time.Second
	// checkReserve is kept at the end for the freshness wait, the final
	// redirects, and the click totals catching up (which takes seconds at
	// the default rate: the reserve is mostly margin for a busy machine).
	checkReserve = freshness + 45*time.Second
)
