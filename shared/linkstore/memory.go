package linkstore

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Memory is a Store in process memory, for unit tests and benchmarks. It
// honours the same conditions as DynamoDB, including that an expired
// idempotency record no longer blocks its key.
type Memory struct {
	mu    sync.Mutex
	links map[string]entry
	idem  map[string]Idempotency
	now   func() time.Time
}

// entry is a link or, when tomb is set, a tombstone. Links go in and come
// out as clones (link.Link.Clone), so neither the caller that wrote a link
// nor one that read it can change what is stored, as with DynamoDB.
type entry struct {
	link link.Link
	tomb *link.Tombstone
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store that reads the time from now (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{links: map[string]entry{}, idem: map[string]Idempotency{}, now: now}
}

// lockFor takes mu for one call on ctx, unless ctx is done already: a
// call on a cancelled context fails without touching the store, as a
// DynamoDB call would. The caller unlocks.
func lockFor(ctx context.Context, mu *sync.Mutex) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	mu.Lock()
	return nil
}

func idemKey(owner, key string) string { return owner + "\x00" + key }

// Create implements Store.
func (m *Memory) Create(ctx context.Context, l link.Link, idem *Idempotency) error {
	if err := lockFor(ctx, &m.mu); err != nil {
		return err
	}
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
	m.links[l.Code] = entry{link: l.Clone()}
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, code string) (link.Link, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return link.Link{}, err
	}
	defer m.mu.Unlock()
	e, ok := m.links[code]
	if !ok {
		return link.Link{}, fmt.Errorf("get link %q: %w", code, link.ErrNotFound)
	}
	if e.tomb != nil {
		return e.tomb.AsLink(), nil
	}
	return e.link.Clone(), nil
}

// GetIdempotency implements Store.
func (m *Memory) GetIdempotency(ctx context.Context, owner, key string) (Idempotency, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return Idempotency{}, err
	}
	defer m.mu.Unlock()
	rec, ok := m.idem[idemKey(owner, key)]
	if !ok || !m.now().Before(rec.ExpiresAt) {
		return Idempotency{}, fmt.Errorf("get idempotency record: %w", link.ErrNotFound)
	}
	return rec, nil
}

// ClaimIdempotency implements Store.
func (m *Memory) ClaimIdempotency(ctx context.Context, rec Idempotency) (Idempotency, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return Idempotency{}, err
	}
	defer m.mu.Unlock()
	k := idemKey(rec.Owner, rec.Key)
	if old, ok := m.idem[k]; ok && m.now().Before(old.ExpiresAt) {
		return old, &ConflictError{Taken: TakenIdempotencyKey}
	}
	rec.Code, rec.Response = "", nil
	m.idem[k] = rec
	return rec, nil
}

// owned returns owner's live link at code, or the error Update and Delete
// answer: not found for anything the owner may not see, a precondition
// failure for a version they did not read.
func (m *Memory) owned(owner, code string, expect int64) (link.Link, error) {
	e, ok := m.links[code]
	if !ok || e.tomb != nil || e.link.Owner != owner {
		return link.Link{}, fmt.Errorf("link %q: %w", code, link.ErrNotFound)
	}
	if expect != 0 && e.link.Version != expect {
		return link.Link{}, fmt.Errorf("link %q is at version %d, not %d: %w", code, e.link.Version, expect, link.ErrPrecondition)
	}
	return e.link, nil
}

// Update implements Store.
func (m *Memory) Update(ctx context.Context, l link.Link, expect int64) error {
	if err := lockFor(ctx, &m.mu); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, err := m.owned(l.Owner, l.Code, expect); err != nil {
		return err
	}
	m.links[l.Code] = entry{link: l.Clone()}
	return nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	after, err := DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	limit = clampLimit(limit)
	m.mu.Lock()
	var all []link.Link
	for _, e := range m.links {
		if e.tomb == nil && e.link.Owner == owner && after.Before(e.link) {
			all = append(all, Listed(e.link.Clone()))
		}
	}
	m.mu.Unlock()
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.Code > b.Code
	})
	if len(all) <= limit {
		return all, "", nil
	}
	page := all[:limit]
	return page, EncodeCursor(page[limit-1]), nil
}

func clampLimit(limit int) int {
	if limit <= 0 || limit > MaxPage {
		return MaxPage
	}
	return limit
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error {
	if err := lockFor(ctx, &m.mu); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, err := m.owned(owner, code, expect); err != nil {
		return err
	}
	t.Code, t.PrevOwner, t.ExpiredURL = code, owner, ""
	m.links[code] = entry{tomb: &t}
	return nil
}

// Tombstone implements Store.
func (m *Memory) Tombstone(ctx context.Context, t link.Tombstone) (bool, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return false, err
	}
	defer m.mu.Unlock()
	if e, ok := m.links[t.Code]; ok && (e.tomb != nil || m.now().Before(e.link.ExpiresAt)) {
		return false, nil // a tombstone already, or a live link created since
	}
	t.ExpiredURL = keptExpiredURL(t, m.links[t.Code].link)
	m.links[t.Code] = entry{tomb: &t}
	return true, nil
}

// ExpiredLinks implements Store.
func (m *Memory) ExpiredLinks(ctx context.Context, now time.Time, limit int) ([]Expired, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	var due []Expired
	for _, code := range m.firstCodes(limit, func(e entry) bool { return e.tomb == nil && !now.Before(e.link.ExpiresAt) }) {
		due = append(due, Expired{Code: code, Owner: m.links[code].link.Owner})
	}
	return due, nil
}

// DueTombstones implements Store.
func (m *Memory) DueTombstones(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	return m.firstCodes(limit, func(e entry) bool { return e.tomb != nil && !now.Before(e.tomb.ReclaimAfter) }), nil
}

// firstCodes are the first limit codes, in order, whose entry is due:
// the page the expiry sweep and the reclaim run each take.
func (m *Memory) firstCodes(limit int, due func(entry) bool) []string {
	var codes []string
	for code, e := range m.links {
		if due(e) {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes)
	return codes[:min(len(codes), limit)]
}

// Release implements Store.
func (m *Memory) Release(ctx context.Context, code string, now time.Time) (bool, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return false, err
	}
	defer m.mu.Unlock()
	e, ok := m.links[code]
	if !ok || e.tomb == nil || now.Before(e.tomb.ReclaimAfter) {
		return false, nil
	}
	delete(m.links, code)
	return true, nil
}

// GetTombstone implements Store.
func (m *Memory) GetTombstone(ctx context.Context, code string) (link.Tombstone, error) {
	if err := lockFor(ctx, &m.mu); err != nil {
		return link.Tombstone{}, err
	}
	defer m.mu.Unlock()
	if e, ok := m.links[code]; ok && e.tomb != nil {
		return *e.tomb, nil
	}
	return link.Tombstone{}, fmt.Errorf("tombstone %q: %w", code, link.ErrNotFound)
}

// keptExpiredURL is the after-expiry URL t keeps: its own, or for an
// expired link's tombstone written without one (reclaim lists codes only)
// the one of old, the link it replaces; a deleted link's tombstone keeps
// none. The DynamoDB store keeps it the same way, in place.
func keptExpiredURL(t link.Tombstone, old link.Link) string {
	switch {
	case t.Reason != link.ReasonExpired:
		return ""
	case t.ExpiredURL != "":
		return t.ExpiredURL
	}
	return old.ExpiredURL
}
