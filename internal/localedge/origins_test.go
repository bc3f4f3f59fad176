package localedge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// named answers with its name and the status a path asks for (/s503).
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusFound
		if s, ok := strings.CutPrefix(r.URL.Path, "/s"); ok {
			status = map[string]int{"404": 404, "500": 500, "502": 502, "503": 503, "504": 504, "429": 429}[s]
		}
		w.Header().Set("X-Origin", name)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, name+" "+r.Method)
	})
}

func TestOriginGroup(t *testing.T) {
	g := OriginGroup(named("primary"), named("secondary"))
	tests := []struct {
		method, path string
		want         string
		wantStatus   int
	}{
		{http.MethodGet, "/abc", "primary", http.StatusFound},
		{http.MethodGet, "/s404", "primary", http.StatusNotFound},
		{http.MethodGet, "/s429", "primary", http.StatusTooManyRequests},
		{http.MethodGet, "/s500", "secondary", http.StatusInternalServerError},
		{http.MethodGet, "/s502", "secondary", http.StatusBadGateway},
		{http.MethodHead, "/s503", "secondary", http.StatusServiceUnavailable},
		{http.MethodOptions, "/s504", "secondary", http.StatusGatewayTimeout},
		{http.MethodPost, "/s503", "primary", http.StatusServiceUnavailable},
		{http.MethodDelete, "/s502", "primary", http.StatusBadGateway},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			assert.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.want, rec.Header().Get("X-Origin"))
			assert.Equal(t, tt.want+" "+tt.method, rec.Body.String())
		})
	}
}

// TestHTTPOrigin: the request reaches the origin with its path as sent,
// its Host and X-Forwarded-Proto; an origin nobody listens on is the
// viewer's 502, which the origin group fails over.
func TestHTTPOrigin(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "made")
	}))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	o := HTTPOrigin(u)

	req := httptest.NewRequest(http.MethodPost, "http://edge.example/v1/links/a%2Fb?x=1", strings.NewReader("{}"))
	req.Header.Set("X-Forwarded-Proto", "https")
	rec := httptest.NewRecorder()
	o.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusCreated, rec.Code)
	assert.Equal(t, "made", rec.Body.String())
	require.NotNil(t, got)
	assert.Equal(t, "/v1/links/a%2Fb", got.URL.EscapedPath())
	assert.Equal(t, "x=1", got.URL.RawQuery)
	assert.Equal(t, "edge.example", got.Host)
	assert.Equal(t, "https", got.Header.Get("X-Forwarded-Proto"))

	srv.Close()
	rec = httptest.NewRecorder()
	o.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/abc", nil))
	assert.Equal(t, http.StatusBadGateway, rec.Code)

	rec = httptest.NewRecorder()
	OriginGroup(o, named("secondary")).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/abc", nil))
	assert.Equal(t, http.StatusFound, rec.Code)
	assert.Equal(t, "secondary", rec.Header().Get("X-Origin"))
}
