package localmapping

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rec, event and answer are an event kind of the tests' own: a record
// named by its sequence number, and a response naming failed ones.
type rec struct {
	Seq string `json:"seq"`
}

type event struct {
	Records []rec `json:"records"`
}

type answer struct {
	Failures []failure `json:"batchItemFailures"`
}

type failure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

// failed is the answer that reports seqs as failed.
func failed(seqs ...string) answer {
	var a answer
	for _, s := range seqs {
		a.Failures = append(a.Failures, failure{ItemIdentifier: s})
	}
	return a
}

// fakeSource is a stream held in memory. Iterators are "shard|position";
// a closed shard ends its reads with no next iterator.
type fakeSource struct {
	mu        sync.Mutex
	shards    []*fakeShard
	perRead   int                   // records one read returns at most (0: limit)
	failReads map[int]error         // the error of the n-th read (from 0)
	reads     int                   // reads so far
	positions map[string][]Position // the positions iterators were taken at, by shard
}

type fakeShard struct {
	Shard
	records []rec
}

func (f *fakeSource) Shards(context.Context) ([]Shard, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Shard
	for _, s := range f.shards {
		out = append(out, s.Shard)
	}
	return out, nil
}

func (f *fakeSource) Iterator(_ context.Context, shard string, p Position) (*string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.positions == nil {
		f.positions = map[string][]Position{}
	}
	f.positions[shard] = append(f.positions[shard], p)
	s := f.shard(shard)
	pos := 0
	switch {
	case p.After != "":
		pos = slices.IndexFunc(s.records, func(r rec) bool { return r.Seq == p.After }) + 1
	case p.Start == Latest:
		pos = len(s.records)
	}
	it := fmt.Sprintf("%s|%d", shard, pos)
	return &it, nil
}

func (f *fakeSource) Read(_ context.Context, shard string, iterator *string, limit int) (Page[rec], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.reads
	f.reads++
	if err := f.failReads[n]; err != nil {
		return Page[rec]{}, err
	}
	id, p, _ := strings.Cut(*iterator, "|")
	pos, _ := strconv.Atoi(p)
	s := f.shard(id)
	if f.perRead > 0 {
		limit = min(limit, f.perRead)
	}
	end := min(len(s.records), pos+limit)
	page := Page[rec]{Records: s.records[pos:end]}
	if end < len(s.records) || !s.Closed {
		next := fmt.Sprintf("%s|%d", id, end)
		page.Next = &next
	}
	return page, nil
}

func (f *fakeSource) Event(batch []rec) event     { return event{Records: batch} }
func (f *fakeSource) SequenceNumber(r rec) string { return r.Seq }

func (f *fakeSource) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.ID == id {
			return s
		}
	}
	panic("no shard " + id)
}

func records(seqs ...string) []rec {
	var out []rec
	for _, s := range seqs {
		out = append(out, rec{Seq: s})
	}
	return out
}

// calls records every invocation and answers from a script.
type calls struct {
	mu      sync.Mutex
	batches [][]string
	answer  func(call int, ev event) (answer, error)
}

func (c *calls) handle(_ context.Context, ev event) (answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var seqs []string
	for _, r := range ev.Records {
		seqs = append(seqs, r.Seq)
	}
	c.batches = append(c.batches, seqs)
	if c.answer == nil {
		return answer{}, nil
	}
	return c.answer(len(c.batches)-1, ev)
}

func (c *calls) seen() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.batches)
}

func (c *calls) delivered() []string {
	var all []string
	for _, b := range c.seen() {
		all = append(all, b...)
	}
	return all
}

// failures collects what a mapping gives up on.
type failures struct {
	mu  sync.Mutex
	got []Failure[rec]
}

func (f *failures) add(_ context.Context, fl Failure[rec]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fl)
}

func (f *failures) all() []Failure[rec] {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// runUntil runs m until cond holds or 5 s pass, then stops it.
func runUntil(t *testing.T, m *Mapping[rec, event, answer], cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond)
	cancel()
	<-done
}

func TestMergedShardWaitsForBothParents(t *testing.T) {
	f := &fakeSource{shards: []*fakeShard{
		// Listed first: the mapping must still read both parents first.
		{Shard: Shard{ID: "merged", Parents: []string{"left", "right"}}, records: records("20")},
		{Shard: Shard{ID: "left", Parents: []string{""}, Closed: true}, records: records("1", "2")},
		{Shard: Shard{ID: "right", Closed: true}, records: records("10", "11", "12")},
	}}
	c := &calls{}
	fl := &failures{}
	m, err := New(f, c.handle, Options[rec]{Name: "test", PollInterval: time.Millisecond, OnFailure: fl.add, Log: quiet})
	require.NoError(t, err)
	runUntil(t, m, func() bool { return len(c.delivered()) == 6 })
	got := c.delivered()
	assert.Equal(t, "20", got[len(got)-1], "the merged shard's record comes after both parents'")
	assert.ElementsMatch(t, []string{"1", "2", "10", "11", "12", "20"}, got)
	assert.Empty(t, fl.all())
}

func TestReady(t *testing.T) {
	shards := map[string]*shard{
		"done": {Shard: Shard{ID: "done"}, done: true},
		"open": {Shard: Shard{ID: "open"}},
	}
	tests := []struct {
		name    string
		parents []string
		want    bool
	}{
		{name: "no parent", want: true},
		{name: "an empty parent ID", parents: []string{""}, want: true},
		{name: "a parent read to its end", parents: []string{"done"}, want: true},
		{name: "a parent being read", parents: []string{"open"}},
		{name: "a parent the listing no longer shows (trimmed)", parents: []string{"gone"}, want: true},
		{name: "a merge of a finished and an unfinished parent", parents: []string{"done", "open"}},
		{name: "a merge with the unfinished parent first", parents: []string{"open", "done"}},
		{name: "a merge of two finished parents", parents: []string{"done", "gone"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ready(shards, &shard{Shard: Shard{ID: "child", Parents: tt.parents}}))
		})
	}
}

func TestDeliveryLikeAnEventSourceMapping(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		answer     func(call int, ev event) (answer, error)
		batches    [][]string
		failure    *Failure[rec]
	}{
		{
			name: "retried from the lowest reported failure until it succeeds",
			answer: func(call int, _ event) (answer, error) {
				switch call {
				case 0:
					return failed("4", "2"), nil
				case 1:
					return failed("4"), nil
				}
				return answer{}, nil
			},
			batches: [][]string{{"1", "2", "3", "4"}, {"2", "3", "4"}, {"4"}},
		},
		{
			name: "an empty identifier fails the whole batch",
			answer: func(call int, _ event) (answer, error) {
				if call == 0 {
					return failed("3", ""), nil
				}
				return answer{}, nil
			},
			batches: [][]string{{"1", "2", "3", "4"}, {"1", "2", "3", "4"}},
		},
		{
			name: "given up after MaxRetries retries, then the next batch",
			answer: func(_ int, ev event) (answer, error) {
				if ev.Records[0].Seq <= "3" {
					return failed("3"), nil
				}
				return answer{}, nil
			},
			batches: [][]string{{"1", "2", "3", "4"}, {"3", "4"}, {"3", "4"}},
			failure: &Failure[rec]{Shard: "s1", Records: records("3", "4"), Failed: []string{"3"}, Attempts: 3},
		},
		{
			name:       "negative MaxRetries gives up at the first failure",
			maxRetries: -1,
			answer: func(call int, _ event) (answer, error) {
				if call == 0 {
					return answer{}, errors.New("boom")
				}
				return answer{}, nil
			},
			batches: [][]string{{"1", "2", "3", "4"}},
			failure: &Failure[rec]{Shard: "s1", Records: records("1", "2", "3", "4"), Attempts: 1, Err: errors.New("boom")},
		},
		{
			name: "a panic is a function error",
			answer: func(call int, _ event) (answer, error) {
				if call == 0 {
					panic("nil map")
				}
				return answer{}, nil
			},
			batches: [][]string{{"1", "2", "3", "4"}, {"1", "2", "3", "4"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s1 := &fakeShard{Shard: Shard{ID: "s1"}, records: records("1", "2", "3", "4")}
			f := &fakeSource{shards: []*fakeShard{s1}}
			c := &calls{answer: tt.answer}
			fl := &failures{}
			maxRetries := tt.maxRetries
			if maxRetries == 0 {
				maxRetries = 2
			}
			m, err := New(f, c.handle, Options[rec]{Name: "test", BatchSize: 4, MaxRetries: maxRetries,
				RetryDelay: time.Millisecond, PollInterval: time.Millisecond, OnFailure: fl.add, Log: quiet})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { m.Run(ctx); close(done) }()
			require.Eventually(t, func() bool { return len(c.seen()) >= len(tt.batches) }, 5*time.Second, time.Millisecond)
			// A record after the batch proves the mapping moves on.
			f.mu.Lock()
			s1.records = append(s1.records, rec{Seq: "9"})
			f.mu.Unlock()
			require.Eventually(t, func() bool { got := c.delivered(); return got[len(got)-1] == "9" }, 5*time.Second, time.Millisecond)
			cancel()
			<-done

			assert.Equal(t, append(tt.batches, []string{"9"}), c.seen())
			if tt.failure == nil {
				assert.Empty(t, fl.all())
				return
			}
			require.Len(t, fl.all(), 1)
			assert.Equal(t, *tt.failure, fl.all()[0])
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		// positions are where the iterators of the shard were taken.
		positions []Position
		delivered []string
	}{
		{name: "an expired iterator is taken again after the checkpoint",
			err:       fmt.Errorf("%w: ExpiredIteratorException", ErrExpiredIterator),
			positions: []Position{{Start: TrimHorizon}, {Start: TrimHorizon, After: "2"}},
			delivered: []string{"1", "2", "3", "4"}},
		{name: "trimmed records start the shard again at its trim horizon",
			err:       fmt.Errorf("%w: TrimmedDataAccessException", ErrTrimmed),
			positions: []Position{{Start: TrimHorizon}, {Start: TrimHorizon}},
			delivered: []string{"1", "2", "1", "2", "3", "4"}},
		{name: "another error reads again from the same iterator",
			err:       errors.New("throttled"),
			positions: []Position{{Start: TrimHorizon}},
			delivered: []string{"1", "2", "3", "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSource{shards: []*fakeShard{{Shard: Shard{ID: "s1", Closed: true}, records: records("1", "2", "3", "4")}},
				failReads: map[int]error{1: tt.err}}
			c := &calls{}
			fl := &failures{}
			m, err := New(f, c.handle, Options[rec]{Name: "test", BatchSize: 2, PollInterval: time.Millisecond, OnFailure: fl.add, Log: quiet})
			require.NoError(t, err)
			runUntil(t, m, func() bool { return len(c.delivered()) == len(tt.delivered) })
			assert.Equal(t, tt.delivered, c.delivered())
			f.mu.Lock()
			defer f.mu.Unlock()
			assert.Equal(t, tt.positions, f.positions["s1"])
		})
	}
}

func TestBatchWindowGathersUpToBatchSize(t *testing.T) {
	// One record a read; the window is long, so only BatchSize ends a batch.
	f := &fakeSource{perRead: 1, shards: []*fakeShard{{Shard: Shard{ID: "s1"}, records: records("1", "2", "3", "4", "5", "6")}}}
	c := &calls{}
	fl := &failures{}
	m, err := New(f, c.handle, Options[rec]{Name: "test", BatchSize: 3, BatchWindow: time.Hour, PollInterval: time.Millisecond,
		OnFailure: fl.add, Log: quiet})
	require.NoError(t, err)
	runUntil(t, m, func() bool { return len(c.delivered()) == 6 })
	assert.Equal(t, [][]string{{"1", "2", "3"}, {"4", "5", "6"}}, c.seen())
}

func TestLatestSkipsWhatIsThere(t *testing.T) {
	open := &fakeShard{Shard: Shard{ID: "open", Parents: []string{"old"}}, records: records("5")}
	f := &fakeSource{shards: []*fakeShard{{Shard: Shard{ID: "old", Closed: true}, records: records("1")}, open}}
	c := &calls{}
	fl := &failures{}
	m, err := New(f, c.handle, Options[rec]{Name: "test", StartingPosition: Latest, PollInterval: time.Millisecond, OnFailure: fl.add, Log: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	require.Eventually(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.positions["open"]) == 1 }, 5*time.Second, time.Millisecond)
	f.mu.Lock()
	open.records = append(open.records, rec{Seq: "6"})
	f.mu.Unlock()
	require.Eventually(t, func() bool { return len(c.delivered()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	assert.Equal(t, []string{"6"}, c.delivered())
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Empty(t, f.positions["old"], "a closed shard holds nothing newer than LATEST")
}

func TestRetryDelayDoublesUpToTenSeconds(t *testing.T) {
	m := &Mapping[rec, event, answer]{opts: Options[rec]{RetryDelay: 200 * time.Millisecond}}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{1, 200 * time.Millisecond},
		{2, 400 * time.Millisecond},
		{3, 800 * time.Millisecond},
		{6, 6400 * time.Millisecond},
		{7, 10 * time.Second},
		{10_000, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.attempt), func(t *testing.T) {
			assert.Equal(t, tt.want, m.retryDelay(tt.attempt))
		})
	}
}

func TestNewChecksOptions(t *testing.T) {
	h := (&calls{}).handle
	onFailure := (&failures{}).add
	tests := []struct {
		name string
		h    func(context.Context, event) (answer, error)
		o    Options[rec]
		ok   bool
	}{
		{name: "a handler and OnFailure", h: h, o: Options[rec]{OnFailure: onFailure}, ok: true},
		{name: "LATEST", h: h, o: Options[rec]{OnFailure: onFailure, StartingPosition: Latest}, ok: true},
		{name: "no handler", o: Options[rec]{OnFailure: onFailure}},
		{name: "no OnFailure", h: h},
		{name: "AT_TIMESTAMP is not a starting position here", h: h, o: Options[rec]{OnFailure: onFailure, StartingPosition: "AT_TIMESTAMP"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&fakeSource{}, tt.h, tt.o)
			assert.Equal(t, tt.ok, err == nil, err)
		})
	}
}
