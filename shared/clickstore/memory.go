package clickstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Memory is a Store in process memory, for unit tests and tools that need
// no DynamoDB. Counters never expire: retention is DynamoDB's TTL.
type Memory struct {
	mu          sync.Mutex
	counts      map[Key]Counts
	byCode      map[string][]Key // each code's keys, so that a read does not scan them all
	checkpoints map[string]string
	maxItems    int
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store whose Breakdown reads at most
// maxBreakdownItems items (DefaultMaxBreakdownItems when zero or less).
func NewMemory(maxBreakdownItems int) *Memory {
	if maxBreakdownItems <= 0 {
		maxBreakdownItems = DefaultMaxBreakdownItems
	}
	return &Memory{counts: map[Key]Counts{}, byCode: map[string][]Key{}, checkpoints: map[string]string{}, maxItems: maxBreakdownItems}
}

// Apply implements Store.
func (m *Memory) Apply(_ context.Context, c Chunk) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("apply chunk: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cp, ok := m.checkpoints[c.Shard]; ok && CompareSequence(cp, c.First) >= 0 {
		return fmt.Errorf("apply chunk %s..%s of %s: %w", c.First, c.Last, c.Shard, ErrApplied)
	}
	for _, it := range c.Items {
		n, ok := m.counts[it.Key]
		if !ok && it.Kind == Campaign && it.Dim != OtherCampaign && m.campaigns(it.Key) >= MaxCampaigns {
			// A full day's further campaigns count as the other one.
			it.Dim = OtherCampaign
			n, ok = m.counts[it.Key]
		}
		if it.Kind == Visitor {
			it.Counts = Counts{Total: 1, Human: 1} // a set: present or not
			n = Counts{}
		}
		if !ok {
			m.byCode[it.Key.Code] = append(m.byCode[it.Key.Code], it.Key)
		}
		n.Add(it.Counts)
		m.counts[it.Key] = n
	}
	m.checkpoints[c.Shard] = TrimSequence(c.Last)
	return nil
}

// campaigns counts the named campaigns of k's code and day; m.mu is held.
func (m *Memory) campaigns(k Key) int {
	n := 0
	for _, o := range m.byCode[k.Code] {
		if o.Kind == Campaign && o.Start == k.Start && o.Dim != OtherCampaign {
			n++
		}
	}
	return n
}

// Checkpoint implements Store.
func (m *Memory) Checkpoint(_ context.Context, shard string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checkpoints[shard], nil
}

// Series implements Store.
func (m *Memory) Series(_ context.Context, code string, kind Kind, from, to time.Time) ([]Point, error) {
	if err := CheckSeries(kind); err != nil {
		return nil, err
	}
	var points []Point
	for _, k := range m.keys(code, kind, from, to) {
		points = append(points, Point{Start: time.Unix(k.Start, 0).UTC(), Counts: m.get(k)})
	}
	return points, nil
}

// Breakdown implements Store.
func (m *Memory) Breakdown(_ context.Context, code string, kind Kind, from, to time.Time) (map[string]Counts, bool, error) {
	if err := CheckBreakdown(kind); err != nil {
		return nil, false, err
	}
	sums := map[string]Counts{}
	for i, k := range m.keys(code, kind, from, to) {
		if i == m.maxItems {
			return sums, false, nil
		}
		sum := sums[k.Dim]
		sum.Add(m.get(k))
		sums[k.Dim] = sum
	}
	return sums, true, nil
}

func (m *Memory) get(k Key) Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[k]
}

// keys lists code's counters of kind starting in [from, to), by start and
// then dimension: the order DynamoDB returns their sort keys in.
func (m *Memory) keys(code string, kind Kind, from, to time.Time) []Key {
	first, last, ok := Starts(kind, from, to)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []Key
	for _, k := range m.byCode[code] {
		if k.Kind == kind && k.Start >= first && k.Start <= last {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b Key) int { return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Dim, b.Dim)) })
	return keys
}
