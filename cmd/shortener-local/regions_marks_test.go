package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
)

// TestFailoverRegionsMarksAreRead: a redirect answered by the origin
// group's second Region (the first is down) marks the link in that
// Region's own marks table; once the first Region is back, a DELETE made
// there reads both Regions' marks and invalidates the link, while a link
// nobody asked for is deleted without an invalidation.
func TestFailoverRegionsMarksAreRead(t *testing.T) {
	links := testenv.UniqueName(t, "links")
	r := startRegions(t, map[string]string{"LINKS_TABLE": links})
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	// Old links in every Region's replica.
	for _, table := range []string{links, links + "-" + threeRegions[1], links + "-" + threeRegions[2]} {
		createOldLinks(t, table, "failed0", "never00")
	}
	heldUntil := func(table string) time.Time {
		u, err := dynamo.NewMarkStore(db, dynamo.Config{Table: table}).HeldUntil(context.Background(), "failed0")
		require.NoError(t, err)
		return u
	}

	status, _, body := r.do(t, "POST", regionsPath+"/"+threeRegions[0]+"/stop", "", "")
	require.Equal(t, http.StatusNoContent, status, string(body))
	r.waitRegions(t, func(s regionsState) bool { return s.V1 == threeRegions[1] })
	status, h, _ := r.do(t, "GET", "/failed0", "", "")
	require.Equal(t, http.StatusFound, status)
	require.Equal(t, "public, max-age=0, s-maxage=86400", h.Get("Cache-Control"), "answered by %s for a day", threeRegions[1])
	assert.True(t, heldUntil(links+"-edge-marks").IsZero(), "the first Region did not answer")
	assert.False(t, heldUntil(links+"-edge-marks-"+threeRegions[1]).Before(time.Now().Add(24*time.Hour)), "the second Region marked it")

	status, _, _ = r.do(t, "POST", regionsPath+"/"+threeRegions[0]+"/start", "", "")
	require.Equal(t, http.StatusNoContent, status)
	r.waitRegions(t, func(s regionsState) bool { return s.V1 == threeRegions[0] })

	status, _, body = r.do(t, "DELETE", "/v1/links/never00", r.key, "")
	require.Equal(t, http.StatusNoContent, status, string(body))
	assert.Zero(t, r.edgeCounters(t).InvalidationPaths, "nobody asked for it: no invalidation")
	status, _, body = r.do(t, "DELETE", "/v1/links/failed0", r.key, "")
	require.Equal(t, http.StatusNoContent, status, string(body))
	assert.Equal(t, int64(1), r.edgeCounters(t).InvalidationPaths, "the first Region's manage read the second Region's mark")
	status, h, _ = r.do(t, "GET", "/failed0", "", "")
	assert.Equal(t, http.StatusGone, status, "%s %s", h.Get("X-Cache"), h.Get("Location"))
}

// TestLaggingReplicaKeepsNoStaleRedirect is the failover-Region race with
// a replica lag longer than the invalidation settle time: a DELETE in the
// first Region, of a link nobody asked for, is saved and answered (no
// invalidation: no mark said an edge held it); the first Region then
// fails, and the edge's redirect fails over to the second Region, whose
// replica has not got the delete yet. That Region's answer is the old
// redirect, which no invalidation will ever remove: it must not get a long
// edge life. Once the replica has the delete and that short life has run
// out, the edge answers 410.
func TestLaggingReplicaKeepsNoStaleRedirect(t *testing.T) {
	const lag = 8 * time.Second // SHORTENER_INVALIDATION_SETTLE is 2s
	links := testenv.UniqueName(t, "links")
	r := startRegions(t, map[string]string{
		"LINKS_TABLE":                       links,
		"SHORTENER_LOCAL_REPLICATION_DELAY": lag.String(),
		"SHORTENER_CACHE_TTL":               "5s",
	})
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	failover := dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: links + "-" + threeRegions[1], ConsistentReads: true})
	// An old link, written in the first Region and replicated to the
	// others as any write is.
	createOldLinks(t, links, "lagged0")
	r.waitRegions(t, func(s regionsState) bool { return s.Replication.Applied >= 2 })
	_, err := failover.Get(context.Background(), "lagged0")
	require.NoError(t, err, "replicated to %s", threeRegions[1])

	status, _, body := r.do(t, "DELETE", "/v1/links/lagged0", r.key, "")
	require.Equal(t, http.StatusNoContent, status, string(body))
	status, _, body = r.do(t, "POST", regionsPath+"/"+threeRegions[0]+"/stop", "", "")
	require.Equal(t, http.StatusNoContent, status, string(body))

	status, h, _ := r.do(t, "GET", "/lagged0", "", "")
	l, err := failover.Get(context.Background(), "lagged0")
	require.NoError(t, err)
	require.Equal(t, link.StatusActive, l.Status, "the race needs the second Region's replica still without the delete")
	require.Equal(t, http.StatusFound, status, "answered by %s from its lagging replica", threeRegions[1])
	maxAge := sMaxAge(t, h.Get("Cache-Control"))
	assert.LessOrEqual(t, maxAge, 5, "an answer the replica's lag made stale, sent after the marks were read: %q", h.Get("Cache-Control"))

	// The replica gets the delete; then the stale answer's own edge life
	// runs out, and nothing but the tombstone is left to serve.
	deadline := time.Now().Add(time.Minute)
	for l.Status == link.StatusActive {
		require.True(t, time.Now().Before(deadline), "the delete never reached %s: %+v", threeRegions[1], r.regions(t).Replication)
		time.Sleep(50 * time.Millisecond)
		l, err = failover.Get(context.Background(), "lagged0")
		require.NoError(t, err)
	}
	if maxAge <= 5 {
		time.Sleep(time.Duration(maxAge)*time.Second + time.Second)
	}
	status, h, _ = r.do(t, "GET", "/lagged0", "", "")
	assert.Equal(t, http.StatusGone, status, "%s %s", h.Get("X-Cache"), h.Get("Location"))
}

// sMaxAge is the s-maxage of a Cache-Control value; 0 without one.
func sMaxAge(t *testing.T, cc string) int {
	t.Helper()
	for d := range strings.SplitSeq(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "s-maxage="); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err, cc)
			return n
		}
	}
	return 0
}
