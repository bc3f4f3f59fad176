package localedge

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// authOrigin records the headers each origin request carried, by path.
type authOrigin struct {
	mu   sync.Mutex
	seen map[string]http.Header
}

func (o *authOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	if o.seen == nil {
		o.seen = map[string]http.Header{}
	}
	o.seen[r.URL.Path] = r.Header.Clone()
	o.mu.Unlock()
	if r.URL.Path == "/abc1234" {
		w.Header().Set("Cache-Control", "public, s-maxage=300")
		w.Header().Set("Location", "https://example.com/")
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

func (o *authOrigin) header(path string) (http.Header, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h, ok := o.seen[path]
	return h, ok
}

// TestAuthorizationReachesTheAPI: a signed-in user's Bearer token goes
// through the /v1 behaviour to the API, as the managed
// AllViewerExceptHostHeader origin request policy passes it on a
// behaviour that caches nothing; a cached redirect behaviour never sends
// it to its origin (its policies list no Authorization, and the viewer's
// token must not decide a shared cache entry).
func TestAuthorizationReachesTheAPI(t *testing.T) {
	o := &authOrigin{}
	f := newFixture(t, Options{Origin: o})

	resp := f.do(http.MethodGet, "/v1/links", "Authorization", "Bearer eyJ.e30.sig", "X-Api-Key", "k")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	h, ok := o.header("/v1/links")
	require.True(t, ok, "the API was asked")
	assert.Equal(t, "Bearer eyJ.e30.sig", h.Get("Authorization"), "the token reaches the API")
	assert.Equal(t, "k", h.Get("X-Api-Key"), "so does an API key")

	require.Equal(t, http.StatusFound, f.do(http.MethodGet, "/abc1234", "Authorization", "Bearer eyJ.e30.sig").StatusCode)
	h, ok = o.header("/abc1234")
	require.True(t, ok)
	assert.Empty(t, h.Values("Authorization"), "a redirect's origin never sees a token")
}

// TestViewerCloudFrontHeadersAreDropped: CloudFront-* headers are
// CloudFront's to write; a viewer's own never reach an origin, even
// through a policy that passes every viewer header.
func TestViewerCloudFrontHeadersAreDropped(t *testing.T) {
	o := &authOrigin{}
	f := newFixture(t, Options{Origin: o})
	f.do(http.MethodGet, "/v1/links", "CloudFront-Viewer-City", "Nowhere", "CloudFront-Forwarded-Proto", "gopher", "Accept", "application/json")
	h, ok := o.header("/v1/links")
	require.True(t, ok)
	assert.Empty(t, h.Values("CloudFront-Viewer-City"), "the viewer's own is never passed on")
	assert.Empty(t, h.Values("CloudFront-Forwarded-Proto"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.Empty(t, h.Values("Host"), "the viewer's Host is not a header here")
}

// TestAPolicyListingAuthorizationIsRefused: CloudFront refuses an origin
// request policy of our own that lists Authorization (HTTP 400), so the
// local edge refuses to start on one.
func TestAPolicyListingAuthorizationIsRefused(t *testing.T) {
	for _, name := range []string{"Authorization", "authorization"} {
		d := edgespec.Distribution(edgespec.Options{})
		for i := range d.Behaviors {
			if d.Behaviors[i].PathPattern == edgespec.ManagementPathPattern {
				d.Behaviors[i].OriginRequestPolicy = &edgespec.OriginRequestPolicy{
					Name:         "ApiRequests",
					Headers:      edgespec.KeyValues{Behavior: edgespec.KeyAllowList, Names: []string{"x-api-key", name}},
					Cookies:      edgespec.None,
					QueryStrings: edgespec.KeyValues{Behavior: edgespec.KeyAll},
				}
			}
		}
		_, err := New(Options{Origin: &authOrigin{}, Distribution: &d})
		assert.ErrorIs(t, err, ErrUnmodelled, name)
	}
}
