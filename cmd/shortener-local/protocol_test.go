package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
)

// TestHTTPClickCountsOnce is the regression test, end to end: a viewer
// that follows a short URL over http gets the edge's 301 to https, then
// the link's redirect over https, and the click counts once; a code that
// does not exist gets the same 301 and no click.
func TestHTTPClickCountsOnce(t *testing.T) {
	analytics := testenv.UniqueName(t, "analytics")
	r := startLocal(t, map[string]string{"ANALYTICS_TABLE": analytics, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	code := r.create(t, "https://example.com/http-once")
	canary := r.create(t, "https://example.com/canary")

	// follow plays a viewer that starts over http: the edge's 301, then
	// the request again over https (here: without the http header).
	follow := func(method, path string) (int, http.Header) {
		t.Helper()
		status, h, _ := r.do(t, method, path, "", "", "User-Agent", browserAgent, localedge.ViewerProtocolHeader, "http")
		require.Equal(t, 301, status, "%s %s over http", method, path)
		assert.Equal(t, "Redirect from cloudfront", h.Get("X-Cache"))
		loc, err := url.Parse(h.Get("Location"))
		require.NoError(t, err)
		require.Equal(t, "https", loc.Scheme)
		require.Equal(t, path, loc.RequestURI())
		status, h, _ = r.do(t, method, loc.RequestURI(), "", "", "User-Agent", browserAgent)
		return status, h
	}
	status, _ := follow("GET", "/zzzzzzz")
	assert.Equal(t, 404, status, "no such code")
	status, h := follow("GET", "/"+code)
	assert.Equal(t, 302, status)
	assert.Equal(t, "https://example.com/http-once", h.Get("Location"))
	status, _ = follow("HEAD", "/"+code)
	assert.Equal(t, 302, status)

	// Canaries on another link spread over both shards of the stream:
	// once they are all counted, so is everything logged before them.
	const canaries = 24
	for range canaries {
		status, _, _ := r.do(t, "GET", "/"+canary, "", "", "User-Agent", browserAgent)
		require.Equal(t, 302, status)
	}
	require.Eventually(t, func() bool { return r.totals(t, canary).Total == canaries },
		60*time.Second, 100*time.Millisecond, "the canaries are counted")

	got := r.totals(t, code)
	assert.Equal(t, int64(2), got.Total, "the GET and the HEAD, each once: %+v", got)
	assert.Equal(t, int64(1), got.Human)
	assert.Equal(t, int64(1), got.Bot, "the HEAD")
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	points, err := dynamo.NewClickStore(db, dynamo.ClickConfig{Table: analytics}).Series(context.Background(), "zzzzzzz",
		clickstore.Day, time.Now().Add(-48*time.Hour), time.Now().Add(48*time.Hour))
	require.NoError(t, err)
	assert.Empty(t, points, "no clicks for a code that does not exist")

	st := r.edgeCounters(t)
	assert.Equal(t, int64(3), st.ToHTTPS)
	assert.Equal(t, int64(2+canaries), st.Redirects)
	assert.Zero(t, st.Dropped)
}

// create makes a link and returns its code.
func (r *localRun) create(t *testing.T, target string) string {
	t.Helper()
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"`+target+`"}`)
	require.Equal(t, 201, status, string(body))
	var c created
	require.NoError(t, json.Unmarshal(body, &c))
	return c.Code
}

// totals reads a link's click totals from the stats API.
func (r *localRun) totals(t *testing.T, code string) clickstore.Counts {
	t.Helper()
	status, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
	require.Equal(t, 200, status, string(body))
	var s statsBody
	require.NoError(t, json.Unmarshal(body, &s), string(body))
	return clickstore.Counts{Total: s.Totals.Total, Human: s.Totals.Human, Bot: s.Totals.Bot}
}

func TestEdgeStatsEndpoint(t *testing.T) {
	stats := localedge.Stats{Hits: 5, Misses: 2, Records: 6, Dropped: 1, Redirects: 7, ToHTTPS: 3, StoreKeys: 4}
	h := edgeStats(func() localedge.Stats { return stats })

	serve := func(method string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, edgeStatsPath, nil))
		return w
	}

	get, post := serve("GET"), serve("POST")

	assert.Equal(t, 200, get.Code)
	assert.Equal(t, "application/json", get.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"hits":5,"misses":2,"purged":0,"records":6,"dropped":1,"entries":0,"redirects":7,"to_https":3,"invalidation_paths":0,"invalidations":0,"store_keys":4}`, get.Body.String())
	assert.Equal(t, 405, post.Code)
}

func TestCostsEndpoint(t *testing.T) {
	var c costs
	c.logged(clicklog.Record{Status: 302, Method: "GET", Host: "s.example", URI: "/abc"})
	serve := func(method string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest(method, costsPath, nil))
		return w
	}
	get, post := serve("GET"), serve("POST")
	require.Equal(t, 200, get.Code)
	assert.Equal(t, "application/json", get.Header().Get("Content-Type"))
	var r costsReport
	require.NoError(t, json.Unmarshal(get.Body.Bytes(), &r))
	assert.Equal(t, int64(1), r.Records)
	assert.Equal(t, int64(len(clicklog.Format(clicklog.Record{Status: 302, Method: "GET", Host: "s.example", URI: "/abc"}))), r.RecordBytes)
	assert.Empty(t, r.Functions, "no function built yet")
	assert.Equal(t, 405, post.Code)
}
