package linkstore

import (
	"context"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Ledger is the reservation table: a small table whose every conditional
// write and strongly consistent read sees the latest state in every
// Region (a DynamoDB global table in multi-Region strong consistency,
// MRSC). It holds what must be decided once for the whole deployment:
// which code belongs to whom at which version (Reservation) and which
// Idempotency-Key names which create (Claim). The links table beside it
// stays an eventually consistent global table with TTL, streams and
// transactions, none of which MRSC offers. No method is a transaction:
// MRSC has none (see Reserved for how the two tables stay in step).
type Ledger interface {
	// Reserve writes r if no reservation holds r.Code. Otherwise it is a
	// *ConflictError (TakenCode) and held is the reservation that holds it.
	Reserve(ctx context.Context, r Reservation) (held Reservation, err error)
	// GetReservation reads code's reservation, strongly consistent;
	// link.ErrNotFound when there is none.
	GetReservation(ctx context.Context, code string) (Reservation, error)
	// Confirm marks code's pending reservation held by token as live.
	// Another token, or none, is link.ErrConflict.
	Confirm(ctx context.Context, code, token string) error
	// Unreserve deletes code's reservation if it is still pending under
	// token: a create that could not write its link gives the code back.
	// It reports false when the reservation held another token or none.
	Unreserve(ctx context.Context, code, token string) (bool, error)
	// Advance moves owner's live reservation of code from version expect
	// (0: any) to next (0: the stored version plus one), and marks it
	// deleted when deleted is set: the
	// serialization point of every edit and delete. Absent, someone
	// else's, pending or deleted is link.ErrNotFound; another version is
	// link.ErrPrecondition; held is the reservation as it was.
	Advance(ctx context.Context, code, owner string, expect, next int64, deleted bool, now time.Time) (held Reservation, err error)
	// ReleaseReservation deletes code's reservation if it was written at or
	// before reservedBy (the tombstone's time): a reservation made since
	// belongs to a new create and stays. An absent one counts as released.
	ReleaseReservation(ctx context.Context, code string, reservedBy time.Time) (bool, error)

	// Claim writes c if c.Key is free for c.Owner or its claim has expired.
	// A key held is a *ConflictError (TakenIdempotencyKey) and held is the
	// live claim holding it.
	Claim(ctx context.Context, c Claim) (held Claim, err error)
	// GetClaim reads owner's live claim of key, strongly consistent; an
	// absent or expired one is link.ErrNotFound.
	GetClaim(ctx context.Context, owner, key string) (Claim, error)
	// TakeOver hands a pending claim whose lease ran out to a new token
	// with a new lease, if it is still held by old; otherwise
	// link.ErrConflict.
	TakeOver(ctx context.Context, owner, key, old, token string, leaseUntil time.Time) error
	// Settle marks a pending claim held by token done.
	Settle(ctx context.Context, owner, key, token string) error
	// DropClaim deletes a pending claim held by token: its create wrote
	// nothing and the key is free again.
	DropClaim(ctx context.Context, owner, key, token string) error
}

// Reservation is a code's entry in the reservation table.
type Reservation struct {
	Code  string
	Owner string
	// Version is the link's version as the last edit granted it: the
	// links table's item carries the same number once that edit is
	// written there.
	Version int64
	// Pending: written by a create that has not yet written its link and
	// answered. Token names that create.
	Pending bool
	Token   string
	// Deleted: the owner deleted the link; the code waits for reclaim.
	Deleted bool
	// Claim names the idempotency claim (owner and key) the create ran
	// under, "" without one.
	Claim      string
	ReservedAt time.Time
	UpdatedAt  time.Time
}

// Claim is an Idempotency-Key's entry in the reservation table. A create
// under a key writes it first, pending, with everything needed to finish
// the create (the code and the link itself), so a retry in any Region can
// answer, or finish it, without a second link.
type Claim struct {
	Idempotency
	// Link is the link the create writes; zero for a batch's own key.
	Link    link.Link
	Token   string
	Pending bool
	// LeaseUntil: until then a pending claim belongs to the create that
	// wrote it, and a retry answers 503; after it, a retry takes over.
	LeaseUntil time.Time
}

// ClaimID names a claim in Reservation.Claim.
func ClaimID(owner, key string) string { return idemKey(owner, key) }
