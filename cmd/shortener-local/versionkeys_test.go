package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

// TestVersionKeysTakeAChangedLinkOffTheEdge: with
// SHORTENER_EDGE_VERSION_KEYS the management API puts a new link version
// into the edge's key value store instead of invalidating: a redirect the
// edge holds for a day changes within the promise (30 s after the 200)
// once the put has propagated, and no invalidation is ever asked for.
func TestVersionKeysTakeAChangedLinkOffTheEdge(t *testing.T) {
	links := testenv.UniqueName(t, "links")
	r := startLocal(t, map[string]string{
		"LINKS_TABLE":                    links,
		"SHORTENER_CACHE_TTL":            "5s",
		"SHORTENER_EDGE_VERSION_KEYS":    "true",
		"SHORTENER_EDGE_KVS_PROPAGATION": "2s",
		"SHORTENER_DB_TIMEOUT":           "2s",
	})
	createOldLinks(t, links, "aB3dE5f")

	status, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
	require.Equal(t, 302, status)
	require.Equal(t, "public, max-age=0, s-maxage=86400", h.Get("Cache-Control"))
	old := h.Get("Location")
	_, h, _ = r.do(t, "GET", "/aB3dE5f", "", "")
	require.Equal(t, "Hit from cloudfront", h.Get("X-Cache"), "the edge holds it")

	status, _, body := r.do(t, "PATCH", "/v1/links/aB3dE5f", r.key, `{"url":"https://example.com/after"}`)
	require.Equal(t, 200, status, string(body))
	changed := time.Now()
	require.Eventually(t, func() bool {
		_, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
		return h.Get("Location") == "https://example.com/after"
	}, 30*time.Second-time.Since(changed), 250*time.Millisecond, "the changed link still redirects to %s 30 s after its 200", old)
	st := r.edgeCounters(t)
	assert.Zero(t, st.Invalidations, "no invalidation")
	assert.Zero(t, st.Purged)
}
