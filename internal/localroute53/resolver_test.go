package localroute53

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpoint is a health-checked API whose answer a test sets.
type endpoint struct {
	*httptest.Server
	status atomic.Int32
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{}
	e.status.Store(http.StatusOK)
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != DefaultPath {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(int(e.status.Load()))
	}))
	t.Cleanup(e.Close)
	return e
}

func newResolver(t *testing.T, threshold int, eps ...*endpoint) *Resolver {
	var recs []Record
	for i, e := range eps {
		recs = append(recs, Record{Region: []string{"us-east-1", "us-east-2", "us-west-2"}[i], Target: e.URL})
	}
	r, err := New(Options{Records: recs, FailureThreshold: threshold, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return r
}

// TestFailoverAfterThreshold: the nearest Region stops answering 2xx; the
// record turns unhealthy at the threshold-th failed check, not before, and
// healthy again at the threshold-th passed check.
func TestFailoverAfterThreshold(t *testing.T) {
	east, east2, west := newEndpoint(t), newEndpoint(t), newEndpoint(t)
	r := newResolver(t, 3, east, east2, west)
	ctx := context.Background()
	assert.Equal(t, "us-east-1", r.Resolve(), "healthy before any check")

	east.status.Store(http.StatusServiceUnavailable)
	for i := 1; i < 3; i++ {
		r.CheckAll(ctx)
		assert.Equal(t, "us-east-1", r.Resolve(), "after %d failed checks", i)
	}
	r.CheckAll(ctx)
	assert.Equal(t, "us-east-2", r.Resolve(), "after 3 failed checks")
	st := r.Statuses()
	assert.False(t, st[0].Healthy)
	assert.Equal(t, 3, st[0].Failures)
	assert.Equal(t, "status 503", st[0].LastError)
	assert.True(t, st[1].Healthy)

	east.status.Store(http.StatusFound) // a 3xx passes
	r.CheckAll(ctx)
	r.CheckAll(ctx)
	assert.Equal(t, "us-east-2", r.Resolve(), "after 2 passed checks")
	r.CheckAll(ctx)
	assert.Equal(t, "us-east-1", r.Resolve(), "after 3 passed checks")
}

// TestRefusedConnectionFails: a stopped origin (nothing listening) fails
// its check; the next nearest healthy Region answers.
func TestRefusedConnectionFails(t *testing.T) {
	east, east2, west := newEndpoint(t), newEndpoint(t), newEndpoint(t)
	r := newResolver(t, 1, east, east2, west)
	east2.Close()
	east.status.Store(http.StatusInternalServerError)
	r.CheckAll(context.Background())
	assert.Equal(t, "us-west-2", r.Resolve())
	st := r.Statuses()
	assert.NotEmpty(t, st[1].LastError)
	assert.Equal(t, int64(1), st[2].Checks)
}

// TestAllUnhealthyAnswersAsIfHealthy: with every record unhealthy, Route
// 53 answers with the policy's choice, the nearest.
func TestAllUnhealthyAnswersAsIfHealthy(t *testing.T) {
	east, west := newEndpoint(t), newEndpoint(t)
	r := newResolver(t, 1, east, west)
	east.status.Store(http.StatusBadGateway)
	west.status.Store(http.StatusBadGateway)
	r.CheckAll(context.Background())
	assert.Equal(t, "us-east-1", r.Resolve())
	for _, s := range r.Statuses() {
		assert.False(t, s.Healthy, s.Region)
	}
}

// TestCanceledCheckCountsNothing: checks cut short by the caller's end say
// nothing of the endpoints.
func TestCanceledCheckCountsNothing(t *testing.T) {
	r := newResolver(t, 1, newEndpoint(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.CheckAll(ctx)
	assert.Equal(t, int64(0), r.Statuses()[0].Checks)
	assert.True(t, r.Statuses()[0].Healthy)
}

func TestNewRejects(t *testing.T) {
	ok := []Record{{Region: "us-east-1", Target: "http://127.0.0.1:1"}}
	tests := []struct {
		name string
		o    Options
	}{
		{"no records", Options{}},
		{"threshold above 10", Options{Records: ok, FailureThreshold: 11}},
		{"negative threshold", Options{Records: ok, FailureThreshold: -1}},
		{"negative interval", Options{Records: ok, Interval: -1}},
		{"region twice", Options{Records: append(ok, ok[0])}},
		{"no target", Options{Records: []Record{{Region: "us-east-1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.o)
			assert.Error(t, err)
		})
	}
}
