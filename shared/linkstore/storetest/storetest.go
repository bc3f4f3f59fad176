// Package storetest is the one behaviour suite every linkstore.Store must
// pass: the in-memory store in unit tests and the DynamoDB adapter against
// DynamoDB Local. A behaviour the suite does not pin down is one the two
// may silently disagree on, so new store methods come with suite cases.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// Clock is a settable time source shared by a test and the store under test.
type Clock struct{ ns atomic.Int64 }

// NewClock returns a clock set to t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

// Now reads the clock.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// Factory returns a fresh, empty store that reads the time from now.
type Factory func(t *testing.T, now func() time.Time) linkstore.Store

// Run runs the suite against the stores newStore makes.
func Run(t *testing.T, newStore Factory) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (linkstore.Store, *Clock) {
		clock := NewClock(start)
		return newStore(t, clock.Now), clock
	}

	t.Run("create then get returns the same link", func(t *testing.T) {
		s, clock := setup(t)
		want := sample("abc1234", clock.Now())
		want.Alias = "MyAlias"
		require.NoError(t, s.Create(context.Background(), want, nil))
		got, err := s.Get(context.Background(), want.Code)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})

	t.Run("get of an absent code is not found", func(t *testing.T) {
		s, _ := setup(t)
		_, err := s.Get(context.Background(), "nothere")
		assert.ErrorIs(t, err, link.ErrNotFound)
	})

	t.Run("a taken code is a conflict and the first link stays", func(t *testing.T) {
		s, clock := setup(t)
		first := sample("taken01", clock.Now())
		require.NoError(t, s.Create(context.Background(), first, nil))
		second := first
		second.URL, second.Owner = "https://other.example/", "intruder"
		err := s.Create(context.Background(), second, nil)
		assertTaken(t, err, linkstore.TakenCode)
		got, err := s.Get(context.Background(), first.Code)
		require.NoError(t, err)
		assert.Equal(t, first, got)
	})

	t.Run("idempotent create writes link and record together", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("idem001", clock.Now())
		rec := record("owner-1", "key-1", l.Code, clock.Now())
		require.NoError(t, s.Create(context.Background(), l, &rec))
		got, err := s.GetIdempotency(context.Background(), "owner-1", "key-1")
		require.NoError(t, err)
		assert.Equal(t, rec, got)
		_, err = s.Get(context.Background(), l.Code)
		require.NoError(t, err)
	})

	t.Run("a used idempotency key refuses a second link atomically", func(t *testing.T) {
		s, clock := setup(t)
		rec := record("owner-1", "key-1", "idem002", clock.Now())
		require.NoError(t, s.Create(context.Background(), sample("idem002", clock.Now()), &rec))
		again := record("owner-1", "key-1", "idem003", clock.Now())
		err := s.Create(context.Background(), sample("idem003", clock.Now()), &again)
		assertTaken(t, err, linkstore.TakenIdempotencyKey)
		_, err = s.Get(context.Background(), "idem003")
		assert.ErrorIs(t, err, link.ErrNotFound, "the refused create must not leave its link behind")
	})

	t.Run("a taken code leaves no idempotency record behind", func(t *testing.T) {
		s, clock := setup(t)
		require.NoError(t, s.Create(context.Background(), sample("idem004", clock.Now()), nil))
		rec := record("owner-1", "key-2", "idem004", clock.Now())
		err := s.Create(context.Background(), sample("idem004", clock.Now()), &rec)
		assertTaken(t, err, linkstore.TakenCode)
		_, err = s.GetIdempotency(context.Background(), "owner-1", "key-2")
		assert.ErrorIs(t, err, link.ErrNotFound)
	})

	t.Run("idempotency keys are scoped to their owner", func(t *testing.T) {
		s, clock := setup(t)
		a := record("owner-a", "shared-key", "idem005", clock.Now())
		b := record("owner-b", "shared-key", "idem006", clock.Now())
		require.NoError(t, s.Create(context.Background(), sample("idem005", clock.Now()), &a))
		require.NoError(t, s.Create(context.Background(), sample("idem006", clock.Now()), &b))
		got, err := s.GetIdempotency(context.Background(), "owner-b", "shared-key")
		require.NoError(t, err)
		assert.Equal(t, "idem006", got.Code)
		_, err = s.GetIdempotency(context.Background(), "owner-c", "shared-key")
		assert.ErrorIs(t, err, link.ErrNotFound)
	})

	t.Run("an expired idempotency record frees its key", func(t *testing.T) {
		s, clock := setup(t)
		rec := record("owner-1", "key-3", "idem007", clock.Now())
		require.NoError(t, s.Create(context.Background(), sample("idem007", clock.Now()), &rec))
		clock.Add(linkstore.IdempotencyWindow + time.Second)
		_, err := s.GetIdempotency(context.Background(), "owner-1", "key-3")
		assert.ErrorIs(t, err, link.ErrNotFound)
		fresh := record("owner-1", "key-3", "idem008", clock.Now())
		require.NoError(t, s.Create(context.Background(), sample("idem008", clock.Now()), &fresh))
		got, err := s.GetIdempotency(context.Background(), "owner-1", "key-3")
		require.NoError(t, err)
		assert.Equal(t, "idem008", got.Code)
	})

	t.Run("concurrent creates of one code: exactly one wins", func(t *testing.T) {
		s, clock := setup(t)
		const n = 50
		var wins, conflicts atomic.Int32
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := sample("race001", clock.Now())
				l.URL = fmt.Sprintf("https://example.com/%d", i)
				err := s.Create(context.Background(), l, nil)
				switch {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, link.ErrConflict):
					conflicts.Add(1)
				default:
					t.Errorf("create %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, int32(1), wins.Load())
		assert.Equal(t, int32(n-1), conflicts.Load())
	})

	t.Run("a cancelled context fails the call", func(t *testing.T) {
		s, clock := setup(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.Error(t, s.Create(ctx, sample("ctx0001", clock.Now()), nil))
		_, err := s.Get(ctx, "ctx0001")
		assert.Error(t, err)
		assert.NotErrorIs(t, err, link.ErrNotFound)
	})
}

func assertTaken(t *testing.T, err error, want linkstore.Taken) {
	t.Helper()
	require.ErrorIs(t, err, link.ErrConflict)
	var ce *linkstore.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, want, ce.Taken)
}

// sample builds a link with times at the precision the stores keep:
// milliseconds for creation, seconds for expiry (the TTL attribute).
func sample(code string, now time.Time) link.Link {
	now = now.Truncate(time.Millisecond)
	return link.Link{
		Code:           code,
		URL:            "https://example.com/path?q=1",
		Owner:          "owner-1",
		CreatedAt:      now,
		UpdatedAt:      now,
		ExpiresAt:      now.Add(link.DefaultTTL).Truncate(time.Second),
		Status:         link.StatusActive,
		Version:        1,
		RedirectStatus: 302,
	}
}

func record(owner, key, code string, now time.Time) linkstore.Idempotency {
	return linkstore.Idempotency{
		Owner:       owner,
		Key:         key,
		RequestHash: "hash-of-" + key,
		Code:        code,
		Response:    []byte(`{"code":"` + code + `"}`),
		ExpiresAt:   now.Add(linkstore.IdempotencyWindow).Truncate(time.Second),
	}
}
