package dynamo_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// stores are the same behaviour suite run on Memory and on DynamoDB Local
// (the idempotency table's schema, where the counters live).
func stores(t *testing.T) map[string]func() linkcounter.Store {
	return map[string]func() linkcounter.Store{
		"memory": func() linkcounter.Store { return linkcounter.NewMemory() },
		"dynamodb": func() linkcounter.Store {
			db := testenv.DynamoDBClient(t)
			table := testenv.UniqueName(t, "counters")
			require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Idempotency()))
			return dynamo.NewCounter(db, table)
		},
	}
}

// TestUseClickIsExactUnderConcurrency: 50 racing clicks on a limit of 5
// get exactly 5 successes.
func TestUseClickIsExactUnderConcurrency(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := newStore()
			ctx := context.Background()
			key := linkcounter.ClickKey("abc1234", time.UnixMilli(1_700_000_000_123))
			var ok atomic.Int64
			var wg sync.WaitGroup
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					used, err := s.UseClick(ctx, key, 5, time.Now().Add(time.Hour))
					assert.NoError(t, err)
					if used {
						ok.Add(1)
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, int64(5), ok.Load())
			n, err := s.ClicksUsed(ctx, key)
			require.NoError(t, err)
			assert.Equal(t, int64(5), n)

			more, err := s.UseClick(ctx, key, 7, time.Now().Add(time.Hour))
			require.NoError(t, err)
			assert.True(t, more, "a raised limit lets more through")
			other, err := s.UseClick(ctx, linkcounter.ClickKey("abc1234", time.UnixMilli(1_800_000_000_000)), 5, time.Now().Add(time.Hour))
			require.NoError(t, err)
			assert.True(t, other, "a new incarnation of the code starts from zero")
		})
	}
}

// TestAttemptWindow: for each budget, Max attempts in a window, the next
// limited until the window ends; a forgiven attempt frees a place; a new
// window opens after the end; another key has its own window.
func TestAttemptWindow(t *testing.T) {
	limits := []struct {
		name string
		lim  linkcounter.Limit
	}{
		{"code", linkcounter.CodeLimit},
		{"viewer", linkcounter.ViewerLimit},
		{"three in twelve seconds", linkcounter.Limit{Max: 3, Window: 12 * time.Second}},
	}
	for name, newStore := range stores(t) {
		for _, tt := range limits {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				s := newStore()
				ctx := context.Background()
				lim := tt.lim
				key := linkcounter.ViewerKey("pw1", "192.0.2.7")
				// Straddles a minute (the window is not the clock's), and
				// lies ahead, so that no item's TTL has passed when an
				// emulator that honours TTL looks.
				t0 := time.Now().UTC().Truncate(time.Minute).Add(time.Hour + 59*time.Second)
				step := lim.Window / time.Duration(2*lim.Max)
				for i := range lim.Max {
					_, err := s.Attempt(ctx, key, lim, t0.Add(time.Duration(i)*step))
					require.NoError(t, err, "attempt %d", i+1)
				}
				at := t0.Add(time.Duration(lim.Max) * step)
				retry, err := s.Attempt(ctx, key, lim, at)
				require.ErrorIs(t, err, linkcounter.ErrLimited)
				assert.Equal(t, lim.Window-time.Duration(lim.Max)*step, retry)
				_, err = s.Attempt(ctx, linkcounter.ViewerKey("pw1", "192.0.2.8"), lim, at)
				assert.NoError(t, err, "another viewer has its own window")
				_, err = s.Attempt(ctx, linkcounter.CodeKey("pw1"), lim, at)
				assert.NoError(t, err, "and so has the code")

				require.NoError(t, s.Forgive(ctx, key, at.Add(step/4)))
				_, err = s.Attempt(ctx, key, lim, at.Add(step/2))
				assert.NoError(t, err, "a forgiven attempt frees its place")
				_, err = s.Attempt(ctx, key, lim, at.Add(step/2))
				assert.ErrorIs(t, err, linkcounter.ErrLimited)

				_, err = s.Attempt(ctx, key, lim, t0.Add(lim.Window))
				assert.NoError(t, err, "a new window after the end")
			})
		}
	}
}

// TestAttemptsRace: 30 racing attempts at one moment reserve exactly
// CodeLimit.Max.
func TestAttemptsRace(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := newStore()
			now := time.Now()
			var ok atomic.Int64
			var wg sync.WaitGroup
			for range 3 * linkcounter.CodeLimit.Max {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := s.Attempt(context.Background(), linkcounter.CodeKey("race"), linkcounter.CodeLimit, now); err == nil {
						ok.Add(1)
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, int64(linkcounter.CodeLimit.Max), ok.Load())
		})
	}
}
