package edgecache_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgecache"
)

// steppedClock is a fake clock that a Purger's Sleep moves forward.
type steppedClock struct{ now time.Time }

func (c *steppedClock) Now() time.Time           { return c.now }
func (c *steppedClock) Sleep(d time.Duration)    { c.now = c.now.Add(d) }
func (c *steppedClock) since(t time.Time) string { return c.now.Sub(t).String() }

// withDeadline is a context with a request's deadline, d from now (none
// when d is not above 0); it ends with the test at the latest.
func withDeadline(t *testing.T, d time.Duration) context.Context {
	if d <= 0 {
		return context.Background()
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

type failingEdge struct{}

func (failingEdge) Invalidate(context.Context, ...string) error {
	return errors.New("TooManyInvalidationsInProgress")
}

func TestPurgerSendsTheInvalidationSettleAfterTheChange(t *testing.T) {
	saved := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		settle   time.Duration
		deadline time.Duration // from now; zero for none
		wantAt   time.Duration // after saved
	}{
		{name: "at once without a settle time", wantAt: 0},
		{name: "after the settle time", settle: 2 * time.Second, wantAt: 2 * time.Second},
		{name: "a far deadline leaves it whole", settle: 2 * time.Second, deadline: time.Minute, wantAt: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &steppedClock{now: saved}
			rec := edgecache.NewRecorder(clock.Now)
			ctx := withDeadline(t, tt.deadline)
			p := edgecache.Purger{Edge: rec, Settle: tt.settle, Sleep: clock.Sleep, Log: slog.New(slog.DiscardHandler)}

			p.Purge(ctx, "req-1", "/aB3dE5f")

			got := rec.Invalidations()
			require.Len(t, got, 1)
			assert.Equal(t, saved.Add(tt.wantAt), got[0].At, "sent %s after the change", clock.since(saved))
			assert.Equal(t, []string{"/aB3dE5f"}, got[0].Paths)
		})
	}
}

func TestPurgerShortensTheSettleToMeetTheDeadline(t *testing.T) {
	clock := &steppedClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	var slept time.Duration
	rec := edgecache.NewRecorder(clock.Now)
	var logs bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p := edgecache.Purger{Edge: rec, Settle: 5 * time.Second, Sleep: func(d time.Duration) { slept = d },
		Log: slog.New(slog.NewJSONHandler(&logs, nil))}

	p.Purge(ctx, "req-1", "/aB3dE5f")

	assert.Less(t, slept, time.Second, "room is kept for the call and the answer")
	assert.Len(t, rec.Invalidations(), 1, "the invalidation still goes")
	assert.Contains(t, logs.String(), "before its settle time")
}

func TestPurgerSettlesEvenWhenTheRequestIsCanceled(t *testing.T) {
	clock := &steppedClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	var slept time.Duration
	rec := edgecache.NewRecorder(clock.Now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := edgecache.Purger{Edge: rec, Settle: 2 * time.Second, Sleep: func(d time.Duration) { slept = d; clock.Sleep(d) }}

	p.Purge(ctx, "req-1", "/aB3dE5f")

	assert.Equal(t, 2*time.Second, slept)
	assert.Len(t, rec.Invalidations(), 1, "a saved change is invalidated whatever the request's fate")
}

func TestPurgerReportsAFailureWithoutReturningIt(t *testing.T) {
	var logs bytes.Buffer
	p := edgecache.Purger{Edge: failingEdge{}, Log: slog.New(slog.NewJSONHandler(&logs, nil))}

	p.Purge(context.Background(), "req-1", "/aB3dE5f")

	assert.Contains(t, logs.String(), "edge invalidation failed")
	assert.Contains(t, logs.String(), "req-1")
}

// TestPurgerAsksHeldOnlyAfterTheWholeSettle: Held may skip the
// invalidation (a mark read after the whole settle time sees every mark
// an old answer needed), but not when the deadline cut the settle time
// short: a mark may still be on its way, so the invalidation goes.
func TestPurgerAsksHeldOnlyAfterTheWholeSettle(t *testing.T) {
	for _, tt := range []struct {
		name     string
		held     bool
		err      error
		deadline time.Duration
		want     int
	}{
		{name: "not held: skipped", want: 0},
		{name: "held: sent", held: true, want: 1},
		{name: "unknown: sent", err: errors.New("throttled"), want: 1},
		{name: "not held, but the settle time was cut short: sent", deadline: 2 * time.Second, want: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := &steppedClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
			rec := edgecache.NewRecorder(clock.Now)
			ctx := withDeadline(t, tt.deadline)
			asked := false
			p := edgecache.Purger{Edge: rec, Settle: 5 * time.Second, Sleep: clock.Sleep, Log: slog.New(slog.DiscardHandler),
				Held: func(context.Context) (bool, error) { asked = true; return tt.held, tt.err }}

			p.Purge(ctx, "req-1", "/aB3dE5f")

			assert.Len(t, rec.Invalidations(), tt.want)
			assert.Equal(t, tt.deadline == 0, asked, "Held is asked only after the whole settle time")
		})
	}
}
