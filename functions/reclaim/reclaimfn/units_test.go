package reclaimfn

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/capacity"
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

// lifecycleUnits is what the reclaim run consumed per expired link, in the
// one Region it writes (every other replica then pays one replicated write
// per item write, and its own index writes).
type lifecycleUnits struct {
	ExpiryWRU, ExpiryRRU   float64 // the expiry step: listing, tombstone in place
	ReleaseWRU, ReleaseRRU float64 // the release step after the grace
	Calls                  map[string]float64
}

// measureLifecycle creates n links that expire, runs the reclaim's expiry
// step and, past the grace, its release step against DynamoDB Local with
// ReturnConsumedCapacity on every call, and returns the units per link.
func measureLifecycle(t *testing.T, n int, reserved bool) lifecycleUnits {
	t.Helper()
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	meter := capacity.Meter{Items: emulator.NewDynamoDBClient(endpoint)}
	db := emulator.NewDynamoDBClient(endpoint, meter.Options)
	clock := storetest.NewClock(start)
	// A generous deadline per call: this test counts units, and a call cut
	// off by a busy DynamoDB Local is a failed write it cannot count (the
	// run then expires 37 links of 40, as seen under load).
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Now: clock.Now, Timeout: 30 * time.Second}
	require.NoError(t, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	links := dynamo.NewLinkStore(db, cfg)
	var s linkstore.Store = links
	if reserved {
		table := testenv.UniqueName(t, "reservations")
		require.NoError(t, localtable.Create(ctx, db, table, tableschema.Reservations()))
		s = linkstore.NewReserved(links, dynamo.NewLedger(db, dynamo.LedgerConfig{Table: table, Now: clock.Now, Timeout: 30 * time.Second}), clock.Now)
	}
	for i := range n {
		l := sample(fmt.Sprintf("u%06d", i), clock.Now())
		l.Owner, l.ExpiresAt = fmt.Sprintf("owner-%d", i%7), clock.Now().Add(time.Minute)
		require.NoError(t, s.Create(ctx, l, nil))
	}
	var out bytes.Buffer
	h := New(Options{Store: s, Grace: 10 * time.Minute, Now: clock.Now, Log: quiet, Metrics: metrics.New(&out, "Shortener", "reclaim")})
	per := func(u capacity.Usage) (float64, float64) { return u.WRU / float64(n), u.RRU / float64(n) }

	clock.Add(2 * time.Minute)
	before := meter.Usage()
	got, err := h.Handle(ctx, reclaimflow.Input{})
	require.NoError(t, err)
	require.Equal(t, int64(n), got.Expired)
	expiry := meter.Usage().Sub(before)

	clock.Add(11 * time.Minute)
	before = meter.Usage()
	got, err = h.Handle(ctx, reclaimflow.Input{})
	require.NoError(t, err)
	require.Equal(t, int64(n), got.Reclaimed)
	release := meter.Usage().Sub(before)
	for i := range n {
		_, err := s.GetTombstone(ctx, fmt.Sprintf("u%06d", i))
		require.ErrorIs(t, err, link.ErrNotFound)
	}
	require.Zero(t, expiry.Failed+release.Failed, "every write measured")

	u := lifecycleUnits{Calls: map[string]float64{}}
	u.ExpiryWRU, u.ExpiryRRU = per(expiry)
	u.ReleaseWRU, u.ReleaseRRU = per(release)
	for op, v := range expiry.ByOperation {
		u.Calls["expiry "+op] = v / float64(n)
	}
	for op, v := range release.ByOperation {
		u.Calls["release "+op] = v / float64(n)
	}
	return u
}

// TestLifecycleUnitsPerExpiredLink measures what an expired link costs the
// reclaim run, from its expiry to the release of its code, with and without
// the reservation table, and checks the figures are per link: twice the
// links, the same units each (the listings' Queries aside, which read a
// page for many links).
func TestLifecycleUnitsPerExpiredLink(t *testing.T) {
	for _, reserved := range []bool{false, true} {
		t.Run(fmt.Sprintf("reserved=%v", reserved), func(t *testing.T) {
			small, large := measureLifecycle(t, 20, reserved), measureLifecycle(t, 40, reserved)
			t.Logf("per expired link: expiry %.2f WRU %.3f RRU, release %.2f WRU %.3f RRU; by call %v",
				large.ExpiryWRU, large.ExpiryRRU, large.ReleaseWRU, large.ReleaseRRU, large.Calls)
			assert.Equal(t, small.ExpiryWRU, large.ExpiryWRU, "the tombstone's writes are per link")
			assert.Equal(t, small.ReleaseWRU, large.ReleaseWRU, "the release's writes are per link")
			assert.GreaterOrEqual(t, large.ExpiryWRU, 1.0, "an expired link is written once at least")
			assert.GreaterOrEqual(t, large.ReleaseWRU, 1.0, "a due tombstone is deleted")
		})
	}
}
