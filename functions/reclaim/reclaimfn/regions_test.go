package reclaimfn

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
)

// TestReclaimReleasesTheReservation: a link created in one Region expires;
// the reclaim run tombstones it and, after the grace, releases the code in
// the reservation table as well as the links table. Only then may another
// Region issue the code again.
func TestReclaimReleasesTheReservation(t *testing.T) {
	clock := storetest.NewClock(start)
	ledger := linkstore.NewMemoryLedger(clock.Now)
	home := linkstore.NewReserved(linkstore.NewMemory(clock.Now), ledger, clock.Now)
	away := linkstore.NewReserved(linkstore.NewMemory(clock.Now), ledger, clock.Now)
	l := sample("soon", clock.Now())
	require.NoError(t, home.Create(context.Background(), l, nil))

	var out bytes.Buffer
	h := New(Options{Store: home, Grace: time.Hour, Now: clock.Now, Log: quiet, Metrics: metrics.New(&out, "Shortener", "reclaim")})
	clock.Add(2 * time.Hour) // past the link's expiry
	got, err := h.Handle(context.Background(), reclaimflow.Input{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Expired, "tombstoned in place")
	assert.Contains(t, ledger.Reservations(), "soon", "held through the grace period")
	again := sample("soon", clock.Now())
	assert.ErrorIs(t, away.Create(context.Background(), again, nil), link.ErrConflict)

	clock.Add(2 * time.Hour) // past the grace
	got, err = h.Handle(context.Background(), reclaimflow.Input{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Reclaimed)
	assert.NotContains(t, ledger.Reservations(), "soon")
	again = sample("soon", clock.Now())
	require.NoError(t, away.Create(context.Background(), again, nil), "another Region issues the released code")
}
