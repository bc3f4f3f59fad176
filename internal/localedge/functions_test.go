package localedge

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
)

// withFunction replaces the edge's viewer-request function by src.
func withFunction(t *testing.T, f *fixture, src string) {
	t.Helper()
	fn, err := cloudfrontjs.Compile("test", src, cloudfrontjs.WithBudget(50*time.Millisecond))
	require.NoError(t, err)
	f.edge.defaultBehavior.function = fn
}

// TestViewerRequestFunctionRunsTheDeployedSource: the edge runs the
// canonical-path JavaScript itself, HEAD included, and only on the
// redirect behaviour, as infra associates it.
func TestViewerRequestFunctionRunsTheDeployedSource(t *testing.T) {
	f := newFixture(t, Options{})
	require.NotNil(t, f.edge.defaultBehavior.function)
	assert.Equal(t, "canonical-path", f.edge.defaultBehavior.function.Name())

	get := f.do("GET", "/%61bc1234")
	assert.Equal(t, http.StatusBadRequest, get.StatusCode)
	assert.Equal(t, "no-store", get.Header.Get("Cache-Control"), "the function's own headers")
	assert.Equal(t, "text/plain", get.Header.Get("Content-Type"))
	head := f.do("HEAD", "/%61bc1234")
	assert.Equal(t, http.StatusBadRequest, head.StatusCode)
	assert.Empty(t, body(t, head))

	unlock := f.do("POST", "/unlock/%61bc1234")
	assert.NotEqual(t, http.StatusBadRequest, unlock.StatusCode, "the password forms' behaviour has no function")
	api := f.do("GET", "/v1/links/%61")
	assert.NotEqual(t, http.StatusBadRequest, api.StatusCode, "nor has /v1")
}

// TestViewerRequestFunctionFailures: a function that throws or runs away
// is CloudFront's 503, one whose result fails validation its 502; either
// is logged and reaches neither the cache nor the origin.
func TestViewerRequestFunctionFailures(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"throws", "function handler(event) { throw new Error('boom'); }", http.StatusServiceUnavailable},
		{"runs away", "function handler(event) { while (true) {} }", http.StatusServiceUnavailable},
		{"sets a disallowed header", "function handler(event) { event.request.headers['x-cache'] = { value: 'Hit' }; return event.request; }", http.StatusBadGateway},
		{"changes the method", "function handler(event) { event.request.method = 'DELETE'; return event.request; }", http.StatusBadGateway},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			withFunction(t, f, tt.src)
			resp := f.do("GET", "/abc1234")
			assert.Equal(t, tt.want, resp.StatusCode)
			assert.Equal(t, "Error from cloudfront", resp.Header.Get("X-Cache"))
			assert.Contains(t, body(t, resp), "The request could not be satisfied.")
			assert.Zero(t, f.origin.count("/abc1234"))
			recs := f.flushed(t)
			require.Len(t, recs, 1)
			assert.Equal(t, tt.want, recs[0].Status)
			assert.Equal(t, ResultError, recs[0].ResultType)
		})
	}
}

// TestViewerRequestFunctionChangesTheRequest: what the function changes
// is what the cache keys on and the origin gets; a generated answer
// below 400 is logged as FunctionGeneratedResponse and never cached.
func TestViewerRequestFunctionChangesTheRequest(t *testing.T) {
	f := newFixture(t, Options{})
	withFunction(t, f, `function handler(event) {
  const r = event.request;
  if (r.uri === '/moved01') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: 'https://example.com/new' } } };
  }
  if (r.uri === '/tounlock') {
    r.uri = '/unlock/abc1234';
    return r;
  }
  r.uri = r.uri.toLowerCase();
  r.headers['x-variant'] = { value: 'b' };
  return r;
}`)
	resp := f.do("GET", "/ABC1234")
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "https://example.com/abc1234", resp.Header.Get("Location"))
	assert.Equal(t, 1, f.origin.count("/abc1234"))
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/Abc1234").Header.Get("X-Cache"), "cached under the function's uri")

	for range 2 {
		moved := f.do("GET", "/moved01")
		assert.Equal(t, http.StatusMovedPermanently, moved.StatusCode)
		assert.Equal(t, "https://example.com/new", moved.Header.Get("Location"))
		assert.Equal(t, ResultFunctionGeneratedResponse+" from cloudfront", moved.Header.Get("X-Cache"))
	}
	assert.Zero(t, f.origin.count("/moved01"))
	post := f.do("POST", "/tounlock")
	assert.Equal(t, http.StatusForbidden, post.StatusCode, "the behaviour was chosen before the function rewrote the path")
	recs := f.flushed(t)
	require.Len(t, recs, 5)
	assert.Equal(t, ResultFunctionGeneratedResponse, recs[3].ResultType)
	assert.Equal(t, 301, recs[3].Status)
}

// BenchmarkEdgeHitNoFunction is BenchmarkEdgeHit with the viewer-request
// and viewer-response functions taken out: the ratio of the two is what
// running the deployed JavaScript on every redirect costs.
//
//	go test -run '^$' -bench 'EdgeHit' -benchmem ./internal/localedge/
func BenchmarkEdgeHitNoFunction(b *testing.B) {
	e, err := New(Options{Origin: newOrigin(), Sink: discardSink{}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	e.defaultBehavior.function, e.defaultBehavior.response = nil, nil
	reqs := benchRequests(benchCodes)
	for _, r := range reqs {
		w := &benchWriter{h: make(http.Header)}
		e.ServeHTTP(w, r)
	}
	serveParallel(b, e, reqs)
}
