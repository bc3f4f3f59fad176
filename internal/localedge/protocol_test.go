package localedge

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// TestHTTPViewersAreSentToHTTPS: the redirect behaviour's
// ViewerProtocolPolicy is redirect-to-https, so CloudFront answers an http
// viewer itself with a 301 to https, for any path, and logs it with result
// type Redirect; the viewer's request over https is the click.
func TestHTTPViewersAreSentToHTTPS(t *testing.T) {
	f := newFixture(t, Options{Country: "DE"})
	const ua = "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0"

	over := f.do("GET", "/Ab3dE5g?utm_source=mail", "User-Agent", ua, ViewerProtocolHeader, "http")
	head := f.do("HEAD", "/Ab3dE5g", "User-Agent", ua, ViewerProtocolHeader, "http")
	unknown := f.do("GET", "/zzzzzzz", "User-Agent", ua, ViewerProtocolHeader, "http")
	again := f.do("GET", "/Ab3dE5g?utm_source=mail", "User-Agent", ua)
	hit := f.do("GET", "/Ab3dE5g", "User-Agent", ua, ViewerProtocolHeader, "https")

	assert.Equal(t, 301, over.StatusCode)
	assert.Equal(t, "https://sho.rt/Ab3dE5g?utm_source=mail", over.Header.Get("Location"))
	assert.Equal(t, "Redirect from cloudfront", over.Header.Get("X-Cache"))
	assert.Equal(t, "CloudFront", over.Header.Get("Server"))
	assert.NotEmpty(t, over.Header.Get("X-Amz-Cf-Id"))
	assert.Contains(t, body(t, over), "301 Moved Permanently")
	assert.Equal(t, 301, head.StatusCode)
	assert.Equal(t, "https://sho.rt/Ab3dE5g", head.Header.Get("Location"))
	assert.Empty(t, body(t, head))
	assert.Equal(t, 301, unknown.StatusCode, "CloudFront does not ask the origin whether the code exists")
	assert.Equal(t, "https://sho.rt/zzzzzzz", unknown.Header.Get("Location"))
	assert.Equal(t, 302, again.StatusCode)
	assert.Equal(t, "Miss from cloudfront", again.Header.Get("X-Cache"))
	assert.Equal(t, 302, hit.StatusCode)
	assert.Equal(t, "Hit from cloudfront", hit.Header.Get("X-Cache"))
	assert.Equal(t, 1, f.origin.count("/Ab3dE5g"), "the 301s never reach the origin")
	assert.Equal(t, 0, f.origin.count("/zzzzzzz"))
	st := f.edge.Stats()
	assert.Equal(t, int64(3), st.ToHTTPS)
	assert.Equal(t, int64(2), st.Redirects)

	recs := f.flushed(t)
	require.Len(t, recs, 5, "CloudFront logs its own 301s too")
	wants := []struct {
		status int
		method string
		uri    string
		result string
		click  bool
	}{
		{301, "GET", "/Ab3dE5g?utm_source=mail", ResultRedirect, false},
		{301, "HEAD", "/Ab3dE5g", ResultRedirect, false},
		{301, "GET", "/zzzzzzz", ResultRedirect, false},
		{302, "GET", "/Ab3dE5g?utm_source=mail", ResultMiss, true},
		{302, "GET", "/Ab3dE5g", ResultHit, true},
	}
	for i, w := range wants {
		r := recs[i]
		assert.Equal(t, w.status, r.Status, "record %d", i)
		assert.Equal(t, w.method, r.Method, "record %d", i)
		assert.Equal(t, w.uri, r.URI, "record %d", i)
		assert.Equal(t, w.result, r.ResultType, "record %d", i)
		assert.Equal(t, w.result, r.ResponseResultType, "record %d", i)
		back, err := clicklog.Parse(clicklog.Format(r))
		require.NoError(t, err)
		_, click := clicklog.Classify(&back)
		assert.Equal(t, w.click, click, "record %d: the clicks function counts the https requests only", i)
	}
}

func TestViewerProtocolHeader(t *testing.T) {
	tests := []struct {
		value string
		http  bool
	}{
		{value: "", http: false},
		{value: "https", http: false},
		{value: "http", http: true},
		{value: "HTTP", http: true},
		{value: "http, https", http: true}, // the viewer's hop comes first
		{value: "https, http", http: false},
		{value: " http ", http: true},
		{value: "ws", http: false},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			f := newFixture(t, Options{})

			resp := f.do("GET", "/Ab3dE5g", ViewerProtocolHeader, tt.value)

			if tt.http {
				assert.Equal(t, 301, resp.StatusCode)
			} else {
				assert.Equal(t, 302, resp.StatusCode)
			}
		})
	}
}

// TestAPIIsHTTPSOnly: the /v1/* behaviour's ViewerProtocolPolicy is
// https-only, for which CloudFront answers an http viewer 403.
func TestAPIIsHTTPSOnly(t *testing.T) {
	f := newFixture(t, Options{})

	refused := f.do("POST", "/v1/links", ViewerProtocolHeader, "http")
	passed := f.do("POST", "/v1/links")

	assert.Equal(t, 403, refused.StatusCode)
	assert.Equal(t, "Error from cloudfront", refused.Header.Get("X-Cache"))
	assert.Contains(t, body(t, refused), "only accepts HTTPS")
	assert.Equal(t, 302, passed.StatusCode, "the fake origin's answer")
	assert.Equal(t, 1, f.origin.count("/v1/links"), "only the https request reached the origin")
	assert.Empty(t, f.flushed(t), "the /v1 behaviour has no real-time log")
}

// logBuffer collects an slog JSON handler's lines.
type logBuffer struct{ logtest.Buffer }

// lines returns the lines whose msg contains msg, decoded.
func (b *logBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range b.Lines(t) {
		if s, _ := m["msg"].(string); strings.Contains(s, msg) {
			out = append(out, m)
		}
	}
	return out
}

const droppedWhileRunning = "real-time log records dropped, the sink falls behind"

// TestDropsAreReportedWhileRunning: records the edge drops because its
// sink fell behind are logged while it runs, with their count, not only at
// shutdown, and counted in Stats.
func TestDropsAreReportedWhileRunning(t *testing.T) {
	var logs logBuffer
	s := &sink{block: make(chan struct{})}
	f := newFixture(t, Options{Sink: s, LogBuffer: 2, DropReportEvery: 20 * time.Millisecond,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	for range 30 {
		require.Equal(t, 302, f.do("GET", "/stuck01").StatusCode)
	}
	dropped := f.edge.Stats().Dropped
	require.Positive(t, dropped)

	var lines []map[string]any
	require.Eventually(t, func() bool {
		lines = logs.lines(t, droppedWhileRunning)
		return len(lines) > 0 && lines[len(lines)-1]["dropped_total"] == float64(dropped)
	}, 10*time.Second, 10*time.Millisecond, "a warning with the count while the sink is still stuck")
	var sum float64
	for _, l := range lines {
		assert.Equal(t, "WARN", l["level"])
		sum += l["dropped"].(float64)
	}
	assert.Equal(t, float64(dropped), sum, "each line counts the drops since the one before")

	close(s.block)
	require.NoError(t, f.edge.Close(context.Background()))
	final := logs.lines(t, "dropped in all")
	require.Len(t, final, 1)
	assert.Equal(t, float64(dropped), final[0]["dropped_total"])
	st := f.edge.Stats()
	assert.Equal(t, int64(30), st.Records+st.Dropped)
}

// TestDropsAreNotLoggedOneByOne: the warning comes at most once an
// interval, however many records are dropped.
func TestDropsAreNotLoggedOneByOne(t *testing.T) {
	var logs logBuffer
	s := &sink{block: make(chan struct{})}
	f := newFixture(t, Options{Sink: s, LogBuffer: 2, DropReportEvery: time.Hour,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	for range 30 {
		f.do("GET", "/stuck01")
	}

	require.Positive(t, f.edge.Stats().Dropped)
	assert.Empty(t, logs.lines(t, "dropped"), "no line before the first interval has passed")
	close(s.block)
	require.NoError(t, f.edge.Close(context.Background()))
	assert.Len(t, logs.lines(t, "dropped"), 1, "the total at shutdown")
}
