package cloudfrontjs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseResult feeds arbitrary JSON, as a function could build it, to
// the result parsers: an error or a result that holds CloudFront's rules,
// never a panic. The seeds are in testdata/fuzz/FuzzParseResult.
func FuzzParseResult(f *testing.F) {
	orig := testEvent()
	origResp := &Response{StatusCode: 200, Headers: Values{"via": {Value: "1.1 x"}, "content-length": {Value: "3"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		res, err := parseRequestResult(v, &orig.Request)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidResult)
		} else {
			require.True(t, (res.Request == nil) != (res.Response == nil))
			if res.Request != nil {
				assertHeaders(t, res.Request.Headers)
				assert.Equal(t, orig.Request.Headers["host"], res.Request.Headers["host"])
				assert.Equal(t, "GET", res.Request.Method)
			} else {
				assertHeaders(t, res.Response.Headers)
				assert.LessOrEqual(t, generatedSize(res.Response), MaxGeneratedResponseBytes)
			}
		}
		resp, err := parseResponse(v, EventViewerResponse, origResp)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidResult)
			return
		}
		assertHeaders(t, resp.Headers)
		assert.Nil(t, resp.Body)
		assert.Equal(t, origResp.Headers["via"], resp.Headers["via"])
	})
}

func assertHeaders(t *testing.T, h Values) {
	t.Helper()
	for name, v := range h {
		assert.False(t, DisallowedHeader(name), name)
		assert.True(t, isToken(name), name)
		for _, s := range v.All() {
			assert.True(t, printable(s), "%q", s)
		}
	}
}

// FuzzViewerRequestEvent sends arbitrary request parts through the
// event-to-JavaScript conversion and back through a function that returns
// the request untouched: either what went in comes out, or the request is
// one CloudFront would refuse from a function too (ErrInvalidResult).
func FuzzViewerRequestEvent(f *testing.F) {
	fn, err := Compile("identity", identity)
	require.NoError(f, err)
	f.Add("/abc1234", "x-custom", "v", "q", "1", "c", "v")
	f.Add("/%61bc", "host", "sho.rt", "", "", "", "")
	f.Add("/a b", "x-cache", "Hit", "a&b", "c#d", "s;x", "1")
	f.Add("", "X-Up", "\r\n", "=", "=", "é", "\x00")
	f.Fuzz(func(t *testing.T, uri, hname, hvalue, qname, qvalue, cname, cvalue string) {
		ev := testEvent()
		ev.Request.URI = uri
		ev.Request.Headers[hname] = Value{Value: hvalue}
		ev.Request.Querystring.Add(qname, qvalue)
		ev.Request.Cookies.Add(cname, cvalue)
		res, err := fn.ViewerRequest(context.Background(), ev)
		if err != nil {
			require.True(t, errors.Is(err, ErrInvalidResult), "%v", err)
			return
		}
		require.NotNil(t, res.Request)
		// Strings reach JavaScript as UTF-8: a byte that is not becomes
		// U+FFFD (RequestFromHTTP never hands over such a byte).
		assert.Equal(t, utf8Values(ev.Request.Querystring), res.Request.Querystring)
		assert.Equal(t, utf8Values(ev.Request.Cookies), res.Request.Cookies)
		assert.Equal(t, strings.ToValidUTF8(ev.Request.URI, "\uFFFD"), res.Request.URI)
		for name, v := range utf8Values(visibleHeaders(ev.Request.Headers)) {
			assert.Equal(t, v.All(), res.Request.Headers[lowerASCII(name)].All(), name)
		}
	})
}

func utf8Values(vs Values) Values {
	out := Values{}
	for name, v := range vs {
		for _, s := range v.All() {
			out.Add(strings.ToValidUTF8(name, "\uFFFD"), strings.ToValidUTF8(s, "\uFFFD"))
		}
	}
	return out
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
