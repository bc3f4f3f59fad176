// Package linkcounter keeps the per-link counters the redirect decides
// with: the human clicks a link with a click limit has used, and the wrong
// password attempts made on a protected link in the last minute. Both must
// hold across every Lambda instance, so they live in DynamoDB
// (linkcounter/dynamocounter); Memory serves the tests.
package linkcounter

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// Limits on password attempts: more than MaxAttempts wrong passwords for
// one code within Window answer 429.
const (
	MaxAttempts = 10
	Window      = time.Minute
)

// ErrLimited is returned by Attempt when the code has had MaxAttempts
// attempts in its current window.
var ErrLimited = errors.New("too many password attempts")

// Store keeps the counters.
type Store interface {
	// UseClick takes one of max clicks of the link incarnation key
	// (ClickKey) and reports whether one was left. It is one atomic
	// conditional write, so however many calls race, at most max succeed.
	// expires is when the counter may be forgotten.
	UseClick(ctx context.Context, key string, max int64, expires time.Time) (bool, error)
	// ClicksUsed reads how many clicks of key were used (possibly a moment
	// stale).
	ClicksUsed(ctx context.Context, key string) (int64, error)
	// Attempt reserves one password attempt on code at now. A window opens
	// with the first attempt and lasts Window; within it at most
	// MaxAttempts are reserved, and the next one is ErrLimited with how
	// long until the window ends.
	Attempt(ctx context.Context, code string, now time.Time) (retryAfter time.Duration, err error)
	// Forgive gives back an attempt that turned out right, so only wrong
	// ones count; a window that has ended is left alone.
	Forgive(ctx context.Context, code string, now time.Time) error
}

// ClickKey names the click counter of one incarnation of a link: a code
// reclaimed and issued again starts from zero.
func ClickKey(code string, createdAt time.Time) string {
	return code + "#" + strconv.FormatInt(createdAt.UnixMilli(), 10)
}

// Memory is a Store in memory, for tests.
type Memory struct {
	mu       sync.Mutex
	used     map[string]int64
	attempts map[string]*window
}

type window struct {
	n     int
	until time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{used: map[string]int64{}, attempts: map[string]*window{}}
}

// UseClick implements Store.
func (m *Memory) UseClick(_ context.Context, key string, max int64, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used[key] >= max {
		return false, nil
	}
	m.used[key]++
	return true, nil
}

// ClicksUsed implements Store.
func (m *Memory) ClicksUsed(_ context.Context, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used[key], nil
}

// Attempt implements Store.
func (m *Memory) Attempt(_ context.Context, code string, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.attempts[code]
	switch {
	case w == nil || !now.Before(w.until):
		m.attempts[code] = &window{n: 1, until: now.Add(Window)}
	case w.n < MaxAttempts:
		w.n++
	default:
		return w.until.Sub(now), ErrLimited
	}
	return 0, nil
}

// Forgive implements Store.
func (m *Memory) Forgive(_ context.Context, code string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.attempts[code]; w != nil && now.Before(w.until) && w.n > 0 {
		w.n--
	}
	return nil
}
