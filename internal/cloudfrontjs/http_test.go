package cloudfrontjs

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestFromHTTP(t *testing.T) {
	r := httptest.NewRequest("GET", "https://sho.rt/%61bc?b=x%20y&a=1&a=3&flag", nil)
	r.Header.Set("User-Agent", "curl/8")
	r.Header.Set("Cookie", "s=1; t=\"q\"")
	r.Header.Add("Accept", "text/html")
	r.Header.Add("Accept", "*/*")
	got := RequestFromHTTP(r)
	assert.Equal(t, Request{
		Method: "GET",
		URI:    "/%61bc",
		Querystring: Values{
			"a":    {Value: "1", MultiValue: []Value{{Value: "1"}, {Value: "3"}}},
			"b":    {Value: "x%20y"},
			"flag": {Value: ""},
		},
		Headers: Values{
			"host":       {Value: "sho.rt"},
			"user-agent": {Value: "curl/8"},
			"accept":     {Value: "text/html", MultiValue: []Value{{Value: "text/html"}, {Value: "*/*"}}},
		},
		Cookies: Values{"s": {Value: "1"}, "t": {Value: `"q"`}},
	}, got)
}

func TestRequestFromHTTPIsUTF8(t *testing.T) {
	r := httptest.NewRequest("GET", "https://sho.rt/abc?q=\x80%80", nil)
	r.Header.Set("X-Bytes", "a\xffb")
	got := RequestFromHTTP(r)
	assert.Equal(t, "%80%80", got.Querystring["q"].Value, "a byte that is not UTF-8 is percent-encoded")
	assert.Equal(t, "a\uFFFDb", got.Headers["x-bytes"].Value)
}

func TestApplyRequest(t *testing.T) {
	r := httptest.NewRequest("GET", "https://sho.rt/abc?b=2&a=1", nil)
	r.Header.Set("X-Forwarded-Proto", "https")
	r.Header.Set("User-Agent", "curl/8")
	orig := RequestFromHTTP(r)

	same := ApplyRequest(r, &orig, &orig)
	assert.Equal(t, "b=2&a=1", same.URL.RawQuery, "an untouched query string keeps its order")
	assert.Equal(t, r.Header, same.Header)

	changed := RequestFromHTTP(r)
	changed.URI = "/x%2Fy"
	changed.Querystring = Values{"z": {Value: "1"}}
	changed.Headers["x-variant"] = Value{Value: "b"}
	delete(changed.Headers, "user-agent")
	changed.Cookies = Values{"c": {Value: "1"}}
	out := ApplyRequest(r, &orig, &changed)
	assert.Equal(t, "/x%2Fy", out.URL.EscapedPath())
	assert.Equal(t, "/x/y", out.URL.Path)
	assert.Equal(t, "z=1", out.URL.RawQuery)
	assert.Equal(t, "/x%2Fy?z=1", out.RequestURI)
	assert.Equal(t, "b", out.Header.Get("X-Variant"))
	assert.Empty(t, out.Header.Get("User-Agent"))
	assert.Equal(t, "https", out.Header.Get("X-Forwarded-Proto"), "the headers the function cannot see are kept")
	assert.Equal(t, "c=1", out.Header.Get("Cookie"))
	assert.Equal(t, "sho.rt", out.Host)
	assert.Equal(t, "/abc", r.URL.Path, "the viewer's request is not changed")
}

func TestResponseWriteTo(t *testing.T) {
	resp := &Response{
		StatusCode: 400,
		Headers:    Values{"content-type": {Value: "text/plain"}, "vary": {Value: "a", MultiValue: []Value{{Value: "a"}, {Value: "b"}}}},
		Cookies:    ResponseCookies{"s": {Value: "1", Attributes: "Path=/; Secure"}},
		Body:       &Body{Encoding: "text", Data: "no\n"},
	}
	for _, head := range []bool{false, true} {
		w := httptest.NewRecorder()
		resp.WriteTo(w, head)
		assert.Equal(t, 400, w.Code)
		assert.Equal(t, "text/plain", w.Header().Get("Content-Type"))
		assert.Equal(t, []string{"a", "b"}, w.Header().Values("Vary"))
		assert.Equal(t, []string{"s=1; Path=/; Secure"}, w.Header().Values("Set-Cookie"))
		assert.Equal(t, "3", w.Header().Get("Content-Length"))
		if head {
			assert.Empty(t, w.Body.String())
		} else {
			assert.Equal(t, "no\n", w.Body.String())
		}
	}
}

func TestResponseFromHTTP(t *testing.T) {
	h := http.Header{}
	h.Set("Location", "https://example.com/")
	h.Add("Set-Cookie", "a=1; Path=/")
	h.Add("Set-Cookie", "a=2")
	got := ResponseFromHTTP(302, h)
	require.Equal(t, 302, got.StatusCode)
	assert.Equal(t, "Found", got.StatusDescription)
	assert.Equal(t, Values{"location": {Value: "https://example.com/"}}, got.Headers)
	assert.Equal(t, []Cookie{{Value: "1", Attributes: "Path=/"}, {Value: "2"}}, got.Cookies["a"].MultiValue)
	assert.Equal(t, h, got.Header(), "and back")
}
