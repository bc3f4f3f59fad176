package linkstore

import (
	"context"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Store keeps links and the idempotency records of create requests.
type Store interface {
	// Create writes l if its code is free. With idem it also writes the
	// idempotency record, atomically: both are written or neither is. A
	// taken code or a live idempotency record is a *ConflictError.
	Create(ctx context.Context, l link.Link, idem *Idempotency) error
	// Get reads a link, eventually consistent: the redirect path's read.
	// An absent code is link.ErrNotFound.
	Get(ctx context.Context, code string) (link.Link, error)
	// GetIdempotency reads the live idempotency record for owner and key,
	// strongly consistent. An absent or expired one is link.ErrNotFound.
	GetIdempotency(ctx context.Context, owner, key string) (Idempotency, error)
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
