package apikey

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Memory is a keys table in memory, for tests and tools. It behaves as
// the DynamoDB adapter does (the same suite runs against both).
type Memory struct {
	mu   sync.Mutex
	recs map[string]Record
}

// NewMemory returns a table holding an active key for each key -> owner
// pair of keys, created at the zero time.
func NewMemory(keys map[string]string) *Memory {
	m := &Memory{recs: map[string]Record{}}
	for k, owner := range keys {
		m.recs[Hash(k)] = Record{Hash: Hash(k), Owner: owner, Status: StatusActive}
	}
	return m
}

// Get returns the record of hash, or ErrUnknown.
func (m *Memory) Get(_ context.Context, hash string) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[hash]
	if !ok {
		return Record{}, ErrUnknown
	}
	return rec, nil
}

// Add stores a new record; ErrExists when its hash is taken.
func (m *Memory) Add(_ context.Context, rec Record) error {
	if err := CheckHash(rec.Hash); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recs[rec.Hash]; ok {
		return ErrExists
	}
	m.recs[rec.Hash] = rec
	return nil
}

// Revoke marks hash's key revoked at at and returns the record as it now
// is. ErrUnknown when there is no such key; revoking a revoked key keeps
// its first revocation time.
func (m *Memory) Revoke(_ context.Context, hash string, at time.Time) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.recs[hash]
	if !ok {
		return Record{}, ErrUnknown
	}
	if rec.Status != StatusRevoked {
		rec.Status, rec.RevokedAt = StatusRevoked, at
		m.recs[hash] = rec
	}
	return rec, nil
}

// List returns every record, of one owner when owner is not empty, oldest
// first.
func (m *Memory) List(_ context.Context, owner string) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Record
	for _, rec := range m.recs {
		if owner == "" || rec.Owner == owner {
			out = append(out, rec)
		}
	}
	SortRecords(out)
	return out, nil
}

// SortRecords orders records oldest first, then by hash.
func SortRecords(recs []Record) {
	slices.SortFunc(recs, func(a, b Record) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Hash, b.Hash))
	})
}
