package reclaimfn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
)

// versionStore is a key value store holding one version written three
// days before start (old) and one an hour before (young), on clock.
func versionStore(t *testing.T, clock *storetest.Clock) *localedge.KeyValueStore {
	t.Helper()
	now := start.Add(-3 * 24 * time.Hour)
	kvs := localedge.NewKeyValueStore(-1, clock.Now)
	w := &edgeversion.Writer{API: kvs, ARN: "arn", Now: func() time.Time { return now }}
	require.NoError(t, w.Invalidate(context.Background(), "/old1234"))
	now = start.Add(-time.Hour)
	require.NoError(t, w.Invalidate(context.Background(), "/young12"))
	return kvs
}

// emitted is the value of each metric of the one EMF record in out.
func emitted(t *testing.T, out *bytes.Buffer) map[string]float64 {
	t.Helper()
	var rec map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rec), out.String())
	got := map[string]float64{}
	for k, v := range rec {
		if f, ok := v.(float64); ok {
			got[k] = f
		}
	}
	return got
}

// TestVersionSweepAfterTheLastInvocation: with a version store, the
// invocation that finds nothing more due sweeps it of the versions older
// than the edge life and margin, keeps the younger, and counts both; one
// that stops with more due leaves the store to the run's last.
func TestVersionSweepAfterTheLastInvocation(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(start)
	s := linkstore.NewMemory(clock.Now)
	tombstones(t, s, clock, "due", 3, time.Minute)
	clock.Add(time.Hour)
	kvs := versionStore(t, clock)
	sw := &edgeversion.Sweeper{API: kvs, ARN: "arn", EdgeLife: 24 * time.Hour, Now: clock.Now, Pause: -1}
	var logs bytes.Buffer
	var out bytes.Buffer
	h := New(Options{Store: s, Now: clock.Now, BatchSize: 2, MaxBatches: 1, Versions: sw,
		Log: slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: metrics.New(&out, "Shortener", "reclaim")})

	first, err := h.Handle(ctx, reclaimflow.Input{})
	require.NoError(t, err)
	require.True(t, first.More)
	assert.Equal(t, 2, kvs.Len(), "not swept while more is due")
	assert.NotContains(t, out.String(), MetricVersionsSwept)

	out.Reset()
	last, err := h.Handle(ctx, reclaimflow.Input{Total: first.Total})
	require.NoError(t, err)
	require.False(t, last.More)
	assert.Equal(t, 1, kvs.Len())
	_, found, _ := kvs.GetKey(ctx, "arn", "/old1234")
	assert.False(t, found, "older than a day and an hour: swept")
	_, found, _ = kvs.GetKey(ctx, "arn", "/young12")
	assert.True(t, found)
	m := emitted(t, &out)
	assert.Equal(t, 2.0, m[MetricVersionsListed])
	assert.Equal(t, 1.0, m[MetricVersionsSwept])
	assert.Equal(t, 1.0, m[MetricVersionsKept])
	assert.Equal(t, 0.0, m[MetricVersionsFailed])
	assert.Equal(t, 0.0, m[MetricVersionSweepPartial])
	assert.Equal(t, 1.0, m[MetricReleased], "the reclaim's own counts in the same record")
	assert.Contains(t, logs.String(), `"msg":"version sweep","listed":2,"swept":1,"kept":1`)
}

// failingStore answers every ListKeys with an error.
type failingStore struct{ *localedge.KeyValueStore }

func (failingStore) ListKeys(context.Context, string, int, string) ([]edgeversion.Item, string, error) {
	return nil, "", errors.New("AccessDeniedException")
}

// TestVersionSweepFailsNothing: a sweep that fails, or has no time left
// before the deadline, is logged and counted incomplete; the reclaim's
// answer is as without it.
func TestVersionSweepFailsNothing(t *testing.T) {
	tests := []struct {
		name    string
		store   func(*localedge.KeyValueStore) edgeversion.SweepAPI
		budget  time.Duration
		wantLog string
	}{
		{"the listing refused", func(k *localedge.KeyValueStore) edgeversion.SweepAPI { return failingStore{k} }, 0, "version sweep failed"},
		{"no time left", func(k *localedge.KeyValueStore) edgeversion.SweepAPI { return k }, time.Nanosecond, "version sweep stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			clock := storetest.NewClock(start)
			kvs := versionStore(t, clock)
			var logs, out bytes.Buffer
			h := New(Options{Store: linkstore.NewMemory(clock.Now), Now: clock.Now, SweepBudget: tt.budget,
				Versions: &edgeversion.Sweeper{API: tt.store(kvs), ARN: "arn", EdgeLife: 24 * time.Hour, Now: clock.Now, Pause: -1},
				Log:      slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: metrics.New(&out, "Shortener", "reclaim")})
			got, err := h.Handle(ctx, reclaimflow.Input{Total: 4})
			require.NoError(t, err)
			assert.Equal(t, reclaimflow.Output{Total: 4}, got)
			assert.Equal(t, 2, kvs.Len(), "nothing swept")
			m := emitted(t, &out)
			assert.Equal(t, 1.0, m[MetricVersionSweepPartial])
			assert.Equal(t, 0.0, m[MetricVersionsSwept])
			assert.Contains(t, logs.String(), tt.wantLog)
		})
	}
}

// TestVersionSweepBudget: the sweep is given SweepBudget, cut to Margin
// before the invocation's deadline.
func TestVersionSweepBudget(t *testing.T) {
	clock := storetest.NewClock(start)
	var calls []time.Time
	api := &deadlineStore{KeyValueStore: versionStore(t, clock), seen: &calls}
	h := New(Options{Store: linkstore.NewMemory(clock.Now), Now: clock.Now, SweepBudget: time.Hour,
		Versions: &edgeversion.Sweeper{API: api, ARN: "arn", EdgeLife: 24 * time.Hour, Now: clock.Now, Pause: -1}, Log: quiet})
	deadline := time.Now().Add(time.Minute)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	_, err := h.Handle(ctx, reclaimflow.Input{})
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	assert.WithinDuration(t, deadline.Add(-DefaultMargin), calls[0], time.Second, "the sweep's calls end Margin before the deadline")
	assert.Equal(t, DefaultSweepBudget, New(Options{}).SweepBudget)
}

// deadlineStore notes the deadline of each DescribeKeyValueStore call.
type deadlineStore struct {
	*localedge.KeyValueStore
	seen *[]time.Time
}

func (d *deadlineStore) DescribeKeyValueStore(ctx context.Context, arn string) (string, error) {
	if dl, ok := ctx.Deadline(); ok {
		*d.seen = append(*d.seen, dl)
	}
	return d.KeyValueStore.DescribeKeyValueStore(ctx, arn)
}
