package localedge

import (
	"net/http"
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
