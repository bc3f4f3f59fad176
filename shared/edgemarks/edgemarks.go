package edgemarks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Store writes marks: dynamo.MarkStore in a Region's marks table, Memory
// in tests.
type Store interface {
	// Mark records that the edge may hold an answer about code until
	// until, built from the link as it was changed at stamp (its
	// UpdatedAt). It never lowers a mark that says later (by more than
	// the store's resolution, a second), and returns only once the mark
	// is durable. It returns ErrFenced, and marks nothing, when a change
	// after stamp has fenced the code (Reader.Fence).
	Mark(ctx context.Context, code string, stamp, until time.Time) error
}

// ErrFenced is a mark refused because the code changed after the data the
// answer was built from: the answer is stale, no invalidation may come to
// remove it, and it must leave with the short edge life of an entry.
var ErrFenced = errors.New("edge mark refused: the code changed after the data the answer was built from")

// Reader reads and fences one Region's marks: dynamo.MarkStore, Memory.
type Reader interface {
	// HeldUntil is until when the edge may hold an answer about code, by
	// the mark this Region's redirect wrote, read strongly consistently;
	// the zero time when there is none.
	HeldUntil(ctx context.Context, code string) (time.Time, error)
	// Fence records, in one atomic write, that code changed at stamp:
	// from then on a Mark built from data older than stamp fails with
	// ErrFenced. It keeps the fence until at least keep (the mark's
	// expiry is raised to keep, never lowered), and returns until when
	// the mark said the edge may hold an answer just before the fence.
	Fence(ctx context.Context, code string, stamp, keep time.Time) (time.Time, error)
}

// DefaultSlack is how far past what an answer needs a mark reaches: far
// more than the answer's way to the edge and the two clocks the marks are
// compared on (the redirect's and the management API's) can differ by.
const DefaultSlack = time.Hour

// DefaultFenceLife is how long a fence is kept after the change it
// stands for: the replica lag it covers. A replica a day behind has
// alarmed for a day (infra/monitoring, replication latency).
const DefaultFenceLife = 24 * time.Hour

// Marker writes the marks of one redirect process. It is safe for
// concurrent use; build it with NewMarker.
//
// Every answer that needs a mark writes one: a process cannot remember
// that it marked a code, because a fence written since (a change whose
// replica lags) must refuse the next answer built from the old data, and
// only the conditional write in the table can see the fence.
type Marker struct {
	store Store
	slack time.Duration
}

// NewMarker marks through store, each mark reaching slack past what its
// answer needs (DefaultSlack when not positive).
func NewMarker(store Store, slack time.Duration) *Marker {
	if slack <= 0 {
		slack = DefaultSlack
	}
	return &Marker{store: store, slack: slack}
}

// Hold makes sure the marks table says the edge may hold an answer about
// code sent at now with an edge life of life, built from the link as it
// was changed at stamp, and returns nil only once that is durable: it
// marks code until now + life + slack. An error (ErrFenced among them)
// means the answer must not leave with that edge life.
func (m *Marker) Hold(ctx context.Context, code string, stamp, now time.Time, life time.Duration) error {
	return m.store.Mark(ctx, code, stamp, now.Add(life).Add(m.slack))
}

// Check reads and fences a code's marks in every Region whose redirect
// serves the edge. Build it with a Reader per Region.
type Check struct {
	// Regions are the marks tables to read, every one of them.
	Regions []Reader
	// FenceLife is how long Fence keeps a fence; DefaultFenceLife when
	// zero.
	FenceLife time.Duration
}

// Held reports whether any Region's mark says the edge may hold an answer
// about code at now. The Regions are read at once; an error from any of
// them is returned, and the caller must then act as if the edge held one
// (fail safe). A Check of no Region cannot tell, and says so.
func (c Check) Held(ctx context.Context, code string, now time.Time) (bool, error) {
	return c.each(ctx, now, func(r Reader) (time.Time, error) { return r.HeldUntil(ctx, code) })
}

// Fence fences code in every Region for a change saved at stamp (the
// link's new UpdatedAt, or its tombstone's time), at now, and reports
// whether any Region's mark said, just before its fence, that the edge
// may hold an answer about code. An error from any Region is returned,
// and the caller must then act as if the edge held one; that Region's
// redirect is then not fenced, which docs/lifecycle.md ("A replica that
// lags") weighs.
//
// Fencing and reading the mark in one write is what makes the answer
// true whatever a Region's replica lags: an answer built from the old
// data marks either before the fence, and is in what Fence returns, or
// after it, and is refused (ErrFenced).
func (c Check) Fence(ctx context.Context, code string, stamp, now time.Time) (bool, error) {
	life := c.FenceLife
	if life <= 0 {
		life = DefaultFenceLife
	}
	keep := now.Add(life)
	return c.each(ctx, now, func(r Reader) (time.Time, error) { return r.Fence(ctx, code, stamp, keep) })
}

// each asks every Region at once and reports whether any mark, as read,
// runs until now or later.
func (c Check) each(_ context.Context, now time.Time, read func(Reader) (time.Time, error)) (bool, error) {
	if len(c.Regions) == 0 {
		return true, errors.New("edge marks: no Region to read")
	}
	type result struct {
		until time.Time
		err   error
	}
	results := make([]result, len(c.Regions))
	var wg sync.WaitGroup
	for i, r := range c.Regions {
		wg.Go(func() {
			u, err := read(r)
			results[i] = result{u, err}
		})
	}
	wg.Wait()
	var errs []error
	held := false
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		// A mark is written in whole seconds, rounded up: until == now
		// still holds.
		held = held || !r.until.Before(now)
	}
	if err := errors.Join(errs...); err != nil {
		return true, err
	}
	return held, nil
}

// Memory is an in-process marks table, for tests and the in-memory race
// tests: marks rise, never fall, and fences refuse older marks, as
// dynamo.MarkStore's do.
type Memory struct {
	mu    sync.Mutex
	until map[string]time.Time
	fence map[string]time.Time
	// keep is the mark a fence set to keep its item, while no redirect
	// has marked since.
	keep map[string]time.Time
	// Err, when set, fails every call.
	Err error
	// Marks, Reads and Fences count the calls: the writes and reads a
	// deployed table would bill.
	Marks, Reads, Fences int
}

var (
	_ Store  = (*Memory)(nil)
	_ Reader = (*Memory)(nil)
)

// NewMemory returns an empty marks table.
func NewMemory() *Memory {
	return &Memory{until: map[string]time.Time{}, fence: map[string]time.Time{}, keep: map[string]time.Time{}}
}

// Mark raises code's mark to until, in whole seconds rounded up as
// dynamo.MarkStore stores it, unless code is fenced after stamp.
func (m *Memory) Mark(_ context.Context, code string, stamp, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Marks++
	if m.Err != nil {
		return m.Err
	}
	if f, ok := m.fence[code]; ok && f.After(stamp.Truncate(time.Millisecond)) {
		return ErrFenced
	}
	until = CeilSecond(until)
	if k, kept := m.keep[code]; until.After(m.until[code]) || kept && k.Equal(m.until[code]) {
		// Above only a fence's keep, the mark lowers it: the changed data
		// has been read, and the fence is no longer needed.
		m.until[code] = until
		delete(m.keep, code)
	}
	return nil
}

// HeldUntil is code's mark; the zero time when there is none.
func (m *Memory) HeldUntil(_ context.Context, code string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Reads++
	if m.Err != nil {
		return time.Time{}, m.Err
	}
	return m.until[code], nil
}

// Fence raises code's fence to stamp (in milliseconds, as dynamo.MarkStore
// keeps it) and its mark to keep, and returns the mark before: the zero
// time when that was only an earlier fence's keep.
func (m *Memory) Fence(_ context.Context, code string, stamp, keep time.Time) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Fences++
	if m.Err != nil {
		return time.Time{}, m.Err
	}
	before := m.until[code]
	if k, kept := m.keep[code]; kept && k.Equal(before) {
		before = time.Time{}
	}
	if stamp = stamp.Truncate(time.Millisecond); stamp.After(m.fence[code]) {
		m.fence[code] = stamp
	}
	if keep = CeilSecond(keep); keep.After(m.until[code]) {
		m.until[code] = keep
		m.keep[code] = keep
	}
	return before, nil
}

// CeilSecond is t rounded up to a whole second: how a mark is stored, so
// that storing never shortens it.
func CeilSecond(t time.Time) time.Time {
	if c := t.Truncate(time.Second); !c.Equal(t) {
		return c.Add(time.Second)
	}
	return t
}

// Table is one Region's marks table as the management API reads it.
type Table struct {
	Region, Name string
}

// ParseTables reads EDGE_MARKS_TABLES: the marks tables' ARNs, separated
// by commas, one per Region whose redirect serves the edge
// (arn:aws:dynamodb:us-east-1:123456789012:table/shortener-edge-marks).
// Empty gives none. An ARN names its Region, which a table name alone
// does not.
func ParseTables(v string) ([]Table, error) {
	var out []Table
	seen := map[string]bool{}
	for a := range strings.SplitSeq(v, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		// arn:partition:dynamodb:region:account:table/name
		parts := strings.SplitN(a, ":", 6)
		if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "dynamodb" || parts[3] == "" {
			return nil, fmt.Errorf("%q is not a DynamoDB table ARN", a)
		}
		name, ok := strings.CutPrefix(parts[5], "table/")
		if !ok || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%q is not a DynamoDB table ARN", a)
		}
		if seen[parts[3]] {
			return nil, fmt.Errorf("%q: a second table in %s", a, parts[3])
		}
		seen[parts[3]] = true
		out = append(out, Table{Region: parts[3], Name: name})
	}
	return out, nil
}
