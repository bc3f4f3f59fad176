package visitors

import (
	"context"
	"crypto/rand"
	"sync"
	"time"
)

// SaltLife is how long a day's salt is kept: its day and one more, for
// late clicks; TTL then deletes it.
const SaltLife = 48 * time.Hour

// Salts hands out the salt of a UTC day, creating a random one for a day
// that has none. Two callers asking for the same day get the same salt
// while it lives.
type Salts interface {
	// Salt returns the salt of the UTC day that starts at day (epoch
	// seconds); ok is false when that salt's life (SaltLife from the day's
	// start) is over, so no salt may be made for it any more.
	Salt(ctx context.Context, day int64) (salt []byte, ok bool, err error)
}

// NewSalt returns SaltBytes random bytes.
func NewSalt() []byte {
	b := make([]byte, SaltBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return b
}

// Memory is Salts in process memory, for tests and tools; Now is the
// clock (time.Now when nil).
type Memory struct {
	Now   func() time.Time
	mu    sync.Mutex
	salts map[int64][]byte
}

var _ Salts = (*Memory)(nil)

// Salt implements Salts.
func (m *Memory) Salt(_ context.Context, day int64) ([]byte, bool, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	if !now().Before(time.Unix(day, 0).Add(SaltLife)) {
		return nil, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.salts == nil {
		m.salts = map[int64][]byte{}
	}
	s, ok := m.salts[day]
	if !ok {
		s = NewSalt()
		m.salts[day] = s
	}
	return s, true, nil
}

// Cache keeps the salts a Salts handed out for as long as they live, so a
// clicks function asks the table once per day and instance.
type Cache struct {
	Salts Salts
	Now   func() time.Time // time.Now when nil
	mu    sync.Mutex
	days  map[int64][]byte
}

// Salt implements Salts through the cache.
func (c *Cache) Salt(ctx context.Context, day int64) ([]byte, bool, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	if !now().Before(time.Unix(day, 0).Add(SaltLife)) {
		return nil, false, nil // its salt is gone, or about to be
	}
	c.mu.Lock()
	s, ok := c.days[day]
	c.mu.Unlock()
	if ok {
		return s, true, nil
	}
	s, ok, err := c.Salts.Salt(ctx, day)
	if err != nil || !ok {
		return nil, ok, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.days == nil || len(c.days) > 4 {
		c.days = map[int64][]byte{} // forget days long gone
	}
	c.days[day] = s
	return s, true, nil
}
