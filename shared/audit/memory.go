package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Memory is an in-process log: the tests' Recorder and Reader, with the
// same once-only writes and the same paging as the DynamoDB adapter.
type Memory struct {
	mu      sync.Mutex
	entries map[string][]Entry // by workspace, in ID order
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Fail, when set, is the error every Record returns.
	Fail error
}

var (
	_ Recorder = (*Memory)(nil)
	_ Reader   = (*Memory)(nil)
)

// Record implements Recorder.
func (m *Memory) Record(_ context.Context, e Entry) error {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	e = Prepare(e, now())
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return m.Fail
	}
	if m.entries == nil {
		m.entries = map[string][]Entry{}
	}
	log := m.entries[e.Workspace]
	i, found := slices.BinarySearchFunc(log, e.ID, func(x Entry, id string) int { return strings.Compare(x.ID, id) })
	if found {
		return fmt.Errorf("record audit entry %s: %w", e.ID, link.ErrConflict)
	}
	m.entries[e.Workspace] = slices.Insert(log, i, e)
	return nil
}

// Query implements Reader.
func (m *Memory) Query(_ context.Context, workspace string, f Filter) (Page, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lo, hi := f.KeyRange()
	limit := f.Limit
	if limit <= 0 || limit > MaxPageSize {
		limit = MaxPageSize
	}
	var p Page
	log := m.entries[workspace]
	for i := len(log) - 1; i >= 0; i-- {
		e := log[i]
		if hi != "" && e.ID >= hi || lo != "" && e.ID < lo || !f.Matches(e) {
			continue
		}
		if len(p.Entries) == limit {
			p.Next = EncodeCursor(p.Entries[limit-1].ID)
			break
		}
		p.Entries = append(p.Entries, e)
	}
	return p, nil
}

// All is every entry of workspace, oldest first.
func (m *Memory) All(workspace string) []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.entries[workspace])
}
