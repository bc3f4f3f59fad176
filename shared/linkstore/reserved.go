package linkstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Links is what Reserved needs of the links table: a Store, and a write
// ordered by the version the reservation table granted.
type Links interface {
	Store
	// Supersede replaces owner's live link at l.Code with l if the stored
	// version is older than l.Version; a newer one stored already is left
	// alone and is no error. Absent, someone else's or a tombstone is
	// link.ErrNotFound.
	Supersede(ctx context.Context, l link.Link) error
}

// DefaultLease is how long a pending idempotency claim belongs to the
// create that wrote it. It is longer than any create can run (API
// Gateway ends an integration at 29 s, the create function's timeout is
// below that), so a retry only ever takes over from a create that is gone.
const DefaultLease = time.Minute

// DefaultStaleAfter is how old a pending reservation must be before a
// create that meets it checks whether its create died. A create confirms
// its reservation before it answers, so a pending one older than any
// create can run was never answered 201; ten minutes also leave the
// links table's replication (about a second, no SLA) far behind.
const DefaultStaleAfter = 10 * time.Minute

// Reserved is a Store for a deployment that takes creates, edits and
// deletes in several Regions. The links table is an eventually consistent
// global table (MREC): its conditional writes see only their own Region's
// replica, so by itself it cannot keep a code unique nor serialize two
// edits made in two Regions. Reserved decides both in the reservation
// table (a Ledger, MRSC) first, then writes the links table:
//
//   - Create: the Idempotency-Key's claim (pending, carrying the link),
//     then the code's reservation (pending), then the link, then the
//     reservation confirmed, then the claim settled. A taken code or key
//     writes no link. A create that fails before its link gives the code
//     and the key back; one that dies leaves pending entries that finish
//     or free themselves (see Create).
//   - Update and Delete: the reservation's version advances from the
//     version the caller read (the serialization point: of two edits of
//     one version, in any Regions, one advances and the other is 412),
//     then the links table is written with the new version, never over a
//     newer one.
//   - Release: the reservation is released (only one made before the
//     tombstone), then the tombstone.
//
// Reads (Get, List, the lifecycle queries) go to the links table as
// before; GetIdempotency and ClaimIdempotency go to the ledger. A link the
// reservation table does not know (written before the deployment had it)
// is reserved by its first edit or delete (advance), and its code is
// taken for creates all the same: the links table refuses the put.
type Reserved struct {
	Links  Links
	Ledger Ledger
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
	// Token draws a create's token; 128 random bits when nil.
	Token func() string
	// Lease and StaleAfter: DefaultLease and DefaultStaleAfter when zero.
	Lease      time.Duration
	StaleAfter time.Duration
	// Cleanup bounds the calls that undo a failed create's entries, on a
	// context of their own (the request's may be what failed); 2 s when
	// zero.
	Cleanup time.Duration
}

var _ Store = (*Reserved)(nil)

// NewReserved returns a Store that reserves in ledger before it writes links.
func NewReserved(links Links, ledger Ledger, now func() time.Time) *Reserved {
	return &Reserved{Links: links, Ledger: ledger, Now: now}
}

func (r *Reserved) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Reserved) token() string {
	if r.Token != nil {
		return r.Token()
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func (r *Reserved) lease() time.Duration {
	if r.Lease > 0 {
		return r.Lease
	}
	return DefaultLease
}

func (r *Reserved) staleAfter() time.Duration {
	if r.StaleAfter > 0 {
		return r.StaleAfter
	}
	return DefaultStaleAfter
}

// cleanupCtx is a context for undoing a failed create: detached from the
// request's cancellation, bounded by its own timeout.
func (r *Reserved) cleanupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.Cleanup
	if d <= 0 {
		d = 2 * time.Second
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// Create implements Store. Without idem: reserve, write, confirm. With
// idem, the key is claimed first and the claim carries the link, so the
// create is exactly-once across Regions: a concurrent request under the
// same key meets the claim (and answers 503 while the first runs, or the
// first answer once it is settled), and a retry after a crash takes the
// claim over and finishes the same link (GetIdempotency).
//
// What a failure leaves:
//   - before the link is written: the reservation and the claim are
//     given back (deleted under this create's token), so nothing leaks;
//   - the process dies before that undo: a pending reservation without a
//     link, which the next create of that code frees once it is older
//     than StaleAfter (reserve), and a pending claim, which a retry takes
//     over once its lease ran out;
//   - after the link: the error is answered (503), never a 201 for a
//     create not committed in the reservation table; a retry under the
//     key finishes it, and a pending reservation with its link is
//     confirmed by the next create that meets it.
func (r *Reserved) Create(ctx context.Context, l link.Link, idem *Idempotency) error {
	now, token := r.now(), r.token()
	var claimID string
	if idem != nil {
		c := Claim{Idempotency: *idem, Link: l, Token: token, Pending: true, LeaseUntil: now.Add(r.lease())}
		c.Code = l.Code
		if _, err := r.Ledger.Claim(ctx, c); err != nil {
			return err
		}
		claimID = ClaimID(idem.Owner, idem.Key)
	}
	written, err := r.reserveAndWrite(ctx, l, token, claimID, now)
	if err != nil {
		if idem != nil && !written {
			cctx, cancel := r.cleanupCtx(ctx)
			defer cancel()
			if derr := r.Ledger.DropClaim(cctx, idem.Owner, idem.Key, token); derr != nil {
				return errors.Join(err, fmt.Errorf("give back the idempotency claim (a retry takes it over after its lease): %w", derr))
			}
		}
		return err
	}
	if idem != nil {
		if err := r.Ledger.Settle(ctx, idem.Owner, idem.Key, token); err != nil {
			return fmt.Errorf("settle the idempotency claim of %q: %w", l.Code, err)
		}
	}
	return nil
}

// reserveAndWrite reserves l.Code under token, writes l to the links table
// and confirms the reservation. written reports whether the link was
// written; when it was not, the reservation has been given back.
func (r *Reserved) reserveAndWrite(ctx context.Context, l link.Link, token, claimID string, now time.Time) (written bool, err error) {
	res := Reservation{Code: l.Code, Owner: l.Owner, Version: l.Version, Pending: true, Token: token,
		Claim: claimID, ReservedAt: now, UpdatedAt: now}
	if err := r.reserve(ctx, res); err != nil {
		return false, err
	}
	if err := r.Links.Create(ctx, l, nil); err != nil {
		// The code is ours in the reservation table, so a taken code here
		// is a tombstone or a link the reservation table does not know
		// (written before it existed): taken all the same.
		cctx, cancel := r.cleanupCtx(ctx)
		defer cancel()
		if _, uerr := r.Ledger.Unreserve(cctx, l.Code, token); uerr != nil {
			return false, errors.Join(err, fmt.Errorf("give back the reservation of %q (the next create of it frees it): %w", l.Code, uerr))
		}
		return false, err
	}
	if err := r.Ledger.Confirm(ctx, l.Code, token); err != nil {
		return true, fmt.Errorf("confirm the reservation of %q: %w", l.Code, err)
	}
	return true, nil
}

// reserve writes res; a reservation in the way that its create left
// pending longer than StaleAfter ago is settled first: confirmed if its
// link exists, freed if not.
func (r *Reserved) reserve(ctx context.Context, res Reservation) error {
	held, err := r.Ledger.Reserve(ctx, res)
	var taken *ConflictError
	if !errors.As(err, &taken) || !held.Pending || res.ReservedAt.Sub(held.ReservedAt) < r.staleAfter() {
		return err
	}
	switch _, gerr := r.Links.Get(ctx, res.Code); {
	case gerr == nil:
		// Its create wrote the link and died before confirming: the code
		// is taken; confirm it on the dead create's behalf.
		if cerr := r.Ledger.Confirm(ctx, res.Code, held.Token); cerr != nil && !errors.Is(cerr, link.ErrConflict) {
			return errors.Join(err, cerr)
		}
		return err
	case !errors.Is(gerr, link.ErrNotFound):
		return errors.Join(err, gerr)
	}
	if freed, uerr := r.Ledger.Unreserve(ctx, res.Code, held.Token); uerr != nil || !freed {
		return errors.Join(err, uerr)
	}
	_, err = r.Ledger.Reserve(ctx, res)
	return err
}

// GetIdempotency implements Store from the ledger, so a retry in any
// Region sees the first request's claim. A settled claim is answered; a
// pending one whose create is still running is link.ErrUnavailable (503,
// retry later); a pending one whose lease ran out is taken over and its
// create finished, with the same code and the same link. A claim whose
// create turned out to have written nothing is dropped, and the key reads
// as unused.
func (r *Reserved) GetIdempotency(ctx context.Context, owner, key string) (Idempotency, error) {
	c, err := r.Ledger.GetClaim(ctx, owner, key)
	if err != nil || !c.Pending {
		return c.Idempotency, err
	}
	now := r.now()
	if now.Before(c.LeaseUntil) {
		return Idempotency{}, fmt.Errorf("a create under this Idempotency-Key is in progress: %w", link.ErrUnavailable)
	}
	return r.finish(ctx, c, now)
}

// finish takes over a pending claim whose create is gone and completes
// what it left: the reservation, the link, the confirmation, the claim.
func (r *Reserved) finish(ctx context.Context, c Claim, now time.Time) (Idempotency, error) {
	token := r.token()
	if err := r.Ledger.TakeOver(ctx, c.Owner, c.Key, c.Token, token, now.Add(r.lease())); err != nil {
		if errors.Is(err, link.ErrConflict) {
			return Idempotency{}, fmt.Errorf("another retry is finishing this create: %w", link.ErrUnavailable)
		}
		return Idempotency{}, err
	}
	claimID := ClaimID(c.Owner, c.Key)
	dropped := func(err error) (Idempotency, error) {
		if derr := r.Ledger.DropClaim(ctx, c.Owner, c.Key, token); derr != nil {
			return Idempotency{}, errors.Join(err, derr)
		}
		return Idempotency{}, err
	}
	held, err := r.Ledger.GetReservation(ctx, c.Code)
	switch {
	case errors.Is(err, link.ErrNotFound):
		// The first create never reserved, or gave the code back.
		if written, werr := r.reserveAndWrite(ctx, c.Link, token, claimID, now); werr != nil {
			var taken *ConflictError
			if !written && errors.As(werr, &taken) {
				// The code went to another create meanwhile: the first
				// one created nothing, and the key is free again.
				return dropped(fmt.Errorf("idempotency claim dropped: %w", link.ErrNotFound))
			}
			if !written {
				return dropped(werr)
			}
			return Idempotency{}, werr
		}
	case err != nil:
		return Idempotency{}, err
	case held.Claim != claimID:
		// Given back and taken by another create since.
		return dropped(fmt.Errorf("idempotency claim dropped: %w", link.ErrNotFound))
	case held.Pending:
		if err := r.Links.Create(ctx, c.Link, nil); err != nil && !r.isLink(ctx, err, c.Link) {
			return Idempotency{}, err
		}
		if err := r.Ledger.Confirm(ctx, c.Code, held.Token); err != nil {
			return Idempotency{}, fmt.Errorf("confirm the reservation of %q: %w", c.Code, err)
		}
	}
	if err := r.Ledger.Settle(ctx, c.Owner, c.Key, token); err != nil {
		return Idempotency{}, fmt.Errorf("settle the idempotency claim of %q: %w", c.Code, err)
	}
	return c.Idempotency, nil
}

// isLink reports whether err is a taken code because l itself is stored
// already (the first create wrote it before it died).
func (r *Reserved) isLink(ctx context.Context, err error, l link.Link) bool {
	var taken *ConflictError
	if !errors.As(err, &taken) {
		return false
	}
	got, gerr := r.Links.Get(ctx, l.Code)
	return gerr == nil && got.Owner == l.Owner && got.CreatedAt.Equal(l.CreatedAt)
}

// ClaimIdempotency implements Store in the ledger: a batch's own key,
// settled at once (it creates nothing itself).
func (r *Reserved) ClaimIdempotency(ctx context.Context, rec Idempotency) (Idempotency, error) {
	rec.Code, rec.Response = "", nil
	held, err := r.Ledger.Claim(ctx, Claim{Idempotency: rec})
	if err != nil {
		return held.Idempotency, err
	}
	return rec, nil
}

// Update implements Store: the reservation advances from expect to
// l.Version, then the links table takes l unless it holds a newer version.
// If the links table write fails, the reservation is moved back (when no
// other edit came in between), so the version a reader sees is the one an
// If-Match must name.
func (r *Reserved) Update(ctx context.Context, l link.Link, expect int64) error {
	if _, err := r.advance(ctx, l.Code, l.Owner, expect, l.Version, false); err != nil {
		return err
	}
	if err := r.Links.Supersede(ctx, l); err != nil {
		cctx, cancel := r.cleanupCtx(ctx)
		defer cancel()
		if _, berr := r.Ledger.Advance(cctx, l.Code, l.Owner, l.Version, expect, false, r.now()); berr != nil {
			return errors.Join(err, fmt.Errorf("move the reservation of %q back to version %d: %w", l.Code, expect, berr))
		}
		return err
	}
	return nil
}

// advance is Ledger.Advance, adopting first a link the reservation table
// does not know: one written before the deployment had the table (or by
// a tool that writes the links table alone). Such a link is reserved in
// its owner's name at the version this Region's links table shows, once:
// of two Regions adopting it at once, one reservation is written and the
// other Region advances from it like any edit.
func (r *Reserved) advance(ctx context.Context, code, owner string, expect, next int64, deleted bool) (Reservation, error) {
	held, err := r.Ledger.Advance(ctx, code, owner, expect, next, deleted, r.now())
	if !errors.Is(err, link.ErrNotFound) || held.Code != "" {
		return held, err
	}
	l, gerr := r.Links.Get(ctx, code)
	if gerr != nil || l.Owner != owner || l.Status == link.StatusTombstone {
		return held, err
	}
	adopt := Reservation{Code: code, Owner: owner, Version: l.Version, ReservedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	var taken *ConflictError
	if _, rerr := r.Ledger.Reserve(ctx, adopt); rerr != nil && !errors.As(rerr, &taken) {
		return held, rerr
	}
	return r.Ledger.Advance(ctx, code, owner, expect, next, deleted, r.now())
}

// Delete implements Store: the reservation is marked deleted (from expect,
// or any version), which ends every later edit in every Region, then the
// links table's item becomes the tombstone.
func (r *Reserved) Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error {
	held, err := r.advance(ctx, code, owner, expect, 0, true)
	if err != nil && !(errors.Is(err, link.ErrNotFound) && held.Deleted && held.Owner == owner) {
		return err
	}
	// Deleted in the reservation table, now or by an earlier DELETE whose
	// links table write failed: the tombstone finishes it (a tombstone
	// there already is link.ErrNotFound, as for any deleted link). Any
	// version: the reservation has decided, and no edit can follow a
	// deletion there.
	return r.Links.Delete(ctx, owner, code, 0, t)
}

// Release implements Store: the reservation first, and only one made
// before the tombstone, then the tombstone. Should the tombstone's release
// fail, a create of the code meets the tombstone in the links table and is
// refused, and the next run releases it.
func (r *Reserved) Release(ctx context.Context, code string, now time.Time) (bool, error) {
	t, err := r.Links.GetTombstone(ctx, code)
	if errors.Is(err, link.ErrNotFound) || err == nil && now.Before(t.ReclaimAfter) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if ok, err := r.Ledger.ReleaseReservation(ctx, code, t.TombstonedAt); err != nil || !ok {
		return false, err
	}
	return r.Links.Release(ctx, code, now)
}

// Get implements Store from the links table.
func (r *Reserved) Get(ctx context.Context, code string) (link.Link, error) {
	return r.Links.Get(ctx, code)
}

// List implements Store from the links table.
func (r *Reserved) List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	return r.Links.List(ctx, owner, limit, cursor)
}

// Tombstone implements Store in the links table; the reservation stays
// until reclaim releases the code.
func (r *Reserved) Tombstone(ctx context.Context, t link.Tombstone) (bool, error) {
	return r.Links.Tombstone(ctx, t)
}

// ExpiredLinks implements Store from the links table.
func (r *Reserved) ExpiredLinks(ctx context.Context, now time.Time, limit int) ([]Expired, error) {
	return r.Links.ExpiredLinks(ctx, now, limit)
}

// GetTombstone implements Store from the links table.
func (r *Reserved) GetTombstone(ctx context.Context, code string) (link.Tombstone, error) {
	return r.Links.GetTombstone(ctx, code)
}

// DueTombstones implements Store from the links table.
func (r *Reserved) DueTombstones(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return r.Links.DueTombstones(ctx, now, limit)
}
