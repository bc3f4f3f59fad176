package localreclaim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func setup(t *testing.T, due int) (*linkstore.Memory, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	s := linkstore.NewMemory(clock.Now)
	for i := range due {
		_, err := s.Tombstone(context.Background(), link.Tombstone{Code: fmt.Sprintf("code%03d", i), TombstonedAt: clock.Now(),
			ReclaimAfter: clock.Now().Add(5 * time.Second), Reason: link.ReasonExpired})
		require.NoError(t, err)
	}
	return s, clock
}

func TestServeHTTP(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		advance   time.Duration
		batch     int
		status    int
		body      string
		remaining int
	}{
		{name: "during grace nothing is released", method: http.MethodPost, status: 200, body: `{"reclaimed":0,"expired":0,"more":false}`, remaining: 7},
		{name: "after grace all are released", method: http.MethodPost, advance: 6 * time.Second, status: 200,
			body: `{"reclaimed":7,"expired":0,"more":false}`},
		{name: "one code per invocation loops like the state machine", method: http.MethodPost, advance: 6 * time.Second, batch: 1,
			status: 200, body: `{"reclaimed":7,"expired":0,"more":false}`},
		{name: "GET is refused", method: http.MethodGet, advance: 6 * time.Second, status: 405, remaining: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := setup(t, 7)
			clock.Add(tt.advance)
			h := reclaimfn.New(reclaimfn.Options{Store: s, Now: clock.Now, Log: quiet})
			if tt.batch > 0 {
				h.BatchSize, h.MaxBatches = tt.batch, 1
			}
			r := New(h.Handle, quiet)
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest(tt.method, "/_local/reclaim", nil))
			assert.Equal(t, tt.status, rec.Code)
			if tt.body != "" {
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				assert.JSONEq(t, tt.body, rec.Body.String())
			}
			due, err := s.DueTombstones(context.Background(), clock.Now().Add(time.Hour), 100)
			require.NoError(t, err)
			assert.Len(t, due, tt.remaining)
		})
	}
}

func TestRunTwiceReclaimsOnce(t *testing.T) {
	s, clock := setup(t, 3)
	clock.Add(time.Minute)
	r := New(reclaimfn.New(reclaimfn.Options{Store: s, Now: clock.Now, Log: quiet}).Handle, quiet)
	first, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(3), first.Reclaimed)
	second, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(0), second.Reclaimed)
}

type failingStore struct{ linkstore.Store }

func (failingStore) DueTombstones(context.Context, time.Time, int) ([]string, error) {
	return nil, errors.New("index unavailable")
}

func TestFailedRunIs500(t *testing.T) {
	r := New(reclaimfn.New(reclaimfn.Options{Store: failingStore{}, Log: quiet}).Handle, quiet)
	// The state machine would retry for 35 s; the request gives up first.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/_local/reclaim", nil).WithContext(ctx))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	assert.NotContains(t, rec.Body.String(), "index unavailable", "no internal error text in answers")
}

func TestEveryRunsOnSchedule(t *testing.T) {
	s, clock := setup(t, 2)
	clock.Add(time.Minute)
	r := New(reclaimfn.New(reclaimfn.Options{Store: s, Now: clock.Now, Log: quiet}).Handle, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Every(ctx, 10*time.Millisecond); close(done) }()
	require.Eventually(t, func() bool {
		due, err := s.DueTombstones(context.Background(), clock.Now(), 10)
		return err == nil && len(due) == 0
	}, 5*time.Second, 5*time.Millisecond)
	cancel()
	<-done
}
