package localedge

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// headerOrigin records the X-Origin-Verify each origin request carried.
type headerOrigin struct {
	mu   sync.Mutex
	seen map[string][]string // path -> values
}

func (o *headerOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	if o.seen == nil {
		o.seen = map[string][]string{}
	}
	o.seen[r.URL.Path] = append(o.seen[r.URL.Path], r.Header.Values("X-Origin-Verify")...)
	o.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusFound)
}

func (o *headerOrigin) values(path string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seen[path]
}

// TestRedirectOriginHeaders: the redirect behaviour adds the origin's
// custom headers to every origin request, over a viewer's own header of
// that name; /v1 goes to another origin and gets none.
func TestRedirectOriginHeaders(t *testing.T) {
	o := &headerOrigin{}
	f := newFixture(t, Options{Origin: o, RedirectOriginHeaders: map[string]string{"x-origin-verify": "edge-secret"}})

	require.Equal(t, http.StatusFound, f.do(http.MethodGet, "/abc1234").StatusCode)
	assert.Equal(t, []string{"edge-secret"}, o.values("/abc1234"))

	f.do(http.MethodHead, "/head123", "X-Origin-Verify", "viewer-guess")
	assert.Equal(t, []string{"edge-secret"}, o.values("/head123"), "the viewer's value is replaced")

	f.do(http.MethodGet, "/two/segments")
	assert.Equal(t, []string{"edge-secret"}, o.values("/two/segments"), "uncacheable redirect-behaviour paths too")

	f.do(http.MethodGet, "/v1/links", "X-Origin-Verify", "viewer-guess")
	assert.Equal(t, []string{"viewer-guess"}, o.values("/v1/links"), "/v1 is another origin, with no custom header")
}

// viewerOrigin records the CloudFront-Viewer-Address each origin request
// carried.
type viewerOrigin struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (o *viewerOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	if o.seen == nil {
		o.seen = map[string][]string{}
	}
	o.seen[r.URL.Path] = r.Header.Values(ViewerAddressHeader)
	o.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
}

// TestViewerAddressReachesTheRedirectOrigin: the redirect behaviour's
// origin requests carry the viewer's address and port as CloudFront
// writes them, whatever the viewer sent under that name; /v1 gets none
// from the edge.
func TestViewerAddressReachesTheRedirectOrigin(t *testing.T) {
	o := &viewerOrigin{}
	f := newFixture(t, Options{Origin: o})
	do := func(remote, path string, headers ...string) {
		r := httptest.NewRequest(http.MethodGet, "http://sho.rt"+path, nil)
		r.RemoteAddr = remote
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		f.edge.ServeHTTP(httptest.NewRecorder(), r)
	}
	do("192.0.2.77:40000", "/abc1234")
	do("[2001:db8::7]:443", "/def5678")
	do("192.0.2.78:40001", "/ghi9012", ViewerAddressHeader, "203.0.113.1:1")
	do("192.0.2.79:40002", "/two/segments")
	do("192.0.2.80:40003", "/v1/links", ViewerAddressHeader, "203.0.113.1:1")

	o.mu.Lock()
	defer o.mu.Unlock()
	assert.Equal(t, []string{"192.0.2.77:40000"}, o.seen["/abc1234"])
	assert.Equal(t, []string{"2001:db8::7:443"}, o.seen["/def5678"], "IPv6 unbracketed, as CloudFront writes it")
	assert.Equal(t, []string{"192.0.2.78:40001"}, o.seen["/ghi9012"], "a viewer cannot choose its address")
	assert.Equal(t, []string{"192.0.2.79:40002"}, o.seen["/two/segments"])
	assert.Equal(t, []string{"203.0.113.1:1"}, o.seen["/v1/links"], "the /v1 behaviour has its own origin request policy")
}
