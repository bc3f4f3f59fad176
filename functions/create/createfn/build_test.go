package createfn_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TestBuildNamesEachMissingSetting: create invalidates nothing, but learns
// the distribution's own host from the edge parameter
// (TestBuildNeedsTheEdgeParameterForTheHosts).
func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, createfn.Build, "LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "AUDIT_TABLE", "EDGE_PARAMETER")
}

// TestBuildNeedsTheEdgeParameterForTheHosts: create invalidates nothing
// (docs/lifecycle.md, "How fast a change shows"), but in Lambda it learns
// the distribution's own host from the edge parameter: the short links'
// host without a custom domain, and beside one (SHORTENER_BASE_URL) a host
// it must refuse links to. So it refuses to start without the parameter
// either way; the local run's own edge answers on the base URL alone.
func TestBuildNeedsTheEdgeParameterForTheHosts(t *testing.T) {
	h, err := createfn.Build(fntest.Load(t), fntest.Lambda())
	require.NoError(t, err)
	assert.Nil(t, h.BaseURL, "SHORTENER_BASE_URL is the host")
	assert.NotNil(t, h.EdgeHosts, "the distribution's own host is refused beside it")

	for _, without := range [][]string{{"EDGE_PARAMETER"}, {"EDGE_PARAMETER", "SHORTENER_BASE_URL"}} {
		_, err = createfn.Build(fntest.Load(t, without...), fntest.Lambda())
		require.ErrorContains(t, err, "EDGE_PARAMETER is not set", "without %v", without)
	}

	// The local run has no distribution: the local edge takes its place.
	c := fntest.Lambda()
	c.Edge = edgecache.NewRecorder(nil)
	_, err = createfn.Build(fntest.Load(t, "EDGE_PARAMETER"), c)
	require.NoError(t, err)
}

// TestTheDistributionIsLearntWhenFirstNeeded: create starts without
// reading the edge parameter (no start-up cost, and the edge stack may not
// have deployed yet), and learns from it, when a request needs it, the
// short links' host without a custom domain.
func TestTheDistributionIsLearntWhenFirstNeeded(t *testing.T) {
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	h, err := createfn.Build(fntest.Load(t, "SHORTENER_BASE_URL"), c)
	require.NoError(t, err)
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	require.NotNil(t, h.BaseURL, "the short links' host is the distribution's")
	base, err := h.BaseURL(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "https://"+fntest.Distribution, base)

	c.EdgeInfo = &fntest.CountingSource{}
	h, err = createfn.Build(fntest.Load(t), c)
	require.NoError(t, err)
	assert.Nil(t, h.BaseURL, "SHORTENER_BASE_URL is the short links' host: no lookup per request")
}

// TestEveryHostTheEdgeAnswersOnIsRefused: with a custom domain the
// distribution still answers on its own *.cloudfront.net name, so a link
// to it loops as surely as one to the custom domain. create, built as a
// deployed stack builds it (the custom domain in SHORTENER_BASE_URL, the
// distribution in the edge parameter), refuses both; the parameter is
// read when a request needs it, not at start-up.
func TestEveryHostTheEdgeAnswersOnIsRefused(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	h, err := createfn.Build(fntest.Load(t), c)
	require.NoError(t, err)
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	h.Store, h.Owners = linkstore.NewMemory(func() time.Time { return now }), fntest.Owners()
	for _, u := range fntest.Loops {
		resp, err := h.Handle(context.Background(), fntest.Request(http.MethodPost, "/v1/links", "", `{"url":"`+u+`"}`))
		require.NoError(t, err)
		assert.Equal(t, 400, resp.StatusCode, "%s: %s", u, resp.Body)
		assert.Contains(t, resp.Body, "would loop", u)
	}
	resp, err := h.Handle(context.Background(), fntest.Request(http.MethodPost, "/v1/links", "", `{"url":"https://other.cloudfront.net/x"}`))
	require.NoError(t, err)
	assert.Equal(t, 201, resp.StatusCode, "another distribution is another site: %s", resp.Body)
	assert.Contains(t, resp.Body, `"short_url":"https://sho.rt/`, "the custom domain stays the short links' host")
}

// TestReservationTableGoesInFront: with RESERVATION_TABLE, create writes
// through the reservation table, and needs no idempotency table (the
// claims of Idempotency-Key live there, so the stack gives it none);
// without it, the links store alone answers, as in a deployment with one
// write Region, and create refuses to start lacking the idempotency table.
func TestReservationTableGoesInFront(t *testing.T) {
	with := fntest.Load(t, "IDEMPOTENCY_TABLE")
	with.ReservationTable = "reservations"
	h, err := createfn.Build(with, fntest.Lambda())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, h.Store)

	h, err = createfn.Build(fntest.Load(t), fntest.Lambda())
	require.NoError(t, err)
	assert.IsType(t, &dynamo.LinkStore{}, h.Store)
	_, err = createfn.Build(fntest.Load(t, "IDEMPOTENCY_TABLE"), fntest.Lambda())
	require.ErrorContains(t, err, "IDEMPOTENCY_TABLE is not set")
}
