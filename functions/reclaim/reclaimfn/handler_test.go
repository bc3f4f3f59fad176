package reclaimfn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type factory func(t *testing.T, now func() time.Time) linkstore.Store

var stores = []struct {
	name string
	new  factory
}{
	{name: "memory", new: func(_ *testing.T, now func() time.Time) linkstore.Store { return linkstore.NewMemory(now) }},
	{name: "dynamodb-local", new: func(t *testing.T, now func() time.Time) linkstore.Store {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		cfg := dynamo.LinkConfig{
			LinksTable:       testenv.UniqueName(t, "links"),
			IdempotencyTable: testenv.UniqueName(t, "idem"),
			Now:              now,
		}
		require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
		return dynamo.NewLinkStore(db, cfg)
	}},
	// The same runs through the reservation table, as every Region's
	// reclaim does when RESERVATION_TABLE is set: releases give the code
	// back there too.
	{name: "reserved-memory", new: func(_ *testing.T, now func() time.Time) linkstore.Store {
		return linkstore.NewReserved(linkstore.NewMemory(now), linkstore.NewMemoryLedger(now), now)
	}},
	{name: "reserved-dynamodb-local", new: func(t *testing.T, now func() time.Time) linkstore.Store {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Now: now}
		require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
		table := testenv.UniqueName(t, "reservations")
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Reservations()))
		return linkstore.NewReserved(dynamo.NewLinkStore(db, cfg), dynamo.NewLedger(db, dynamo.LedgerConfig{Table: table, Now: now}), now)
	}},
}

// tombstones writes n tombstones due at clock+grace, named prefix0000...
func tombstones(t *testing.T, s linkstore.Store, clock *storetest.Clock, prefix string, n int, grace time.Duration) []string {
	t.Helper()
	var codes []string
	for i := range n {
		code := fmt.Sprintf("%s%04d", prefix, i)
		written, err := s.Tombstone(context.Background(), link.Tombstone{Code: code, PrevOwner: "owner-1",
			TombstonedAt: clock.Now(), ReclaimAfter: clock.Now().Add(grace), Reason: link.ReasonExpired})
		require.NoError(t, err)
		require.True(t, written)
		codes = append(codes, code)
	}
	return codes
}

func sample(code string, now time.Time) link.Link {
	return link.Link{Code: code, URL: "https://example.com/again", Owner: "owner-2", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
}

func TestReclaim(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Run("releases due tombstones and leaves those in grace", func(t *testing.T) {
				clock := storetest.NewClock(start)
				s := st.new(t, clock.Now)
				due := tombstones(t, s, clock, "due", 5, time.Hour)
				later := tombstones(t, s, clock, "later", 2, 3*time.Hour)
				clock.Add(2 * time.Hour)
				var out bytes.Buffer
				h := New(Options{Store: s, Now: clock.Now, Log: quiet, Metrics: metrics.New(&out, "Shortener", "reclaim")})

				got, err := h.Handle(context.Background(), reclaimflow.Input{Total: 10})
				require.NoError(t, err)
				assert.Equal(t, reclaimflow.Output{Reclaimed: 5, Total: 15, More: false}, got)
				assert.Contains(t, out.String(), `"`+MetricExpired+`":0`)
				assert.Contains(t, out.String(), `"`+MetricReleased+`":5`)
				for _, code := range due {
					_, err := s.GetTombstone(context.Background(), code)
					assert.ErrorIs(t, err, link.ErrNotFound, code)
				}
				for _, code := range later {
					_, err := s.GetTombstone(context.Background(), code)
					assert.NoError(t, err, "%s is still in its grace period", code)
				}
				require.NoError(t, s.Create(context.Background(), sample(due[0], clock.Now()), nil),
					"a released code can be issued again")
				assert.ErrorIs(t, s.Create(context.Background(), sample(later[0], clock.Now()), nil), link.ErrConflict)

				t.Run("run twice reclaims once", func(t *testing.T) {
					again, err := h.Handle(context.Background(), reclaimflow.Input{Total: 15})
					require.NoError(t, err)
					assert.Equal(t, reclaimflow.Output{Reclaimed: 0, Total: 15, More: false}, again)
					got, err := s.Get(context.Background(), due[0])
					require.NoError(t, err)
					assert.Equal(t, link.StatusActive, got.Status, "the re-issued code is untouched")
				})
			})

			t.Run("turns expired links into tombstones in place, then releases them after grace", func(t *testing.T) {
				clock := storetest.NewClock(start)
				s := st.new(t, clock.Now)
				ctx := context.Background()
				var expired []string
				for i := range 5 {
					l := sample(fmt.Sprintf("exp%04d", i), clock.Now())
					l.Owner, l.ExpiresAt = "owner-1", clock.Now().Add(time.Minute)
					require.NoError(t, s.Create(ctx, l, nil))
					expired = append(expired, l.Code)
				}
				live := sample("live0001", clock.Now())
				require.NoError(t, s.Create(ctx, live, nil))
				clock.Add(2 * time.Minute)
				var out bytes.Buffer
				h := New(Options{Store: s, Grace: 10 * time.Minute, Now: clock.Now, BatchSize: 2, Log: quiet,
					Metrics: metrics.New(&out, "Shortener", "reclaim")})

				got, err := h.Handle(ctx, reclaimflow.Input{Total: 1, ExpiredTotal: 2})
				require.NoError(t, err)
				assert.Equal(t, reclaimflow.Output{Reclaimed: 0, Total: 1, Expired: 5, ExpiredTotal: 7}, got)
				assert.Contains(t, out.String(), `"`+MetricExpired+`":5`)
				for _, code := range expired {
					tomb, err := s.GetTombstone(ctx, code)
					require.NoError(t, err, code)
					assert.Equal(t, link.Tombstone{Code: code, PrevOwner: "owner-1", TombstonedAt: clock.Now(),
						ReclaimAfter: clock.Now().Add(10 * time.Minute), Reason: link.ReasonExpired}, tomb)
				}
				got2, err := s.Get(ctx, live.Code)
				require.NoError(t, err)
				assert.Equal(t, link.StatusActive, got2.Status, "a live link is untouched")
				left, err := s.ExpiredLinks(ctx, clock.Now(), 100)
				require.NoError(t, err)
				assert.Empty(t, left, "a tombstone leaves the expiring-links listing")

				again, err := h.Handle(ctx, reclaimflow.Input{})
				require.NoError(t, err)
				assert.Equal(t, reclaimflow.Output{}, again, "run twice tombstones once")

				clock.Add(11 * time.Minute)
				last, err := h.Handle(ctx, reclaimflow.Input{})
				require.NoError(t, err)
				assert.Equal(t, reclaimflow.Output{Reclaimed: 5, Total: 5}, last)
				require.NoError(t, s.Create(ctx, sample(expired[0], clock.Now()), nil), "a released code can be issued again")
			})

			t.Run("batches", func(t *testing.T) {
				tests := []struct {
					name       string
					due        int
					batch      int
					maxBatches int
					want       []reclaimflow.Output
				}{
					{name: "one batch per invocation drains in steps", due: 7, batch: 3, maxBatches: 1, want: []reclaimflow.Output{
						{Reclaimed: 3, Total: 3, More: true}, {Reclaimed: 3, Total: 6, More: true}, {Reclaimed: 1, Total: 7},
					}},
					{name: "a full last batch says more, the next finds none", due: 3, batch: 3, maxBatches: 1, want: []reclaimflow.Output{
						{Reclaimed: 3, Total: 3, More: true}, {Reclaimed: 0, Total: 3},
					}},
					{name: "unbounded batches drain in one invocation", due: 7, batch: 2, want: []reclaimflow.Output{
						{Reclaimed: 7, Total: 7},
					}},
				}
				for _, tt := range tests {
					t.Run(tt.name, func(t *testing.T) {
						clock := storetest.NewClock(start)
						s := st.new(t, clock.Now)
						tombstones(t, s, clock, "b", tt.due, time.Minute)
						clock.Add(time.Hour)
						h := New(Options{Store: s, Now: clock.Now, BatchSize: tt.batch, MaxBatches: tt.maxBatches, Log: quiet})
						var got []reclaimflow.Output
						in := reclaimflow.Input{}
						for range len(tt.want) {
							out, err := h.Handle(context.Background(), in)
							require.NoError(t, err)
							got = append(got, out)
							in.Total = out.Total
						}
						assert.Equal(t, tt.want, got)
					})
				}
			})
		})
	}
}

// fakeStore has n due codes; Release sleeps delay, fails the codes in
// fail, and tracks how many calls run at once.
type fakeStore struct {
	due      []string
	delay    time.Duration
	fail     map[string]bool
	dueErr   error
	inFlight atomic.Int32
	peak     atomic.Int32
	mu       sync.Mutex
	released map[string]bool
	// stale listings still show released codes, as a lagging index does.
	stale    int
	releases atomic.Int32
}

func newFake(n int) *fakeStore {
	f := &fakeStore{fail: map[string]bool{}, released: map[string]bool{}}
	for i := range n {
		f.due = append(f.due, fmt.Sprintf("c%04d", i))
	}
	return f
}

func (f *fakeStore) DueTombstones(_ context.Context, _ time.Time, limit int) ([]string, error) {
	if f.dueErr != nil {
		return nil, f.dueErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	stale := f.stale > 0
	f.stale--
	var out []string
	for _, c := range f.due {
		if (stale || !f.released[c]) && len(out) < limit {
			out = append(out, c)
		}
	}
	return out, nil
}

// ExpiredLinks finds none: the fake exercises the release step.
func (f *fakeStore) ExpiredLinks(context.Context, time.Time, int) ([]linkstore.Expired, error) {
	return nil, nil
}

func (f *fakeStore) Tombstone(context.Context, link.Tombstone) (bool, error) {
	return false, errors.New("fakeStore: no expired links to tombstone")
}

func (f *fakeStore) Release(ctx context.Context, code string, _ time.Time) (bool, error) {
	f.releases.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(f.delay)
	if f.fail[code] {
		return false, link.ErrUnavailable
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.released[code] {
		return false, nil
	}
	f.released[code] = true
	return true, nil
}

func TestBoundedParallelism(t *testing.T) {
	tests := []struct{ parallelism, want int }{{parallelism: 0, want: DefaultParallelism}, {parallelism: 3, want: 3}, {parallelism: 1, want: 1}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.parallelism), func(t *testing.T) {
			f := newFake(40)
			f.delay = 20 * time.Millisecond
			h := New(Options{Store: f, Parallelism: tt.parallelism, BatchSize: 40, Log: quiet})
			out, err := h.Handle(context.Background(), reclaimflow.Input{})
			require.NoError(t, err)
			assert.Equal(t, int64(40), out.Reclaimed)
			assert.Equal(t, int32(tt.want), f.peak.Load())
		})
	}
}

func TestStopsBeforeTheDeadline(t *testing.T) {
	tests := []struct {
		name    string
		left    time.Duration // before the deadline at the start
		budget  time.Duration
		wantErr bool
	}{
		{name: "the deadline minus the margin comes first", left: 10*time.Second + 300*time.Millisecond, budget: time.Minute},
		{name: "the budget comes first", left: time.Hour, budget: 300 * time.Millisecond},
		{name: "no time at all is an error", left: 5 * time.Second, budget: time.Minute, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(100)
			f.delay = 50 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), tt.left)
			defer cancel()
			h := New(Options{Store: f, Parallelism: 1, BatchSize: 100, Margin: 10 * time.Second, Budget: tt.budget, Log: quiet})
			out, err := h.Handle(ctx, reclaimflow.Input{Total: 1})
			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "margin")
				return
			}
			require.NoError(t, err)
			assert.True(t, out.More, "stopped early, so more may be due")
			assert.Positive(t, out.Reclaimed)
			assert.Less(t, out.Reclaimed, int64(50))
			assert.Equal(t, 1+out.Reclaimed, out.Total)
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name     string
		fail     []string
		dueErr   error
		want     reclaimflow.Output
		wantErr  bool
		metricsF string
	}{
		{name: "some releases fail: progress is reported and more is due",
			fail: []string{"c0003"}, want: reclaimflow.Output{Reclaimed: 9, Total: 9, More: true}, metricsF: `"ReleaseFailed":1`},
		{name: "every release fails: an error for the retry policy",
			fail: []string{"c0000", "c0001", "c0002", "c0003", "c0004", "c0005", "c0006", "c0007", "c0008", "c0009"}, wantErr: true, metricsF: `"ReleaseFailed":10`},
		{name: "listing fails: an error", dueErr: errors.New("index unavailable"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(10)
			f.dueErr = tt.dueErr
			for _, c := range tt.fail {
				f.fail[c] = true
			}
			var m bytes.Buffer
			h := New(Options{Store: f, Log: quiet, Metrics: metrics.New(&m, "Shortener", "reclaim")})
			out, err := h.Handle(context.Background(), reclaimflow.Input{})
			if tt.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.want, out)
			}
			if tt.metricsF != "" {
				assert.Contains(t, m.String(), tt.metricsF)
			}
		})
	}
}

// TestPayloadsAreTheStateMachines checks the JSON the function answers is
// what the state machine's ResultSelector reads.
func TestPayloadsAreTheStateMachines(t *testing.T) {
	h := New(Options{Store: newFake(2), Log: quiet})
	var in reclaimflow.Input
	require.NoError(t, json.Unmarshal([]byte(`{"total": 40}`), &in))
	out, err := h.Handle(context.Background(), in)
	require.NoError(t, err)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, `{"reclaimed": 2, "total": 42, "expired": 0, "expired_total": 0, "more": false}`, string(b))
	def, err := reclaimflow.Definition("arn:aws:lambda:us-east-1:123456789012:function:reclaim")
	require.NoError(t, err)
	for _, field := range []string{"reclaimed", "total", "expired_total", "more"} {
		assert.True(t, strings.Contains(def, `"$.Payload.`+field+`"`), field)
	}
}

func TestLaggingIndexCostsNoSecondRelease(t *testing.T) {
	f := newFake(5)
	f.stale = 3 // the first three listings still show released codes
	h := New(Options{Store: f, BatchSize: 2, Log: quiet})
	out, err := h.Handle(context.Background(), reclaimflow.Input{})
	require.NoError(t, err)
	assert.Equal(t, reclaimflow.Output{Reclaimed: 5, Total: 5}, out)
	assert.Equal(t, int32(5), f.releases.Load(), "each code is released once")
}
