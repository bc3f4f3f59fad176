package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// RegionsFactory returns n stores standing for n Regions of one
// deployment: each its own links table (an MREC replica, which the suite
// replicates by hand where a test needs it), all one reservation ledger
// (the MRSC table), all reading the time from now.
type RegionsFactory func(t *testing.T, n int, now func() time.Time) []*linkstore.Reserved

// RunRegions is the suite of what the reservation table guarantees across
// Regions. Every linkstore.Reserved must pass it with its Ledger; the
// single-Region Store contract is Run's, which a Reserved passes too.
func RunRegions(t *testing.T, newRegions RegionsFactory) {
	runRegionRaces(t, newRegions)
	runRegionEdits(t, newRegions)
	runRegionRecovery(t, newRegions)
}

// setup returns n fresh Regions from newRegions and the clock they read.
func (newRegions RegionsFactory) setup(t *testing.T, n int) ([]*linkstore.Reserved, *Clock) {
	clock := NewClock(suiteStart)
	return newRegions(t, n, clock.Now), clock
}

// runRegionRaces runs the cases of creates and edits racing in several
// Regions.
func runRegionRaces(t *testing.T, newRegions RegionsFactory) {
	setup := newRegions.setup
	ctx := context.Background()

	t.Run("a 50-way race for one alias over three Regions has one winner", func(t *testing.T) {
		regions, clock := setup(t, 3)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			won  []int
			errs []error
		)
		for i := range 50 {
			wg.Go(func() {
				l := sample("hot", clock.Now())
				l.Alias, l.Owner = "Hot", fmt.Sprintf("owner-%d", i)
				err := regions[i%3].Create(ctx, l, nil)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won = append(won, i)
					return
				}
				errs = append(errs, err)
			})
		}
		wg.Wait()
		require.Len(t, won, 1, "exactly one create of the alias succeeds")
		for _, err := range errs {
			var taken *linkstore.ConflictError
			require.ErrorAs(t, err, &taken)
			assert.Equal(t, linkstore.TakenCode, taken.Taken)
		}
		winner := fmt.Sprintf("owner-%d", won[0])
		for r, s := range regions {
			got, err := s.Links.Get(ctx, "hot")
			if r == won[0]%3 {
				require.NoError(t, err)
				assert.Equal(t, winner, got.Owner)
				continue
			}
			assert.ErrorIs(t, err, link.ErrNotFound, "no loser wrote a link in Region %d", r)
		}
		res, err := regions[0].Ledger.GetReservation(ctx, "hot")
		require.NoError(t, err)
		assert.Equal(t, winner, res.Owner)
		assert.False(t, res.Pending, "the winner's reservation is confirmed")
	})

	t.Run("a retry under the same key in another Region gets the first create", func(t *testing.T) {
		regions, clock := setup(t, 2)
		first := sample("gen0001", clock.Now())
		idem := &linkstore.Idempotency{Owner: first.Owner, Key: "k1", RequestHash: "h", Code: first.Code,
			Response: []byte(`{"code":"gen0001"}`), ExpiresAt: clock.Now().Add(linkstore.IdempotencyWindow)}
		require.NoError(t, regions[0].Create(ctx, first, idem))

		rec, err := regions[1].GetIdempotency(ctx, first.Owner, "k1")
		require.NoError(t, err)
		assert.Equal(t, "gen0001", rec.Code)
		assert.Equal(t, "h", rec.RequestHash)
		assert.JSONEq(t, `{"code":"gen0001"}`, string(rec.Response))

		// A retry that did not look first still cannot make a second link.
		second := sample("gen0002", clock.Now())
		retry := *idem
		retry.Code = second.Code
		var taken *linkstore.ConflictError
		require.ErrorAs(t, regions[1].Create(ctx, second, &retry), &taken)
		assert.Equal(t, linkstore.TakenIdempotencyKey, taken.Taken)
		_, err = regions[1].Links.Get(ctx, "gen0002")
		assert.ErrorIs(t, err, link.ErrNotFound)
		_, err = regions[1].Ledger.GetReservation(ctx, "gen0002")
		assert.ErrorIs(t, err, link.ErrNotFound, "the refused create reserved nothing")
	})

	t.Run("two concurrent edits of one version in two Regions: one wins", func(t *testing.T) {
		regions, clock := setup(t, 2)
		l := createSeen(t, regions, "edit001", clock.Now())

		errs := make([]error, 2)
		var wg sync.WaitGroup
		for r := range 2 {
			wg.Go(func() {
				next := l
				next.URL, next.Version = fmt.Sprintf("https://example.com/region-%d", r), 2
				errs[r] = regions[r].Update(ctx, next, 1)
			})
		}
		wg.Wait()
		winner := -1
		for r, err := range errs {
			if err == nil {
				require.Equal(t, -1, winner, "both edits succeeded")
				winner = r
				continue
			}
			assert.ErrorIs(t, err, link.ErrPrecondition)
		}
		require.NotEqual(t, -1, winner, "neither edit succeeded: %v", errs)
		got, err := regions[winner].Links.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, int64(2), got.Version)
		assert.Equal(t, fmt.Sprintf("https://example.com/region-%d", winner), got.URL)
	})
}

// runRegionEdits runs the cases of an edit, a delete and a reclaim in
// one Region seen from the others.
func runRegionEdits(t *testing.T, newRegions RegionsFactory) {
	setup := newRegions.setup
	ctx := context.Background()

	t.Run("an edit from a Region that has not seen the last one is 412", func(t *testing.T) {
		regions, clock := setup(t, 2)
		l := createSeen(t, regions, "edit002", clock.Now())
		v2 := l
		v2.Version, v2.URL = 2, "https://example.com/v2"
		require.NoError(t, regions[0].Update(ctx, v2, 1))

		// Region 1's replica still shows version 1.
		stale := l
		stale.Version, stale.URL = 2, "https://example.com/stale"
		assert.ErrorIs(t, regions[1].Update(ctx, stale, 1), link.ErrPrecondition)
		assert.ErrorIs(t, regions[1].Delete(ctx, l.Owner, l.Code, 1, tomb(l.Code, clock.Now())), link.ErrPrecondition)
	})

	t.Run("a delete in one Region ends edits in every Region", func(t *testing.T) {
		regions, clock := setup(t, 2)
		l := createSeen(t, regions, "edit003", clock.Now())
		require.NoError(t, regions[0].Delete(ctx, l.Owner, l.Code, 1, tomb(l.Code, clock.Now())))

		next := l
		next.Version = 2
		assert.ErrorIs(t, regions[1].Update(ctx, next, 1), link.ErrNotFound)
		// A DELETE there (a retry, say) finishes the tombstone in that
		// Region's replica, which has not seen the first one yet; someone
		// else's is not found.
		assert.ErrorIs(t, regions[1].Delete(ctx, "intruder", l.Code, 0, tomb(l.Code, clock.Now())), link.ErrNotFound)
		require.NoError(t, regions[1].Delete(ctx, l.Owner, l.Code, 0, tomb(l.Code, clock.Now())))
		got, err := regions[1].Links.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, link.StatusTombstone, got.Status)
		assert.ErrorIs(t, regions[1].Delete(ctx, l.Owner, l.Code, 0, tomb(l.Code, clock.Now())), link.ErrNotFound)
	})

	t.Run("reclaim releases the reservation, and only then is the code free", func(t *testing.T) {
		regions, clock := setup(t, 2)
		l := sample("reuse01", clock.Now())
		require.NoError(t, regions[0].Create(ctx, l, nil))
		require.NoError(t, regions[0].Delete(ctx, l.Owner, l.Code, 0, tomb(l.Code, clock.Now())))

		other := sample("reuse01", clock.Now())
		other.Owner = "someone-else"
		var taken *linkstore.ConflictError
		require.ErrorAs(t, regions[1].Create(ctx, other, nil), &taken, "a tombstoned code stays reserved")

		released, err := regions[0].Release(ctx, l.Code, clock.Now())
		require.NoError(t, err)
		assert.False(t, released, "not due yet")
		_, err = regions[0].Ledger.GetReservation(ctx, l.Code)
		require.NoError(t, err, "the reservation stays until the tombstone is due")

		clock.Add(2 * time.Hour)
		released, err = regions[0].Release(ctx, l.Code, clock.Now())
		require.NoError(t, err)
		assert.True(t, released)
		_, err = regions[0].Ledger.GetReservation(ctx, l.Code)
		assert.ErrorIs(t, err, link.ErrNotFound)

		other.CreatedAt = clock.Now().Truncate(time.Millisecond)
		require.NoError(t, regions[1].Create(ctx, other, nil), "the released code is issued again")
	})
}

// runRegionRecovery runs the cases of a create that died halfway and
// of links older than the reservation table.
func runRegionRecovery(t *testing.T, newRegions RegionsFactory) {
	setup := newRegions.setup
	ctx := context.Background()

	t.Run("a crashed create under a key is finished by a retry in another Region", func(t *testing.T) {
		regions, clock := setup(t, 2)
		l := sample("crash01", clock.Now())
		ledger := regions[0].Ledger
		// What a create leaves when it dies after its reservation.
		_, err := ledger.Claim(ctx, linkstore.Claim{
			Idempotency: linkstore.Idempotency{Owner: l.Owner, Key: "k", RequestHash: "h", Code: l.Code,
				Response: []byte(`{"code":"crash01"}`), ExpiresAt: clock.Now().Add(linkstore.IdempotencyWindow)},
			Link: l, Token: "dead", Pending: true, LeaseUntil: clock.Now().Add(linkstore.DefaultLease),
		})
		require.NoError(t, err)
		_, err = ledger.Reserve(ctx, linkstore.Reservation{Code: l.Code, Owner: l.Owner, Version: 1, Pending: true,
			Token: "dead", Claim: linkstore.ClaimID(l.Owner, "k"), ReservedAt: clock.Now(), UpdatedAt: clock.Now()})
		require.NoError(t, err)

		_, err = regions[1].GetIdempotency(ctx, l.Owner, "k")
		assert.ErrorIs(t, err, link.ErrUnavailable, "within the lease the first create may still be running")

		clock.Add(linkstore.DefaultLease + time.Second)
		rec, err := regions[1].GetIdempotency(ctx, l.Owner, "k")
		require.NoError(t, err)
		assert.Equal(t, l.Code, rec.Code)
		got, err := regions[1].Links.Get(ctx, l.Code)
		require.NoError(t, err)
		assert.Equal(t, l, got)
		res, err := ledger.GetReservation(ctx, l.Code)
		require.NoError(t, err)
		assert.False(t, res.Pending)
		c, err := ledger.GetClaim(ctx, l.Owner, "k")
		require.NoError(t, err)
		assert.False(t, c.Pending)
	})

	t.Run("a dead create's reservation is freed once stale, unless its link exists", func(t *testing.T) {
		regions, clock := setup(t, 2)
		ledger := regions[0].Ledger
		for _, code := range []string{"dead001", "dead002"} {
			_, err := ledger.Reserve(ctx, linkstore.Reservation{Code: code, Owner: "ghost", Version: 1, Pending: true,
				Token: "dead", ReservedAt: clock.Now(), UpdatedAt: clock.Now()})
			require.NoError(t, err)
		}
		ghost := sample("dead002", clock.Now())
		ghost.Owner = "ghost"
		require.NoError(t, regions[1].Links.Create(ctx, ghost, nil), "dead002's create wrote its link, then died")

		var taken *linkstore.ConflictError
		require.ErrorAs(t, regions[1].Create(ctx, sample("dead001", clock.Now()), nil), &taken, "not stale yet")
		clock.Add(linkstore.DefaultStaleAfter + time.Second)
		require.NoError(t, regions[1].Create(ctx, sample("dead001", clock.Now()), nil), "freed: its create wrote nothing")

		require.ErrorAs(t, regions[1].Create(ctx, sample("dead002", clock.Now()), nil), &taken, "its link exists")
		res, err := ledger.GetReservation(ctx, "dead002")
		require.NoError(t, err)
		assert.Equal(t, "ghost", res.Owner)
		assert.False(t, res.Pending, "confirmed on the dead create's behalf")
	})

	t.Run("a link written before the reservation table is adopted by its first edit", func(t *testing.T) {
		regions, clock := setup(t, 2)
		old := sample("before1", clock.Now())
		old.Version = 4
		require.NoError(t, regions[0].Links.Create(ctx, old, nil))
		replicate(t, regions[0], regions[1], old.Code)

		// Someone else's edit or a stale version is refused as before.
		other := old
		other.Owner, other.Version = "intruder", 5
		assert.ErrorIs(t, regions[0].Update(ctx, other, 4), link.ErrNotFound)
		next := old
		next.Version, next.URL = 5, "https://example.com/adopted"
		assert.ErrorIs(t, regions[1].Update(ctx, next, 3), link.ErrPrecondition)

		require.NoError(t, regions[0].Update(ctx, next, 4))
		res, err := regions[0].Ledger.GetReservation(ctx, old.Code)
		require.NoError(t, err)
		assert.Equal(t, int64(5), res.Version)
		assert.Equal(t, old.Owner, res.Owner)
		// Once adopted, the other Region's replica (still at 4) is stale.
		assert.ErrorIs(t, regions[1].Update(ctx, next, 4), link.ErrPrecondition)
		require.NoError(t, regions[0].Delete(ctx, old.Owner, old.Code, 5, tomb(old.Code, clock.Now())))

		gone := sample("before2", clock.Now())
		require.NoError(t, regions[1].Links.Create(ctx, gone, nil))
		require.NoError(t, regions[1].Delete(ctx, gone.Owner, gone.Code, 0, tomb(gone.Code, clock.Now())), "a delete adopts too")
	})

	t.Run("a create whose link write is refused gives its reservation and key back", func(t *testing.T) {
		regions, clock := setup(t, 1)
		// A link the reservation table does not know (written before it).
		old := sample("legacy1", clock.Now())
		require.NoError(t, regions[0].Links.Create(ctx, old, nil))

		l := sample("legacy1", clock.Now())
		l.Owner = "newcomer"
		idem := &linkstore.Idempotency{Owner: l.Owner, Key: "k", RequestHash: "h", Code: l.Code, ExpiresAt: clock.Now().Add(time.Hour)}
		var taken *linkstore.ConflictError
		require.ErrorAs(t, regions[0].Create(ctx, l, idem), &taken)
		assert.Equal(t, linkstore.TakenCode, taken.Taken)
		_, err := regions[0].Ledger.GetReservation(ctx, l.Code)
		assert.ErrorIs(t, err, link.ErrNotFound)
		_, err = regions[0].Ledger.GetClaim(ctx, l.Owner, "k")
		assert.ErrorIs(t, err, link.ErrNotFound, "the key is free for a retry")
	})
}

// createSeen creates a sample link at code in Region 0 and replicates it
// to Region 1: a link both Regions have seen.
func createSeen(t *testing.T, regions []*linkstore.Reserved, code string, now time.Time) link.Link {
	t.Helper()
	l := sample(code, now)
	require.NoError(t, regions[0].Create(context.Background(), l, nil))
	replicate(t, regions[0], regions[1], l.Code)
	return l
}

// replicate copies code's link from one Region's links table to another's,
// as MREC replication would.
func replicate(t *testing.T, from, to *linkstore.Reserved, code string) {
	t.Helper()
	l, err := from.Links.Get(context.Background(), code)
	require.NoError(t, err)
	err = to.Links.Create(context.Background(), l, nil)
	if !errors.Is(err, link.ErrConflict) {
		require.NoError(t, err)
	}
}

func tomb(code string, now time.Time) link.Tombstone {
	return link.Tombstone{Code: code, TombstonedAt: now, ReclaimAfter: now.Add(time.Hour), Reason: "deleted"}
}
