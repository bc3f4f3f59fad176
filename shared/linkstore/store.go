package linkstore

import (
	"context"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Store keeps links, their tombstones, and the idempotency records of
// create requests.
type Store interface {
	// Create writes l if its code is free. With idem it also writes the
	// idempotency record, atomically: both are written or neither is. A
	// taken code or a live idempotency record is a *ConflictError.
	Create(ctx context.Context, l link.Link, idem *Idempotency) error
	// Get reads a link or a tombstone (Status link.StatusTombstone),
	// eventually consistent: the redirect path's read. An absent code is
	// link.ErrNotFound.
	Get(ctx context.Context, code string) (link.Link, error)
	// GetIdempotency reads the live idempotency record for owner and key,
	// strongly consistent. An absent or expired one is link.ErrNotFound.
	GetIdempotency(ctx context.Context, owner, key string) (Idempotency, error)
	// ClaimIdempotency binds rec.Key to rec.RequestHash before anything is
	// created under it: it writes rec (Owner, Key, RequestHash, ExpiresAt;
	// no Code or Response) if the key is free or its record has expired.
	// A key already held is a *ConflictError (TakenIdempotencyKey) and
	// held is the live record holding it, whatever request wrote it.
	ClaimIdempotency(ctx context.Context, rec Idempotency) (held Idempotency, err error)

	// Update replaces l (same code, same owner) if the stored version is
	// still expect and the link is not a tombstone. Someone else's link, an
	// absent one or a tombstone is link.ErrNotFound; another version is
	// link.ErrPrecondition.
	Update(ctx context.Context, l link.Link, expect int64) error
	// List returns owner's links, newest first, at most limit, each as
	// Listed, and the cursor of the next page ("" when there is none).
	List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error)
	// Delete turns owner's link into a tombstone if its version is still
	// expect (0: any version). Errors as for Update.
	Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error
	// Tombstone writes t for a code whose link expired: in place of the
	// expired link (the reclaim run's expiry sweep) or where TTL removed
	// it (ttlstream, the backstop). It never overwrites a live link created
	// since, nor an existing tombstone, so a redelivered stream record or
	// an overlapping sweep changes nothing; written reports whether this
	// call wrote it.
	Tombstone(ctx context.Context, t link.Tombstone) (written bool, err error)
	// ExpiredLinks lists up to limit links whose expiry has passed at now
	// and that are still links (not yet tombstones), through a sparse
	// index, never a scan: the reclaim run turns each into its tombstone
	// before TTL may remove it, so an expired code is never absent.
	ExpiredLinks(ctx context.Context, now time.Time, limit int) ([]Expired, error)
	// GetTombstone reads code's tombstone; link.ErrNotFound when it holds
	// none (absent, or a link).
	GetTombstone(ctx context.Context, code string) (link.Tombstone, error)
	// DueTombstones lists up to limit codes whose tombstones may be
	// released at now, through the sparse index, never a scan.
	DueTombstones(ctx context.Context, now time.Time, limit int) ([]string, error)
	// Release deletes code's tombstone if it is still a tombstone due at
	// now; released reports whether this call deleted it.
	Release(ctx context.Context, code string, now time.Time) (released bool, err error)
}

// Expired names a link whose expiry has passed, with what its tombstone
// keeps.
type Expired struct {
	Code  string
	Owner string
}

// Idempotency remembers the first answer to a create request made with an
// Idempotency-Key, so a retry gets the same link instead of a second one.
type Idempotency struct {
	Owner string
	Key   string
	// RequestHash fingerprints the request body; the same key with another
	// body is refused.
	RequestHash string
	Code        string
	// Response is the first answer's body, replayed verbatim.
	Response  []byte
	ExpiresAt time.Time
}

// IdempotencyWindow is how long a key is remembered.
const IdempotencyWindow = 24 * time.Hour

// Listed is l as a List page holds it: without the fields added to links
// after the by-owner index, whose projection cannot change
// (tableschema.ByOwnerAttributes): the query settings (forward_query,
// query_precedence) and the imported click total. Get has the whole link.
func Listed(l link.Link) link.Link {
	l.KeepQueryOut, l.QueryPrecedence = false, ""
	l.ImportedClicks = 0
	return l
}

// MaxPage bounds a List page.
const MaxPage = 100

// Taken says which key of a create was already in use.
type Taken int

const (
	// TakenCode: the link's code (a generated code or an alias) exists.
	TakenCode Taken = iota + 1
	// TakenIdempotencyKey: the owner already used this Idempotency-Key.
	TakenIdempotencyKey
)

// ConflictError is a create refused because a key is taken. It matches
// link.ErrConflict with errors.Is; use errors.As to learn which key.
type ConflictError struct {
	Taken Taken
	Code  string
}

func (e *ConflictError) Error() string {
	if e.Taken == TakenIdempotencyKey {
		return "idempotency key already used"
	}
	return fmt.Sprintf("code %q is taken", e.Code)
}

// Is makes a ConflictError match link.ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == link.ErrConflict }
