package localedge

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestVisitorQueryIsMergedAfterTheCache: the deployed query-forward
// function runs on cache hits as on misses, so one cached redirect serves
// every visitor's query merged into its Location; the origin's
// X-Query-Forward never reaches the viewer, and each request is one log
// record with its own query, so each click is counted once.
func TestVisitorQueryIsMergedAfterTheCache(t *testing.T) {
	var calls atomic.Int64
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		h := w.Header()
		h.Set("Cache-Control", "public, max-age=0, s-maxage=60")
		switch r.URL.Path {
		case "/abc1234":
			h.Set("Location", "https://example.com/p?utm_source=dest#top")
		case "/vis1234":
			h.Set("Location", "https://example.com/p?utm_source=dest")
			h.Set(edgespec.QueryForwardHeader, edgespec.QueryForwardVisitor)
		case "/off1234":
			h.Set("Location", "https://example.com/p")
			h.Set(edgespec.QueryForwardHeader, edgespec.QueryForwardOff)
		default:
			h.Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusFound)
	})
	f := newFixture(t, Options{Origin: origin})
	tests := []struct {
		target, wantCache, wantLocation string
	}{
		{"/abc1234?utm_source=x&ref=y", "Miss from cloudfront", "https://example.com/p?utm_source=dest&ref=y#top"},
		{"/abc1234?ref=z&t=1&t=2", "Hit from cloudfront", "https://example.com/p?utm_source=dest&ref=z&t=1&t=2#top"},
		{"/abc1234", "Hit from cloudfront", "https://example.com/p?utm_source=dest#top"},
		{"/vis1234?utm_source=x", "Miss from cloudfront", "https://example.com/p?utm_source=x"},
		{"/vis1234?utm_source=y", "Hit from cloudfront", "https://example.com/p?utm_source=y"},
		{"/off1234?utm_source=x", "Miss from cloudfront", "https://example.com/p"},
		{"/off1234?utm_source=y", "Hit from cloudfront", "https://example.com/p"},
	}
	for _, tt := range tests {
		resp := f.do("GET", tt.target)
		assert.Equal(t, http.StatusFound, resp.StatusCode, tt.target)
		assert.Equal(t, tt.wantCache, resp.Header.Get("X-Cache"), tt.target)
		assert.Equal(t, tt.wantLocation, resp.Header.Get("Location"), tt.target)
		assert.Empty(t, resp.Header.Values(edgespec.QueryForwardHeader), tt.target)
		assert.NotEmpty(t, resp.Header.Get("X-Amz-Cf-Id"), "CloudFront's own headers stay: %s", tt.target)
	}
	assert.Equal(t, int64(3), calls.Load(), "one origin fetch per path")

	notFound := f.do("GET", "/nope123?utm_source=x")
	assert.Equal(t, http.StatusNotFound, notFound.StatusCode)
	assert.Empty(t, notFound.Header.Get("Location"))

	recs := f.flushed(t)
	require.Len(t, recs, len(tests)+1)
	clicks := map[string]int{}
	for i, tt := range tests {
		assert.Equal(t, tt.target, recs[i].URI, "the query is logged")
		c, ok := clicklog.Classify(&recs[i])
		require.True(t, ok, tt.target)
		clicks[c.Code]++
	}
	assert.Equal(t, map[string]int{"abc1234": 3, "vis1234": 2, "off1234": 2}, clicks, "each request one click")
}

// TestAFailingViewerResponseFunctionIsCloudFronts503: a viewer-response
// function that throws answers the viewer CloudFront's 503 with no body of
// the origin's, on a hit as on a miss, and the log records the 503.
func TestAFailingViewerResponseFunctionIsCloudFronts503(t *testing.T) {
	f := newFixture(t, Options{})
	fn, err := cloudfrontjs.Compile("throws", "function handler(event) { throw new Error('boom'); }")
	require.NoError(t, err)
	f.edge.defaultBehavior.response = fn
	for _, want := range []string{"miss", "hit"} {
		resp := f.do("GET", "/Ab3dE5g?utm_source=x")
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, want)
		assert.Equal(t, "Error from cloudfront", resp.Header.Get("X-Cache"), want)
		assert.Empty(t, resp.Header.Get("Location"), want)
		assert.Contains(t, body(t, resp), "FunctionExecutionError", want)
	}
	assert.Equal(t, 1, f.origin.count("/Ab3dE5g"), "the origin's answer was kept all the same")
	for _, r := range f.flushed(t) {
		assert.Equal(t, http.StatusServiceUnavailable, r.Status)
		assert.Equal(t, ResultError, r.ResultType)
	}
}

// TestUnlockMergesTheQueryThePasswordFormPosted: a protected link's form
// posts the visitor's query back in its action, and the unlock behaviour
// runs the same query-forward function on the 303 of the right password.
func TestUnlockMergesTheQueryThePasswordFormPosted(t *testing.T) {
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Location", "https://example.com/p?utm_source=dest")
		if r.URL.Query().Get("mode") == "visitor" {
			w.Header().Set(edgespec.QueryForwardHeader, edgespec.QueryForwardVisitor)
		}
		w.WriteHeader(http.StatusSeeOther)
	})
	f := newFixture(t, Options{Origin: origin})
	resp := f.do("POST", "/unlock/abc1234?utm_source=x&ref=y", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "https://example.com/p?utm_source=dest&ref=y", resp.Header.Get("Location"))
	resp = f.do("POST", "/unlock/abc1234?utm_source=x&mode=visitor", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, "https://example.com/p?mode=visitor&utm_source=x", resp.Header.Get("Location"))
	assert.Empty(t, resp.Header.Values(edgespec.QueryForwardHeader))
}
