package pace

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done; it reports whether it waited all
// of d (false: ctx ended first).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Every calls f every period, on a fixed schedule whatever f takes (a
// ticker: a tick that falls while f runs is not queued twice), until ctx
// is done. Its first call is a period after it starts.
func Every(ctx context.Context, period time.Duration, f func(context.Context)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}
