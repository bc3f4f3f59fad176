package dynamocounter_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/linkcounter/dynamocounter"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/tableschema/dynamotable"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// stores are the same behaviour suite run on Memory and on DynamoDB Local
// (the idempotency table's schema, where the counters live).
func stores(t *testing.T) map[string]func() linkcounter.Store {
	return map[string]func() linkcounter.Store{
		"memory": func() linkcounter.Store { return linkcounter.NewMemory() },
		"dynamodb": func() linkcounter.Store {
			db := testenv.DynamoDBClient(t)
			table := testenv.UniqueName(t, "counters")
			require.NoError(t, dynamotable.Create(context.Background(), db, table, tableschema.Idempotency()))
			return dynamocounter.New(db, table)
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

// TestAttemptWindow: ten attempts in a window, the eleventh limited until
// the window ends; a forgiven attempt frees a place; a new window opens
// after the end.
func TestAttemptWindow(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := newStore()
			ctx := context.Background()
			t0 := time.Date(2026, 12, 1, 3, 0, 59, 0, time.UTC) // straddles a minute: the window is not the clock's
			for i := range linkcounter.MaxAttempts {
				_, err := s.Attempt(ctx, "pw1", t0.Add(time.Duration(i)*time.Second))
				require.NoError(t, err, "attempt %d", i+1)
			}
			retry, err := s.Attempt(ctx, "pw1", t0.Add(20*time.Second))
			require.ErrorIs(t, err, linkcounter.ErrLimited)
			assert.Equal(t, 40*time.Second, retry)
			_, err = s.Attempt(ctx, "other", t0.Add(20*time.Second))
			assert.NoError(t, err, "another code has its own window")

			require.NoError(t, s.Forgive(ctx, "pw1", t0.Add(21*time.Second)))
			_, err = s.Attempt(ctx, "pw1", t0.Add(22*time.Second))
			assert.NoError(t, err, "a forgiven attempt frees its place")
			_, err = s.Attempt(ctx, "pw1", t0.Add(23*time.Second))
			assert.ErrorIs(t, err, linkcounter.ErrLimited)

			_, err = s.Attempt(ctx, "pw1", t0.Add(linkcounter.Window))
			assert.NoError(t, err, "a new window after the end")
		})
	}
}

// TestAttemptsRace: 30 racing attempts at one moment reserve exactly
// MaxAttempts.
func TestAttemptsRace(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := newStore()
			now := time.Now()
			var ok atomic.Int64
			var wg sync.WaitGroup
			for range 30 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := s.Attempt(context.Background(), "race", now); err == nil {
						ok.Add(1)
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, int64(linkcounter.MaxAttempts), ok.Load())
		})
	}
}
