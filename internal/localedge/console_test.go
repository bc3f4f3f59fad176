package localedge

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestConsoleServesTheBuildWithItsHeaders: the console's behaviours as
// the description has them, through the edge in front of the bucket: the
// rewrite function, S3's answers, the console's response headers policies
// on every answer from the bucket (not on the function's 301 nor on
// CloudFront's own 403).
func TestConsoleServesTheBuildWithItsHeaders(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>c</title>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "assets", "app-ABC123.js"), []byte("console.log(1)"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("outside"), 0o644))
	h, err := New(Options{Origin: newOrigin(), ConsoleOrigin: Bucket(dir), Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(t.Context()) })

	tests := []struct {
		name, method, path string
		status             int
		cacheControl       string
		contentType        string
		body               string
		location           string
		policy             bool
	}{
		{"index", "GET", "/console/", 200, console.HTMLCacheControl, "text/html; charset=utf-8", "<!doctype html><title>c</title>", "", true},
		{"index by name", "GET", "/console/index.html", 200, console.HTMLCacheControl, "text/html; charset=utf-8", "<!doctype html><title>c</title>", "", true},
		{"no slash", "GET", "/console", 301, "no-store", "", "", "/console/", false},
		{"hashed asset", "GET", "/console/assets/app-ABC123.js", 200, console.AssetCacheControl, "text/javascript; charset=utf-8", "console.log(1)", "", true},
		{"head", "HEAD", "/console/assets/app-ABC123.js", 200, console.AssetCacheControl, "text/javascript; charset=utf-8", "", "", true},
		{"missing key is S3's 403", "GET", "/console/assets/nope.js", 403, "", "application/xml", "", "", true},
		{"folder", "GET", "/console/assets/", 403, "", "application/xml", "", "", true},
		{"climbing out", "GET", "/console/../secret.txt", 403, "", "application/xml", "", "", true},
		{"post", "POST", "/console/", 403, "", "text/html", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "http://127.0.0.1:8080/", nil)
			req.URL.Path = tt.path
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code)
			if tt.policy {
				assert.Equal(t, console.ContentSecurityPolicy, rec.Header().Get("Content-Security-Policy"))
				assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
				assert.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"))
				assert.Equal(t, "no-referrer", rec.Header().Get("Referrer-Policy"))
			}
			if tt.cacheControl != "" {
				assert.Equal(t, tt.cacheControl, rec.Header().Get("Cache-Control"))
			}
			if tt.contentType != "" {
				assert.Contains(t, rec.Header().Get("Content-Type"), tt.contentType)
			}
			if tt.body != "" {
				assert.Equal(t, tt.body, rec.Body.String())
			}
			if tt.location != "" {
				assert.Equal(t, tt.location, rec.Header().Get("Location"))
			}
			assert.Empty(t, rec.Header().Get("Last-Modified"), "the HTML must be fetched whole every time")
		})
	}
}

func TestConsoleNotBuiltSaysHow(t *testing.T) {
	rec := httptest.NewRecorder()
	Bucket(filepath.Join(t.TempDir(), "missing")).ServeHTTP(rec, httptest.NewRequest("GET", "/console/", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Contains(t, rec.Body.String(), "make dev")
}

func TestConsolePolicyHasNoInlineScript(t *testing.T) {
	csp := console.ContentSecurityPolicy
	assert.Contains(t, csp, "script-src 'self';")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, csp, "unsafe-eval")
	assert.Contains(t, csp, "frame-ancestors 'none'")
}

// TestConsoleConfigBesideTheBuild: a file the deployment writes beside
// the build (config.json) is served like the HTML, never cached, with the
// CSP of the description the edge plays, here one with sign-in whose token
// endpoint is on another origin.
func TestConsoleConfigBesideTheBuild(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>c</title>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, console.ConfigKey), []byte(`{"stale":true}`), 0o644))
	const idp = "https://p.auth.eu-west-1.amazoncognito.com"
	d := edgespec.Distribution(edgespec.Options{Console: true, ConsoleTokenOrigin: idp})
	cfg := console.Config{Auth: console.HostedAuth(idp, "iss", "client", "https://sho.rt/console/")}
	h, err := New(Options{Origin: newOrigin(), Distribution: &d, Log: slog.New(slog.DiscardHandler),
		ConsoleOrigin: BucketWith(dir, map[string][]byte{console.ConfigKey: cfg.JSON()})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(t.Context()) })

	for _, tt := range []struct{ path, body, contentType string }{
		{"/console/config.json", string(cfg.JSON()), "application/json"},
		{"/console/", "<!doctype html><title>c</title>", "text/html; charset=utf-8"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://sho.rt"+tt.path, nil))
		assert.Equal(t, http.StatusOK, rec.Code, tt.path)
		assert.Equal(t, tt.body, rec.Body.String(), tt.path)
		assert.Equal(t, tt.contentType, rec.Header().Get("Content-Type"), tt.path)
		assert.Equal(t, console.HTMLCacheControl, rec.Header().Get("Cache-Control"), tt.path)
		assert.Equal(t, console.CSP(idp), rec.Header().Get("Content-Security-Policy"), tt.path)
	}
}
