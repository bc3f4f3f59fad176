package linkstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Memory is a Store in process memory, for unit tests and benchmarks. It
// honours the same conditions as DynamoDB, including that an expired
// idempotency record no longer blocks its key.
type Memory struct {
	mu    sync.Mutex
	links map[string]link.Link
	idem  map[string]Idempotency
	now   func() time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store that reads the time from now (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{links: map[string]link.Link{}, idem: map[string]Idempotency{}, now: now}
}

func idemKey(owner, key string) string { return owner + "\x00" + key }

// Create implements Store.
func (m *Memory) Create(ctx context.Context, l link.Link, idem *Idempotency) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.links[l.Code]; ok {
		return &ConflictError{Taken: TakenCode, Code: l.Code}
	}
	if idem != nil {
		if old, ok := m.idem[idemKey(idem.Owner, idem.Key)]; ok && m.now().Before(old.ExpiresAt) {
			return &ConflictError{Taken: TakenIdempotencyKey, Code: l.Code}
		}
		rec := *idem
		rec.Response = append([]byte(nil), idem.Response...)
		m.idem[idemKey(idem.Owner, idem.Key)] = rec
	}
	m.links[l.Code] = l
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, code string) (link.Link, error) {
	if err := ctx.Err(); err != nil {
		return link.Link{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.links[code]
	if !ok {
		return link.Link{}, fmt.Errorf("get link %q: %w", code, link.ErrNotFound)
	}
	return l, nil
}

// GetIdempotency implements Store.
func (m *Memory) GetIdempotency(ctx context.Context, owner, key string) (Idempotency, error) {
	if err := ctx.Err(); err != nil {
		return Idempotency{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.idem[idemKey(owner, key)]
	if !ok || !m.now().Before(rec.ExpiresAt) {
		return Idempotency{}, fmt.Errorf("get idempotency record: %w", link.ErrNotFound)
	}
	return rec, nil
}
