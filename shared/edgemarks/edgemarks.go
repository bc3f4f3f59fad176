package edgemarks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Store writes marks: dynamomarks.Store in a Region's marks table, Memory
// in tests.
type Store interface {
	// Mark records that the edge may hold an answer about code until
	// until. It never lowers a mark that says later (by more than the
	// store's resolution, a second), and returns only once the mark is
	// durable.
	Mark(ctx context.Context, code string, until time.Time) error
}

// Reader reads one Region's marks: dynamomarks.Store, Memory.
type Reader interface {
	// HeldUntil is until when the edge may hold an answer about code, by
	// the mark this Region's redirect wrote, read strongly consistently;
	// the zero time when there is none.
	HeldUntil(ctx context.Context, code string) (time.Time, error)
}

// DefaultSlack is how far past what an answer needs a mark reaches: how
// long a redirect instance goes without writing the code's mark again.
const DefaultSlack = time.Hour

// DefaultRemember is how many codes' marks a Marker remembers.
const DefaultRemember = 50_000

// Marker writes the marks of one redirect process, each code's at most
// about once per Slack. It is safe for concurrent use; build it with
// NewMarker.
type Marker struct {
	store Store
	slack time.Duration

	mu sync.Mutex
	// What this process marked, code -> until: the marks the table holds
	// at least (marks only rise). Two generations keep memory bounded
	// and the codes in use: a code found in the old one moves to the new
	// one, and when the new one is full the old one is dropped.
	cur, old map[string]time.Time
	per      int
}

// NewMarker marks through store, remember codes at most (DefaultRemember
// when not positive), each mark reaching slack past what its answer needs
// (DefaultSlack when not positive).
func NewMarker(store Store, remember int, slack time.Duration) *Marker {
	if remember <= 0 {
		remember = DefaultRemember
	}
	if slack <= 0 {
		slack = DefaultSlack
	}
	per := max(remember/2, 1)
	return &Marker{store: store, slack: slack, cur: make(map[string]time.Time, per), old: map[string]time.Time{}, per: per}
}

// Hold makes sure the marks table says the edge may hold an answer about
// code sent at now with an edge life of life, and returns nil only once
// that is durable: either this process marked code far enough already, or
// it marks it now, until now + life + slack. An error means the answer
// must not leave with that edge life.
func (m *Marker) Hold(ctx context.Context, code string, now time.Time, life time.Duration) error {
	need := now.Add(life)
	if u, ok := m.remembered(code); ok && !u.Before(need) {
		return nil
	}
	until := need.Add(m.slack)
	if err := m.store.Mark(ctx, code, until); err != nil {
		return err
	}
	m.remember(code, until)
	return nil
}

func (m *Marker) remembered(code string) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u, ok := m.cur[code]; ok {
		return u, true
	}
	u, ok := m.old[code]
	if ok {
		m.put(code, u)
	}
	return u, ok
}

func (m *Marker) remember(code string, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u, ok := m.cur[code]; ok && u.After(until) {
		return // a concurrent Hold marked further
	}
	m.put(code, until)
}

// put adds to the new generation, starting another when it is full.
func (m *Marker) put(code string, until time.Time) {
	if _, ok := m.cur[code]; !ok && len(m.cur) >= m.per {
		m.old, m.cur = m.cur, make(map[string]time.Time, m.per)
	}
	m.cur[code] = until
	delete(m.old, code)
}

// Check reads a code's marks in every Region whose redirect serves the
// edge. Build it with a Reader per Region.
type Check struct {
	// Regions are the marks tables to read, every one of them.
	Regions []Reader
}

// Held reports whether any Region's mark says the edge may hold an answer
// about code at now. The Regions are read at once; an error from any of
// them is returned, and the caller must then act as if the edge held one
// (fail safe). A Check of no Region cannot tell, and says so.
func (c Check) Held(ctx context.Context, code string, now time.Time) (bool, error) {
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
			u, err := r.HeldUntil(ctx, code)
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
// tests: marks rise, never fall, as dynamomarks' do.
type Memory struct {
	mu    sync.Mutex
	until map[string]time.Time
	// Err, when set, fails every call.
	Err error
	// Marks and Reads count the calls: the writes and reads a deployed
	// table would bill.
	Marks, Reads int
}

var (
	_ Store  = (*Memory)(nil)
	_ Reader = (*Memory)(nil)
)

// NewMemory returns an empty marks table.
func NewMemory() *Memory { return &Memory{until: map[string]time.Time{}} }

// Mark raises code's mark to until, in whole seconds rounded up as
// dynamomarks stores it.
func (m *Memory) Mark(_ context.Context, code string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Marks++
	if m.Err != nil {
		return m.Err
	}
	until = CeilSecond(until)
	if until.After(m.until[code]) {
		m.until[code] = until
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
