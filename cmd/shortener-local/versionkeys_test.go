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

// TestVersionKeysSweptAfterTheEdgeLife: the local run's reclaim schedule
// sweeps the key value store as deployed. A changed link's version stays
// while an answer cached under the version before it may still be at the
// edge (the edge life, SHORTENER_EDGE_TTL, here 6 s, plus the margin, 1 s)
// and is deleted after. The path then reads version "0" again, and the
// redirect still answers the change: the answer cached under "0" before
// the change was cached more than the edge life ago, so it has expired,
// and the request is a miss (edgeversion.Sweeper; the same with a day's
// life on a fake clock: internal/localedge
// TestVersionKeysSweptKeyReadsAsZero).
func TestVersionKeysSweptAfterTheEdgeLife(t *testing.T) {
	const edgeLife, margin = 6 * time.Second, time.Second
	links := testenv.UniqueName(t, "links")
	r := startLocal(t, map[string]string{
		"LINKS_TABLE":                         links,
		"SHORTENER_CACHE_TTL":                 "5s",
		"SHORTENER_EDGE_TTL":                  "6",
		"SHORTENER_EDGE_VERSION_KEYS":         "true",
		"SHORTENER_EDGE_KVS_PROPAGATION":      "1s",
		"SHORTENER_EDGE_VERSION_SWEEP_MARGIN": margin.String(),
		"SHORTENER_RECLAIM_INTERVAL":          "200ms",
		"SHORTENER_DB_TIMEOUT":                "2s",
	})
	createOldLinks(t, links, "aB3dE5f")

	status, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
	require.Equal(t, 302, status)
	require.Equal(t, "public, max-age=0, s-maxage=6", h.Get("Cache-Control"))
	_, h, _ = r.do(t, "GET", "/aB3dE5f", "", "")
	require.Equal(t, "Hit from cloudfront", h.Get("X-Cache"), "the edge holds it under version 0")

	// The version is put after the PATCH was sent (after its settle
	// time), so it is swept no earlier than the edge life and margin after.
	patched := time.Now()
	status, _, body := r.do(t, "PATCH", "/v1/links/aB3dE5f", r.key, `{"url":"https://example.com/after"}`)
	require.Equal(t, 200, status, string(body))
	require.Eventually(t, func() bool { return r.edgeCounters(t).StoreKeys == 1 }, 10*time.Second, 50*time.Millisecond,
		"manage puts a version after its settle time")
	require.Eventually(t, func() bool {
		_, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
		return h.Get("Location") == "https://example.com/after"
	}, 30*time.Second, 100*time.Millisecond)

	require.Eventually(t, func() bool { return r.edgeCounters(t).StoreKeys == 0 }, 30*time.Second, 50*time.Millisecond,
		"the scheduled sweep deletes the version once the edge life and margin have passed")
	assert.GreaterOrEqual(t, time.Since(patched), edgeLife+margin, "never within the edge life and margin")
	time.Sleep(1200 * time.Millisecond) // the delete reaches the edge
	_, h, _ = r.do(t, "GET", "/aB3dE5f", "", "")
	assert.Equal(t, "https://example.com/after", h.Get("Location"), "version 0 again, and no answer from before the change")
	assert.Equal(t, "Miss from cloudfront", h.Get("X-Cache"))
	_, h, _ = r.do(t, "GET", "/aB3dE5f", "", "")
	assert.Equal(t, "Hit from cloudfront", h.Get("X-Cache"))
	assert.Equal(t, "https://example.com/after", h.Get("Location"))
	assert.Zero(t, r.edgeCounters(t).Invalidations, "no invalidation")
	assert.Contains(t, r.stderr.String(), `"msg":"version sweep"`, "the sweep logs its counts")
}
