package lifecycletest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localreclaim"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const grace = 5 * time.Second

// TestExpiryTombstoneReclaim runs the lifecycle by both of its paths:
//
//   - the expiry sweep: the reclaim run turns the expired link into its
//     tombstone in place, a day before TTL could remove it, so the code
//     never disappears (a watcher reading it all along never finds it
//     absent);
//   - the TTL backstop: TTL removes the link at its expiry (PurgeDelay -1)
//     and ttlstream writes the tombstone from the stream.
func TestExpiryTombstoneReclaim(t *testing.T) {
	for _, path := range []struct {
		name       string
		purgeDelay time.Duration
	}{{name: "expiry sweep"}, {name: "ttl backstop", purgeDelay: -1}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			expiryTombstoneReclaim(t, path.purgeDelay)
		})
	}
}

func expiryTombstoneReclaim(t *testing.T, purgeDelay time.Duration) {
	endpoint := testenv.DynamoDBEndpoint(t)
	db := emulator.NewDynamoDBClient(endpoint)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := map[string]string{
		"LINKS_TABLE":               testenv.UniqueName(t, "links"),
		"IDEMPOTENCY_TABLE":         testenv.UniqueName(t, "idem"),
		"SHORTENER_BASE_URL":        "http://127.0.0.1:8080",
		"SHORTENER_TOMBSTONE_GRACE": grace.String(),
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, grace, cfg.TombstoneGrace)
	storeCfg := dynamo.LinkConfig{LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, PurgeDelay: purgeDelay}
	require.NoError(t, localtable.Links(ctx, db, storeCfg.LinksTable, storeCfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, storeCfg)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	// The local run's wiring: create, redirect, the stream poller with
	// ttlstream, the reclaim runner.
	create, err := createfn.New(createfn.Options{Store: store, Config: cfg, Log: log,
		Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{"owner-1-key": "owner-1"}), apikey.ResolverOptions{})})
	require.NoError(t, err)
	redirectAt := func(code string, now func() time.Time) events.APIGatewayProxyResponse {
		// A fresh handler each time: no in-process cache between checks.
		h := redirectfn.New(redirectfn.Options{Store: store, Config: cfg, Log: log, Now: now})
		resp, err := h.Handle(ctx, events.APIGatewayProxyRequest{HTTPMethod: http.MethodGet, Path: "/" + code,
			PathParameters: map[string]string{"code": code}})
		require.NoError(t, err)
		return resp
	}
	redirect := func(code string) events.APIGatewayProxyResponse { return redirectAt(code, time.Now) }
	ttl := ttlstreamfn.New(ttlstreamfn.Options{Store: store, Grace: cfg.TombstoneGrace, Now: time.Now, Log: log})
	poller, err := localstream.New(db, emulator.NewStreamsClient(endpoint), localstream.Options{
		Table: cfg.LinksTable, Handler: ttl.Handle, Region: emulator.Region, Log: log})
	require.NoError(t, err)
	polled := make(chan error, 1)
	go func() { polled <- poller.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-polled) }()
	reclaim := localreclaim.New(reclaimfn.New(reclaimfn.Options{Store: store, Grace: cfg.TombstoneGrace, Log: log}).Handle, log)

	suffix := make([]byte, 4)
	rand.Read(suffix)
	alias := "e2e-" + hex.EncodeToString(suffix)
	post := func(url string) events.APIGatewayProxyResponse {
		resp, err := create.Handle(ctx, events.APIGatewayProxyRequest{
			HTTPMethod: http.MethodPost, Path: "/v1/links", Resource: "/v1/links",
			Headers:        map[string]string{"Content-Type": "application/json"},
			Body:           `{"url":"` + url + `","alias":"` + alias + `","ttl_seconds":2}`,
			RequestContext: events.APIGatewayProxyRequestContext{Identity: events.APIGatewayRequestIdentity{APIKey: "owner-1-key"}},
		})
		require.NoError(t, err)
		return resp
	}

	created := post("https://example.com/first")
	require.Equal(t, http.StatusCreated, created.StatusCode, created.Body)
	l, err := store.Get(ctx, alias)
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, redirect(alias).StatusCode)

	// Expiry: the redirect answers 410 at once, while the item is still
	// there. Its clock runs half a second ahead of TTL's, so the item
	// cannot have been deleted yet.
	time.Sleep(time.Until(l.ExpiresAt.Add(-500 * time.Millisecond)))
	_, err = store.Get(ctx, alias)
	require.NoError(t, err, "not deleted before it expires")
	assert.Equal(t, http.StatusGone, redirectAt(alias, func() time.Time { return l.ExpiresAt }).StatusCode)

	// A watcher reads the code until its tombstone is there.
	absent := make(chan int, 1)
	watching, stopWatching := context.WithCancel(ctx)
	go func() {
		n := 0
		for watching.Err() == nil {
			if _, err := store.Get(ctx, alias); errors.Is(err, link.ErrNotFound) {
				n++
			}
			time.Sleep(20 * time.Millisecond)
		}
		absent <- n
	}()

	var tomb link.Tombstone
	if purgeDelay >= 0 {
		// The reclaim run finds the expired link and tombstones it in place.
		time.Sleep(time.Until(l.ExpiresAt.Add(time.Second)))
		res, err := reclaim.Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(1), res.Expired)
		tomb, err = store.GetTombstone(ctx, alias)
		require.NoError(t, err, "the reclaim run tombstones the expired link")
	} else {
		// TTL removes the item; the poller delivers an AWS-shaped TTL
		// REMOVE; ttlstream writes the tombstone.
		require.Eventually(t, func() bool {
			tomb, err = store.GetTombstone(ctx, alias)
			return err == nil
		}, 20*time.Second, 50*time.Millisecond, "a tombstone after the TTL deletion")
	}
	stopWatching()
	if n := <-absent; purgeDelay >= 0 {
		assert.Zero(t, n, "an expired code tombstoned in place is never absent")
	} else {
		t.Logf("TTL backstop: the code read absent %d times before its tombstone", n)
	}
	t.Logf("tombstone written %.1f s after expires_at", tomb.TombstonedAt.Sub(l.ExpiresAt).Seconds())
	assert.Equal(t, link.Tombstone{Code: alias, PrevOwner: "owner-1", TombstonedAt: tomb.TombstonedAt,
		ReclaimAfter: tomb.TombstonedAt.Add(grace).Truncate(time.Second), Reason: link.ReasonExpired}, tomb)

	// During grace: still 410, the alias is taken, nothing to reclaim.
	assert.Equal(t, http.StatusGone, redirect(alias).StatusCode)
	assert.Equal(t, http.StatusConflict, post("https://example.com/second").StatusCode)
	res, err := reclaim.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, res.Reclaimed)

	// After grace: the reclaim releases it, once.
	time.Sleep(time.Until(tomb.ReclaimAfter.Add(time.Second)))
	res, err = reclaim.Run(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, res.Reclaimed, int64(1))
	assert.False(t, res.More)
	again, err := reclaim.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, again.Reclaimed, "reclaim run twice reclaims once")

	// The alias can be issued again.
	recreated := post("https://example.com/second")
	require.Equal(t, http.StatusCreated, recreated.StatusCode, recreated.Body)
	resp := redirect(alias)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "https://example.com/second", resp.Headers["Location"])
}
