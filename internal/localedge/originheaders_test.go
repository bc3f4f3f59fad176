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
// that name; /v1 goes to another origin and gets none, and its origin
// request policy does not forward the viewer's.
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
	assert.Equal(t, []string{"viewer-guess"}, o.values("/v1/links"),
		"/v1 is another origin, with no custom header: AllViewerExceptHostHeader passes the viewer's own, which the API reads nowhere")
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
	assert.Equal(t, []string{"192.0.2.80:40003"}, o.seen["/v1/links"],
		"the /v1 behaviour's managed AllViewerExceptHostHeader adds CloudFront's, never the viewer's")
}

// TestViewerHeadersAtTheOrigin: the origin gets exactly the headers the
// deployed origin request policy forwards: the device type headers the
// edge derives from the User-Agent (whatever the viewer sent in their
// name), the viewer's country (sent by a test, else the edge's), and
// Accept-Language, User-Agent and Content-Type, and the viewer's address
// (never CloudFront-Is-SmartTV-Viewer: the policy leaves it out); no cookie, no other
// viewer header, no query.
func TestViewerHeadersAtTheOrigin(t *testing.T) {
	const iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	f := newFixture(t, Options{Country: "FR"})
	f.do(http.MethodGet, "/abc1234?utm=x", "User-Agent", iPhone, "Accept-Language", "de-DE", "Cookie", "a=b",
		"X-Custom", "1", "CloudFront-Is-Desktop-Viewer", "true", "CloudFront-Viewer-Country", "DE")
	r := f.origin.last()
	assert.Equal(t, http.Header{
		"User-Agent":                   {iPhone},
		"Accept-Language":              {"de-DE"},
		"Cloudfront-Viewer-Country":    {"DE"},
		"Cloudfront-Is-Mobile-Viewer":  {"true"},
		"Cloudfront-Is-Tablet-Viewer":  {"false"},
		"Cloudfront-Is-Desktop-Viewer": {"false"},
		"Cloudfront-Viewer-Address":    {"192.0.2.77:40000"},
		"Cloudfront-Is-Ios-Viewer":     {"true"},
		"Cloudfront-Is-Android-Viewer": {"false"},
	}, r.Header)
	assert.Equal(t, "utm=x", r.URL.RawQuery, "the query goes along, outside the cache key")

	f.do(http.MethodPost, "/unlock/abc1234", "Content-Type", "application/x-www-form-urlencoded", "User-Agent", "x")
	r = f.origin.last()
	assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
	assert.Equal(t, "FR", r.Header.Get("CloudFront-Viewer-Country"), "the edge's own country when the viewer sent none")
	assert.Equal(t, "true", r.Header.Get("CloudFront-Is-Desktop-Viewer"))
}

// TestNoStoreAnswersAndTheirContentType: an answer marked no-store is
// never served to another viewer, and the record of each carries the
// answer's Content-Type (sc-content-type), where a decided redirect names
// its destination.
func TestNoStoreAnswersAndTheirContentType(t *testing.T) {
	var n int
	var mu sync.Mutex
	o := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		dest := "rule-0"
		if r.Header.Get("CloudFront-Viewer-Country") == "FR" {
			dest = "default"
		}
		mu.Unlock()
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8; destination="+dest)
		w.Header().Set("Location", "https://example.com/"+dest)
		w.WriteHeader(http.StatusFound)
	})
	f := newFixture(t, Options{Origin: o})
	for _, c := range []string{"DE", "FR", "DE", "FR"} {
		resp := f.do(http.MethodGet, "/geo1234", "CloudFront-Viewer-Country", c)
		want := map[string]string{"DE": "https://example.com/rule-0", "FR": "https://example.com/default"}[c]
		assert.Equal(t, want, resp.Header.Get("Location"), c)
		assert.Equal(t, "Miss from cloudfront", resp.Header.Get("X-Cache"))
	}
	assert.Equal(t, 4, n, "nothing cached")
	recs := f.flushed(t)
	require.Len(t, recs, 4)
	assert.Equal(t, "text/plain; charset=utf-8; destination=rule-0", recs[0].ContentType)
	assert.Equal(t, "text/plain; charset=utf-8; destination=default", recs[1].ContentType)
}
