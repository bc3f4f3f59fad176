package managefn_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, managefn.Build, "LINKS_TABLE", "KEYS_TABLE", "AUDIT_TABLE", "EDGE_PARAMETER")
}

// TestTheLocalEdgeStandsInForTheDistribution: the local run has no
// distribution; the local edge takes its place.
func TestTheLocalEdgeStandsInForTheDistribution(t *testing.T) {
	c := fntest.Lambda()
	c.Edge = edgecache.NewRecorder(nil)
	h, err := managefn.Build(fntest.Load(t, "EDGE_PARAMETER"), c)
	require.NoError(t, err)
	assert.Same(t, c.Edge, h.Edge, "the local edge takes the distribution's place")
}

// TestTheDistributionIsLearntWhenFirstNeeded: manage starts without
// reading the edge parameter (no start-up cost, and the edge stack may not
// have deployed yet), and learns from it, when a request needs them, the
// short links' host without a custom domain and the distribution's ID.
func TestTheDistributionIsLearntWhenFirstNeeded(t *testing.T) {
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	h, err := managefn.Build(fntest.Load(t, "SHORTENER_BASE_URL"), c)
	require.NoError(t, err)
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	require.NotNil(t, h.BaseURL, "the short links' host is the distribution's")
	base, err := h.BaseURL(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "https://"+fntest.Distribution, base)
	require.IsType(t, &edgecache.Deferred{}, h.Edge)
	id, err := h.Edge.(*edgecache.Deferred).ID(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "E2EXAMPLE12345", id)

	c.EdgeInfo = &fntest.CountingSource{}
	h, err = managefn.Build(fntest.Load(t), c)
	require.NoError(t, err)
	assert.Nil(t, h.BaseURL, "SHORTENER_BASE_URL is the short links' host: no lookup per request")
}

// TestEveryHostTheEdgeAnswersOnIsRefused: with a custom domain the
// distribution still answers on its own *.cloudfront.net name, so a link
// to it loops as surely as one to the custom domain. manage, built as a
// deployed stack builds it, refuses both; the parameter is read when a
// request needs it, not at start-up.
func TestEveryHostTheEdgeAnswersOnIsRefused(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	h, err := managefn.Build(fntest.Load(t), c)
	require.NoError(t, err)
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	store := linkstore.NewMemory(func() time.Time { return now })
	require.NoError(t, store.Create(context.Background(), link.Link{Code: "Ab3dE5g", URL: "https://example.com/", Owner: "alice",
		CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
	// No call leaves the machine: a change that got through would be
	// invalidated here, not at CloudFront.
	h.Store, h.Owners, h.Edge = store, fntest.Owners(), fntest.NopEdge{}
	for _, u := range fntest.Loops {
		resp, err := h.Handle(context.Background(), fntest.Request(http.MethodPatch, "/v1/links/{code}", "Ab3dE5g", `{"url":"`+u+`"}`))
		require.NoError(t, err)
		assert.Equal(t, 400, resp.StatusCode, "%s: %s", u, resp.Body)
		assert.Contains(t, resp.Body, "would loop", u)
	}
}

// TestReservationTableGoesInFront: with RESERVATION_TABLE, manage writes
// through the reservation table.
func TestReservationTableGoesInFront(t *testing.T) {
	with := fntest.Load(t)
	with.ReservationTable = "reservations"
	h, err := managefn.Build(with, fntest.Lambda())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, h.Store)
}

// TestBuildReadsEveryOriginRegionsMarks: with EDGE_MARKS_TABLES, manage
// reads each origin Region's marks table in that Region, and without it
// has no marks (it invalidates every change).
func TestBuildReadsEveryOriginRegionsMarks(t *testing.T) {
	with := fntest.Load(t)
	with.EdgeMarksTables = []edgemarks.Table{{Region: "eu-west-1", Name: "app-edge-marks"}, {Region: "eu-central-1", Name: "app-edge-marks"}}
	rec := &fntest.HostRecorder{}
	h, err := managefn.Build(with, fntest.Regional(rec))
	require.NoError(t, err)
	require.NotNil(t, h.Marks)
	held, err := h.Marks.Held(context.Background(), "abc1234", time.Now())
	require.Error(t, err, "no network here")
	assert.True(t, held, "a failed read counts as held")
	assert.ElementsMatch(t, []string{"dynamodb.eu-west-1.amazonaws.com", "dynamodb.eu-central-1.amazonaws.com"}, rec.Hosts())

	h, err = managefn.Build(fntest.Load(t), fntest.Lambda())
	require.NoError(t, err)
	assert.Nil(t, h.Marks)
}

// TestVersionKeysReplaceInvalidations: with EDGE_VERSION_KEYS (context
// edgeVersionKeys) a change puts new link versions into the key value
// store the edge parameter names instead of invalidating the
// distribution, learnt when first needed; without it nothing changes.
func TestVersionKeysReplaceInvalidations(t *testing.T) {
	const arn = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	cfg := fntest.Load(t)
	require.False(t, cfg.EdgeVersionKeys, "off unless set")
	cfg.EdgeVersionKeys = true
	h, err := managefn.Build(cfg, c)
	require.NoError(t, err)
	require.IsType(t, &edgeversion.Writer{}, h.Edge)
	w := h.Edge.(*edgeversion.Writer)
	assert.IsType(t, &edgecache.Deferred{}, w.Fallback, "a put that fails invalidates")
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	_, err = w.StoreARN(context.Background())
	assert.ErrorContains(t, err, "names no version store", "an edge deployed without the flag")
	src.Edge.VersionStoreARN = arn
	got, err := w.StoreARN(context.Background())
	require.NoError(t, err)
	assert.Equal(t, arn, got)
}
