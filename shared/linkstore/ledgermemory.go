package linkstore

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// MemoryLedger is a Ledger in process memory: one lock stands for MRSC's
// strong consistency, so handlers configured as different Regions that
// share one MemoryLedger see one another's reservations at once, as they
// would share an MRSC table.
type MemoryLedger struct {
	mu     sync.Mutex
	res    map[string]Reservation
	claims map[string]Claim
	now    func() time.Time
	// Fault, when set, is called before each write with the operation's
	// name; an error it returns is the write's answer and nothing is
	// written (for example a *types.ReplicatedWriteConflictException).
	Fault func(op string) error
}

var _ Ledger = (*MemoryLedger)(nil)

// NewMemoryLedger returns an empty ledger reading the time from now
// (time.Now when nil).
func NewMemoryLedger(now func() time.Time) *MemoryLedger {
	if now == nil {
		now = time.Now
	}
	return &MemoryLedger{res: map[string]Reservation{}, claims: map[string]Claim{}, now: now}
}

func (m *MemoryLedger) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.Fault != nil {
		if err := m.Fault(op); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	m.mu.Lock()
	return nil
}

// Reserve implements Ledger.
func (m *MemoryLedger) Reserve(ctx context.Context, r Reservation) (Reservation, error) {
	if err := m.begin(ctx, "reserve"); err != nil {
		return Reservation{}, err
	}
	defer m.mu.Unlock()
	if held, ok := m.res[r.Code]; ok {
		return held, &ConflictError{Taken: TakenCode, Code: r.Code}
	}
	m.res[r.Code] = r
	return r, nil
}

// GetReservation implements Ledger.
func (m *MemoryLedger) GetReservation(ctx context.Context, code string) (Reservation, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return Reservation{}, err
	}
	defer m.mu.Unlock()
	r, ok := m.res[code]
	if !ok {
		return Reservation{}, fmt.Errorf("reservation %q: %w", code, link.ErrNotFound)
	}
	return r, nil
}

// Confirm implements Ledger.
func (m *MemoryLedger) Confirm(ctx context.Context, code, token string) error {
	if err := m.begin(ctx, "confirm"); err != nil {
		return err
	}
	defer m.mu.Unlock()
	r, ok := m.res[code]
	if !ok || !r.Pending || r.Token != token {
		return fmt.Errorf("confirm reservation %q: %w", code, link.ErrConflict)
	}
	r.Pending, r.Token = false, ""
	m.res[code] = r
	return nil
}

// Unreserve implements Ledger.
func (m *MemoryLedger) Unreserve(ctx context.Context, code, token string) (bool, error) {
	if err := m.begin(ctx, "unreserve"); err != nil {
		return false, err
	}
	defer m.mu.Unlock()
	r, ok := m.res[code]
	if !ok || !r.Pending || r.Token != token {
		return false, nil
	}
	delete(m.res, code)
	return true, nil
}

// Advance implements Ledger.
func (m *MemoryLedger) Advance(ctx context.Context, code, owner string, expect, next int64, deleted bool, now time.Time) (Reservation, error) {
	if err := m.begin(ctx, "advance"); err != nil {
		return Reservation{}, err
	}
	defer m.mu.Unlock()
	r, ok := m.res[code]
	if !ok || r.Owner != owner || r.Pending || r.Deleted {
		return r, fmt.Errorf("reservation %q: %w", code, link.ErrNotFound)
	}
	if expect != 0 && r.Version != expect {
		return r, fmt.Errorf("reservation %q is at version %d, not %d: %w", code, r.Version, expect, link.ErrPrecondition)
	}
	held := r
	if next == 0 {
		next = r.Version + 1
	}
	r.Version, r.Deleted, r.UpdatedAt = next, deleted, now
	m.res[code] = r
	return held, nil
}

// ReleaseReservation implements Ledger.
func (m *MemoryLedger) ReleaseReservation(ctx context.Context, code string, reservedBy time.Time) (bool, error) {
	if err := m.begin(ctx, "release"); err != nil {
		return false, err
	}
	defer m.mu.Unlock()
	if r, ok := m.res[code]; ok && r.ReservedAt.After(reservedBy) {
		return false, nil
	}
	delete(m.res, code)
	return true, nil
}

// Claim implements Ledger.
func (m *MemoryLedger) Claim(ctx context.Context, c Claim) (Claim, error) {
	if err := m.begin(ctx, "claim"); err != nil {
		return Claim{}, err
	}
	defer m.mu.Unlock()
	k := idemKey(c.Owner, c.Key)
	if held, ok := m.claims[k]; ok && m.now().Before(held.ExpiresAt) {
		return held, &ConflictError{Taken: TakenIdempotencyKey, Code: c.Code}
	}
	c.Response = append([]byte(nil), c.Response...)
	m.claims[k] = c
	return c, nil
}

// GetClaim implements Ledger.
func (m *MemoryLedger) GetClaim(ctx context.Context, owner, key string) (Claim, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return Claim{}, err
	}
	defer m.mu.Unlock()
	c, ok := m.claims[idemKey(owner, key)]
	if !ok || !m.now().Before(c.ExpiresAt) {
		return Claim{}, fmt.Errorf("get idempotency claim: %w", link.ErrNotFound)
	}
	return c, nil
}

// TakeOver implements Ledger.
func (m *MemoryLedger) TakeOver(ctx context.Context, owner, key, old, token string, leaseUntil time.Time) error {
	if err := m.begin(ctx, "take over"); err != nil {
		return err
	}
	defer m.mu.Unlock()
	k := idemKey(owner, key)
	c, ok := m.pending(k, old)
	if !ok {
		return fmt.Errorf("take over idempotency claim: %w", link.ErrConflict)
	}
	c.Token, c.LeaseUntil = token, leaseUntil
	m.claims[k] = c
	return nil
}

// Settle implements Ledger.
func (m *MemoryLedger) Settle(ctx context.Context, owner, key, token string) error {
	if err := m.begin(ctx, "settle"); err != nil {
		return err
	}
	defer m.mu.Unlock()
	k := idemKey(owner, key)
	c, ok := m.pending(k, token)
	if !ok {
		return fmt.Errorf("settle idempotency claim: %w", link.ErrConflict)
	}
	c.Pending, c.Token = false, ""
	m.claims[k] = c
	return nil
}

// DropClaim implements Ledger.
func (m *MemoryLedger) DropClaim(ctx context.Context, owner, key, token string) error {
	if err := m.begin(ctx, "drop claim"); err != nil {
		return err
	}
	defer m.mu.Unlock()
	k := idemKey(owner, key)
	if _, ok := m.pending(k, token); ok {
		delete(m.claims, k)
	}
	return nil
}

// pending is the claim at k, and whether it is pending under token: the
// one claim TakeOver, Settle and DropClaim may change.
func (m *MemoryLedger) pending(k, token string) (Claim, bool) {
	c, ok := m.claims[k]
	return c, ok && c.Pending && c.Token == token
}

// Reservations returns a copy of every reservation, for tests that check
// nothing half-done remains.
func (m *MemoryLedger) Reservations() map[string]Reservation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.res)
}

// Claims returns a copy of every claim, keyed by ClaimID.
func (m *MemoryLedger) Claims() map[string]Claim {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.claims)
}
