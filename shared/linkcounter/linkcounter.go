// Package linkcounter keeps the per-link counters the redirect decides
// with: the human clicks a link with a click limit has used, and the wrong
// password attempts made on a protected link, per viewer and per code. All must
// hold across every Lambda instance, so they live in DynamoDB
// (dynamo.Counter); Memory serves the tests.
package linkcounter

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// Limit is a budget of password attempts: a window opens with the first
// attempt and lasts Window; within it at most Max are reserved.
type Limit struct {
	Max    int
	Window time.Duration
}

// The two budgets a password attempt is counted against, the viewer's
// first (docs/api.md, "Links with redirect rules", has the arithmetic):
//
//   - ViewerLimit, per viewer (ViewerKey) and code: what one person, or
//     one attacker at one address, may try. Its window is long, so a
//     viewer counts at most 2*Max-1 attempts within any CodeLimit window
//     (Max-1 at the end of one of its windows, Max at the start of the
//     next), well under CodeLimit.Max: one viewer alone never locks
//     anyone else out.
//   - CodeLimit, per code (CodeKey): what every viewer together may try,
//     the cap against guessing spread over many addresses.
var (
	ViewerLimit = Limit{Max: 5, Window: 15 * time.Minute}
	CodeLimit   = Limit{Max: 20, Window: time.Minute}
)

// ErrLimited is returned by Attempt when the key has had its limit's Max
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
	// Attempt reserves one password attempt on key (CodeKey, ViewerKey)
	// at now. A window opens with the first attempt and lasts lim.Window;
	// within it at most lim.Max are reserved, and the next one is
	// ErrLimited with how long until the window ends.
	Attempt(ctx context.Context, key string, lim Limit, now time.Time) (retryAfter time.Duration, err error)
	// Forgive gives back an attempt on key that turned out right or was
	// never checked, so only wrong ones count; a window that has ended is
	// left alone.
	Forgive(ctx context.Context, key string, now time.Time) error
}

// CodeKey names the password attempts made on code by every viewer.
func CodeKey(code string) string { return code }

// ViewerKey names the password attempts one viewer made on code; client
// is missbudget.Client of the viewer's address ("" when it has none,
// which all such viewers then share). A code never holds "#", so no
// ViewerKey is another code's CodeKey.
func ViewerKey(code, client string) string { return code + "#" + client }

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
func (m *Memory) Attempt(_ context.Context, key string, lim Limit, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.attempts[key]
	switch {
	case w == nil || !now.Before(w.until):
		m.attempts[key] = &window{n: 1, until: now.Add(lim.Window)}
	case w.n < lim.Max:
		w.n++
	default:
		return w.until.Sub(now), ErrLimited
	}
	return 0, nil
}

// Forgive implements Store.
func (m *Memory) Forgive(_ context.Context, key string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.attempts[key]; w != nil && now.Before(w.until) && w.n > 0 {
		w.n--
	}
	return nil
}
