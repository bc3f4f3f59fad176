package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	runCreate(t, newStore)
	runIdempotentCreate(t, newStore)
	runIdempotencyClaims(t, newStore)
	RunLifecycle(t, newStore)
	runCallers(t, newStore)
}

// suiteStart is where the clock of every test of the suites starts.
var suiteStart = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// setup returns a fresh store from newStore and the clock it reads.
func (newStore Factory) setup(t *testing.T) (linkstore.Store, *Clock) {
	clock := NewClock(suiteStart)
	return newStore(t, clock.Now), clock
}

// runCreate runs the cases of Create and Get: a link written is the
// link read, whole, and its code is its alone.
func runCreate(t *testing.T, newStore Factory) {
	setup := newStore.setup

	t.Run("create then get returns the same link", func(t *testing.T) {
		s, clock := setup(t)
		want := sample("abc1234", clock.Now())
		want.Alias = "MyAlias"
		require.NoError(t, s.Create(context.Background(), want, nil))
		got, err := s.Get(context.Background(), want.Code)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})

	t.Run("redirect rules round-trip through create, get and list", func(t *testing.T) {
		s, clock := setup(t)
		want := withFeatures(sample("rul1234", clock.Now()))
		require.NoError(t, s.Create(context.Background(), want, nil))
		got, err := s.Get(context.Background(), want.Code)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		listed, _, err := s.List(context.Background(), want.Owner, 10, "")
		require.NoError(t, err)
		require.Len(t, listed, 1)
		assert.Equal(t, want, listed[0])

		// What a caller does with the link it read changes nothing stored.
		got.Rules[0].Country[0] = "FR"
		again, err := s.Get(context.Background(), want.Code)
		require.NoError(t, err)
		assert.Equal(t, "DE", again.Rules[0].Country[0])
	})

	t.Run("the largest link validation allows fits in one item", func(t *testing.T) {
		// DynamoDB refuses items over 400 KB
		// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items):
		// every URL at its cap, every rule and target list at its longest.
		s, clock := setup(t)
		long := func(i int) string {
			u := fmt.Sprintf("https://example.com/%d/", i)
			return u + strings.Repeat("a", link.DefaultMaxURLBytes-len(u))
		}
		values := func(n, size int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%0*d", size, i)
			}
			return out
		}
		want := sample("big1234", clock.Now())
		want.URL = long(0)
		want.PasswordHash = "$argon2id$v=19$m=19456,t=2,p=1$" + strings.Repeat("s", 22) + "$" + strings.Repeat("h", 43)
		want.MaxClicks = 1 << 53
		want.ExpiredURL = long(1)
		for i := range link.MaxRules {
			want.Rules = append(want.Rules, link.Rule{URL: long(2 + i), Country: values(link.MaxConditionValues, 2),
				Device: link.Devices, OS: link.OSes, Language: values(link.MaxConditionValues, 3)})
		}
		for i := range link.MaxTargets {
			want.Targets = append(want.Targets, link.Target{URL: long(100 + i), Weight: 10})
		}
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
}

// runIdempotentCreate runs the cases of a create under an idempotency
// key: it writes its record with the link, or neither.
func runIdempotentCreate(t *testing.T, newStore Factory) {
	setup := newStore.setup

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
}

// runIdempotencyClaims runs the cases of ClaimIdempotency: a claim holds
// a key for a request (a batch) until its record expires.
func runIdempotencyClaims(t *testing.T, newStore Factory) {
	setup := newStore.setup

	t.Run("a claim binds a free key to a request", func(t *testing.T) {
		s, clock := setup(t)
		claim := record("owner-1", "claimed", "", clock.Now())
		claim.RequestHash = "batch:one"
		_, err := s.ClaimIdempotency(context.Background(), claim)
		require.NoError(t, err)
		got, err := s.GetIdempotency(context.Background(), "owner-1", "claimed")
		require.NoError(t, err)
		assert.Equal(t, "batch:one", got.RequestHash)
		assert.Empty(t, got.Code, "a claim names no link")
		assert.Empty(t, got.Response)

		other := claim
		other.RequestHash = "batch:two"
		held, err := s.ClaimIdempotency(context.Background(), other)
		assertTaken(t, err, linkstore.TakenIdempotencyKey)
		assert.Equal(t, "batch:one", held.RequestHash, "the refusal names the request holding the key")

		// A create under the claimed key is refused as under any used key.
		rec := record("owner-1", "claimed", "idem009", clock.Now())
		err = s.Create(context.Background(), sample("idem009", clock.Now()), &rec)
		assertTaken(t, err, linkstore.TakenIdempotencyKey)
	})

	t.Run("a claim on a key a create used returns that record", func(t *testing.T) {
		s, clock := setup(t)
		rec := record("owner-1", "used", "idem010", clock.Now())
		require.NoError(t, s.Create(context.Background(), sample("idem010", clock.Now()), &rec))
		claim := record("owner-1", "used", "", clock.Now())
		claim.RequestHash = "batch:x"
		held, err := s.ClaimIdempotency(context.Background(), claim)
		assertTaken(t, err, linkstore.TakenIdempotencyKey)
		assert.Equal(t, rec, held)
	})

	t.Run("an expired record does not hold a key against a claim", func(t *testing.T) {
		s, clock := setup(t)
		old := record("owner-1", "stale", "", clock.Now())
		_, err := s.ClaimIdempotency(context.Background(), old)
		require.NoError(t, err)
		clock.Add(linkstore.IdempotencyWindow + time.Second)
		fresh := record("owner-1", "stale", "", clock.Now())
		fresh.RequestHash = "batch:new"
		_, err = s.ClaimIdempotency(context.Background(), fresh)
		require.NoError(t, err)
		got, err := s.GetIdempotency(context.Background(), "owner-1", "stale")
		require.NoError(t, err)
		assert.Equal(t, "batch:new", got.RequestHash)
	})
}

// runCallers runs the cases of callers racing one another and of a
// cancelled context.
func runCallers(t *testing.T, newStore Factory) {
	setup := newStore.setup

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

// RunLifecycle runs the suite for changes, listing, tombstones and
// reclamation. Run calls it.
func RunLifecycle(t *testing.T, newStore Factory) {
	runUpdates(t, newStore)
	runDeleteAndList(t, newStore)
	runTombstones(t, newStore)
	runReclaim(t, newStore)
}

// expiredTomb is the tombstone of owner-1's code, expired at now and
// held back for grace, at the precision the stores keep.
func expiredTomb(code string, now time.Time, grace time.Duration) link.Tombstone {
	now = now.Truncate(time.Millisecond)
	return link.Tombstone{Code: code, PrevOwner: "owner-1", TombstonedAt: now,
		ReclaimAfter: now.Add(grace).Truncate(time.Second), Reason: link.ReasonExpired}
}

// runUpdates runs the cases of Update: on the version read, of rules,
// by the owner only.
func runUpdates(t *testing.T, newStore Factory) {
	setup := newStore.setup
	ctx := context.Background()

	t.Run("update on the version read succeeds once", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("upd0001", clock.Now())
		require.NoError(t, s.Create(ctx, l, nil))
		changed := l
		changed.URL, changed.Version = "https://example.com/new", 2
		require.NoError(t, s.Update(ctx, changed, 1))
		got, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, changed, got)

		stale := l
		stale.URL, stale.Version = "https://example.com/lost", 2
		assert.ErrorIs(t, s.Update(ctx, stale, 1), link.ErrPrecondition, "a writer that read version 1 lost")
	})

	t.Run("update sets, changes and clears redirect rules", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("upd0002", clock.Now())
		require.NoError(t, s.Create(ctx, l, nil))

		with := withFeatures(l)
		with.Version = 2
		require.NoError(t, s.Update(ctx, with, 1))
		got, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, with, got)

		changed := with
		changed.Features = link.Features{MaxClicks: 7, Targets: []link.Target{{URL: "https://c.example/", Weight: 1}, {URL: "https://d.example/", Weight: 99}}}
		changed.Version = 3
		require.NoError(t, s.Update(ctx, changed, 2))
		got, err = s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, changed, got, "features the update leaves out are gone")

		cleared := changed
		cleared.Features, cleared.Version = link.Features{}, 4
		require.NoError(t, s.Update(ctx, cleared, 3))
		got, err = s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, cleared, got)
		assert.False(t, got.Decided())
	})

	t.Run("owners cannot update or delete each other's links", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("own0001", clock.Now())
		require.NoError(t, s.Create(ctx, l, nil))
		theirs := l
		theirs.Owner, theirs.URL, theirs.Version = "intruder", "https://evil.example/", 2
		assert.ErrorIs(t, s.Update(ctx, theirs, 1), link.ErrNotFound)
		assert.ErrorIs(t, s.Delete(ctx, "intruder", l.Code, 0, expiredTomb(l.Code, clock.Now(), time.Hour)), link.ErrNotFound)
		got, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, l, got)
	})

	t.Run("update of an absent code is not found", func(t *testing.T) {
		s, clock := setup(t)
		assert.ErrorIs(t, s.Update(ctx, sample("absent1", clock.Now()), 1), link.ErrNotFound)
		assert.ErrorIs(t, s.Delete(ctx, "owner-1", "absent1", 0, expiredTomb("absent1", clock.Now(), time.Hour)), link.ErrNotFound)
	})
}

// runDeleteAndList runs the cases of Delete and List.
func runDeleteAndList(t *testing.T, newStore Factory) {
	setup := newStore.setup
	ctx := context.Background()

	t.Run("delete leaves a tombstone that resolves gone and leaves the listing", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("del0001", clock.Now())
		require.NoError(t, s.Create(ctx, l, nil))
		assert.ErrorIs(t, s.Delete(ctx, "owner-1", l.Code, 7, expiredTomb(l.Code, clock.Now(), time.Hour)), link.ErrPrecondition)
		ts := expiredTomb(l.Code, clock.Now(), time.Hour)
		ts.Reason = link.ReasonDeleted
		require.NoError(t, s.Delete(ctx, "owner-1", l.Code, 1, ts))

		got, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, link.StatusTombstone, got.Status)
		assert.Equal(t, link.Gone, got.Resolve(clock.Now()))
		gotTomb, err := s.GetTombstone(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, ts, gotTomb)
		page, _, err := s.List(ctx, "owner-1", 10, "")
		require.NoError(t, err)
		assert.Empty(t, page)
		assert.ErrorIs(t, s.Update(ctx, l, 1), link.ErrNotFound, "a tombstone cannot be edited back to life")
		assertTaken(t, s.Create(ctx, sample(l.Code, clock.Now()), nil), linkstore.TakenCode)
	})

	// The by-owner index projects only what a listing reads
	// (tableschema.ByOwnerAttributes): a listed link must still be the
	// link a Get returns, less only what linkstore.Listed leaves out.
	t.Run("a listed link is the stored link", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("full001", clock.Now())
		l.Alias = "full001"
		l.RedirectStatus = 301
		l.KeepQueryOut, l.QueryPrecedence = true, link.QueryVisitor
		l.ImportedClicks = 48213
		require.NoError(t, s.Create(ctx, l, nil))
		clock.Add(time.Second)
		l.URL = "https://example.com/edited"
		l.UpdatedAt = clock.Now().Truncate(time.Millisecond)
		l.Version = 2
		require.NoError(t, s.Update(ctx, l, 1))
		want, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.True(t, want.KeepQueryOut, "Get has the query settings")
		assert.Equal(t, link.QueryVisitor, want.QueryPrecedence)
		assert.Equal(t, int64(48213), want.ImportedClicks, "Get has the imported click total, kept through an edit")
		page, _, err := s.List(ctx, "owner-1", 10, "")
		require.NoError(t, err)
		require.Len(t, page, 1)
		assert.Equal(t, linkstore.Listed(want), page[0])
	})

	t.Run("list is newest first, paged, and per owner", func(t *testing.T) {
		s, clock := setup(t)
		var want []string
		for i := range 7 {
			l := sample(fmt.Sprintf("lst%04d", i), clock.Now())
			require.NoError(t, s.Create(ctx, l, nil))
			want = append([]string{l.Code}, want...)
			clock.Add(time.Second)
		}
		other := sample("other01", clock.Now())
		other.Owner = "owner-2"
		require.NoError(t, s.Create(ctx, other, nil))

		var got []string
		cursor := ""
		pages := 0
		for {
			page, next, err := s.List(ctx, "owner-1", 3, cursor)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(page), 3)
			for _, l := range page {
				got = append(got, l.Code)
			}
			pages++
			if next == "" {
				break
			}
			require.Less(t, pages, 5, "paging must end")
			cursor = next
		}
		assert.Equal(t, want, got)
		assert.Equal(t, 3, pages)

		_, _, err := s.List(ctx, "owner-1", 3, "not-a-cursor!")
		assert.ErrorIs(t, err, link.ErrInvalid)
	})

	t.Run("a forged cursor cannot reach another owner's links", func(t *testing.T) {
		s, clock := setup(t)
		theirs := sample("their01", clock.Now())
		theirs.Owner = "owner-2"
		require.NoError(t, s.Create(ctx, theirs, nil))
		forged := linkstore.EncodeCursor(sample("zzzzzzz", clock.Now().Add(time.Hour)))
		page, _, err := s.List(ctx, "owner-1", 10, forged)
		require.NoError(t, err)
		assert.Empty(t, page)
	})
}

// runTombstones runs the cases of Tombstone: TTL deletions and
// expired links.
func runTombstones(t *testing.T, newStore Factory) {
	setup := newStore.setup
	ctx := context.Background()

	t.Run("ttl tombstone is written once and never over a live link", func(t *testing.T) {
		s, clock := setup(t)
		ts := expiredTomb("ttl0001", clock.Now(), time.Hour)
		written, err := s.Tombstone(ctx, ts)
		require.NoError(t, err)
		assert.True(t, written)
		again := expiredTomb("ttl0001", clock.Now().Add(time.Minute), 2*time.Hour)
		written, err = s.Tombstone(ctx, again)
		require.NoError(t, err)
		assert.False(t, written, "a redelivered record changes nothing")
		got, err := s.GetTombstone(ctx, "ttl0001")
		require.NoError(t, err)
		assert.Equal(t, ts, got)

		live := sample("live001", clock.Now())
		require.NoError(t, s.Create(ctx, live, nil))
		written, err = s.Tombstone(ctx, expiredTomb("live001", clock.Now(), time.Hour))
		require.NoError(t, err)
		assert.False(t, written)
		gotLink, err := s.Get(ctx, "live001")
		require.NoError(t, err)
		assert.Equal(t, live, gotLink)
		_, err = s.GetTombstone(ctx, "live001")
		assert.ErrorIs(t, err, link.ErrNotFound)
	})

	t.Run("an expired link not yet removed may be tombstoned", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("exp0001", clock.Now())
		l.ExpiresAt = clock.Now().Add(time.Second).Truncate(time.Second)
		require.NoError(t, s.Create(ctx, l, nil))
		clock.Add(2 * time.Second)
		written, err := s.Tombstone(ctx, expiredTomb("exp0001", clock.Now(), time.Hour))
		require.NoError(t, err)
		assert.True(t, written)
	})

	t.Run("an expired link's tombstone keeps its after-expiry URL and nothing else of the link", func(t *testing.T) {
		s, clock := setup(t)
		l := sample("aft0001", clock.Now())
		l.ExpiresAt = clock.Now().Add(time.Second).Truncate(time.Second)
		l.ExpiredURL = "https://example.com/after"
		l.Rules = []link.Rule{{URL: "https://example.com/de", Country: []string{"DE"}}}
		require.NoError(t, s.Create(ctx, l, nil))
		clock.Add(2 * time.Second)
		// As reclaim writes it: from the expiring-links listing, which
		// names codes and owners only.
		tb := expiredTomb(l.Code, clock.Now(), time.Hour)
		written, err := s.Tombstone(ctx, tb)
		require.NoError(t, err)
		require.True(t, written)
		got, err := s.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, link.Link{Code: l.Code, Status: link.StatusTombstone, Features: link.Features{ExpiredURL: l.ExpiredURL},
			ReclaimAfter: tb.ReclaimAfter, UpdatedAt: tb.TombstonedAt}, got, "the redirect bounds its 410 by the release; its edge mark compares the tombstone's time")
		gotTomb, err := s.GetTombstone(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, l.ExpiredURL, gotTomb.ExpiredURL)
		due, err := s.ExpiredLinks(ctx, clock.Now(), 100)
		require.NoError(t, err)
		assert.Empty(t, due, "the tombstone left the expiring links")

		// As ttlstream writes it: the item is gone, the URL comes with it.
		gone := expiredTomb("aft0002", clock.Now(), time.Hour)
		gone.ExpiredURL = "https://example.com/after2"
		_, err = s.Tombstone(ctx, gone)
		require.NoError(t, err)
		got, err = s.Get(ctx, gone.Code)
		require.NoError(t, err)
		assert.Equal(t, gone.ExpiredURL, got.ExpiredURL)

		// A deleted link's tombstone keeps none: its owner ended it.
		d := sample("aft0003", clock.Now())
		d.ExpiredURL = "https://example.com/after3"
		require.NoError(t, s.Create(ctx, d, nil))
		ts := expiredTomb(d.Code, clock.Now(), time.Hour)
		ts.Reason = link.ReasonDeleted
		require.NoError(t, s.Delete(ctx, "owner-1", d.Code, 1, ts))
		got, err = s.Get(ctx, d.Code)
		require.NoError(t, err)
		assert.Empty(t, got.ExpiredURL)
	})
}

// runReclaim runs the cases of ExpiredLinks, DueTombstones and
// Release.
func runReclaim(t *testing.T, newStore Factory) {
	setup := newStore.setup
	ctx := context.Background()

	t.Run("expired links are listed until tombstoned in place, live links never", func(t *testing.T) {
		s, clock := setup(t)
		for i := range 7 {
			l := sample(fmt.Sprintf("xp%05d", i), clock.Now())
			l.ExpiresAt = clock.Now().Add(time.Minute).Truncate(time.Second)
			require.NoError(t, s.Create(ctx, l, nil))
		}
		later := sample("later01", clock.Now())
		later.ExpiresAt = clock.Now().Add(time.Hour).Truncate(time.Second)
		require.NoError(t, s.Create(ctx, later, nil))
		_, err := s.Tombstone(ctx, expiredTomb("tomb001", clock.Now(), time.Minute))
		require.NoError(t, err)

		due, err := s.ExpiredLinks(ctx, clock.Now(), 100)
		require.NoError(t, err)
		assert.Empty(t, due, "nothing has expired yet")

		clock.Add(2 * time.Minute)
		due, err = s.ExpiredLinks(ctx, clock.Now(), 3)
		require.NoError(t, err)
		assert.Len(t, due, 3, "the limit bounds a batch")
		due, err = s.ExpiredLinks(ctx, clock.Now(), 100)
		require.NoError(t, err)
		require.Len(t, due, 7, "neither the live link nor the tombstone")
		for _, e := range due {
			assert.Equal(t, "owner-1", e.Owner, e.Code)
		}

		written, err := s.Tombstone(ctx, expiredTomb(due[0].Code, clock.Now(), time.Hour))
		require.NoError(t, err)
		assert.True(t, written)
		got, err := s.Get(ctx, due[0].Code)
		require.NoError(t, err, "the code is never absent")
		assert.Equal(t, link.StatusTombstone, got.Status)
		left, err := s.ExpiredLinks(ctx, clock.Now(), 100)
		require.NoError(t, err)
		assert.Len(t, left, 6, "the tombstone leaves the listing")
		assert.NotContains(t, left, due[0])
	})

	t.Run("due tombstones are released once, and only when due", func(t *testing.T) {
		s, clock := setup(t)
		for i := range 12 {
			_, err := s.Tombstone(ctx, expiredTomb(fmt.Sprintf("due%04d", i), clock.Now(), time.Hour))
			require.NoError(t, err)
		}
		_, err := s.Tombstone(ctx, expiredTomb("later01", clock.Now(), 3*time.Hour))
		require.NoError(t, err)
		require.NoError(t, s.Create(ctx, sample("livelnk", clock.Now()), nil))

		due, err := s.DueTombstones(ctx, clock.Now(), 100)
		require.NoError(t, err)
		assert.Empty(t, due, "nothing is due during the grace period")
		released, err := s.Release(ctx, "due0000", clock.Now())
		require.NoError(t, err)
		assert.False(t, released)

		clock.Add(2 * time.Hour)
		due, err = s.DueTombstones(ctx, clock.Now(), 5)
		require.NoError(t, err)
		assert.Len(t, due, 5, "the limit bounds a batch")
		due, err = s.DueTombstones(ctx, clock.Now(), 100)
		require.NoError(t, err)
		assert.Len(t, due, 12)
		assert.NotContains(t, due, "later01")
		assert.NotContains(t, due, "livelnk")

		n := 0
		for _, code := range due {
			released, err := s.Release(ctx, code, clock.Now())
			require.NoError(t, err)
			if released {
				n++
			}
			released, err = s.Release(ctx, code, clock.Now())
			require.NoError(t, err)
			assert.False(t, released, "a second release finds nothing")
		}
		assert.Equal(t, 12, n)
		released, err = s.Release(ctx, "livelnk", clock.Now())
		require.NoError(t, err)
		assert.False(t, released, "release never deletes a link")
		require.NoError(t, s.Create(ctx, sample("due0003", clock.Now()), nil), "a released code can be issued again")
	})
}

func assertTaken(t *testing.T, err error, want linkstore.Taken) {
	t.Helper()
	require.ErrorIs(t, err, link.ErrConflict)
	var ce *linkstore.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, want, ce.Taken)
}

// withFeatures is l with every redirect rule feature set, its last rule
// carrying every condition link.Conditions lists.
func withFeatures(l link.Link) link.Link {
	every := link.Rule{URL: "https://every.example/"}
	for _, c := range link.Conditions {
		*c.Values(&every) = []string{c.Name + "-1", c.Name + "-2"}
	}
	l.Features = link.Features{
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		MaxClicks:    5,
		Rules: []link.Rule{
			{URL: "https://de.example/", Country: []string{"DE", "AT"}, Device: []string{"mobile", "tablet"}},
			{URL: "https://x.example/", OS: []string{"ios"}, Language: []string{"fr", "de"}},
			every,
		},
		Targets:    []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
		ExpiredURL: "https://example.com/over",
	}
	return l
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
