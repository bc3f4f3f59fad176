package clicklog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// TestClassifyByResultType is the regression test: only an answer that
// carries the link's own redirect, from the edge cache or from the origin,
// is a click. CloudFront's own 301 to https (result type Redirect) for an
// http viewer is not: counting it counted an http click twice, once for
// the 301 and once for the redirect the viewer then got over https, and
// gave clicks to codes that do not exist, since CloudFront answers it
// without asking the origin.
func TestClassifyByResultType(t *testing.T) {
	tests := []struct {
		name   string
		status int
		method string
		uri    string
		result string // x-edge-result-type
		want   bool
	}{
		{name: "edge hit", status: 302, method: "GET", uri: "/Ab3dE5g", result: "Hit", want: true},
		{name: "refresh hit", status: 302, method: "GET", uri: "/Ab3dE5g", result: "RefreshHit", want: true},
		{name: "origin shield hit", status: 302, method: "GET", uri: "/Ab3dE5g", result: "OriginShieldHit", want: true},
		{name: "miss", status: 302, method: "GET", uri: "/Ab3dE5g", result: "Miss", want: true},
		{name: "a link's own 301 from the origin", status: 301, method: "GET", uri: "/Ab3dE5g", result: "Miss", want: true},
		{name: "a link's own 308 from the cache", status: 308, method: "GET", uri: "/Ab3dE5g", result: "Hit", want: true},
		{name: "HEAD hit", status: 302, method: "HEAD", uri: "/Ab3dE5g", result: "Hit", want: true},
		{name: "CloudFront's 301 to https", status: 301, method: "GET", uri: "/Ab3dE5g", result: "Redirect"},
		{name: "CloudFront's 301 to https with a query", status: 301, method: "GET", uri: "/Ab3dE5g?utm_source=mail", result: "Redirect"},
		{name: "CloudFront's 301 to https of a HEAD", status: 301, method: "HEAD", uri: "/Ab3dE5g", result: "Redirect"},
		{name: "CloudFront's 301 to https for a code that does not exist", status: 301, method: "GET", uri: "/zzzzzzz", result: "Redirect"},
		{name: "CloudFront's 301 to https for an alias", status: 301, method: "GET", uri: "/spring-sale", result: "Redirect"},
		{name: "unknown code", status: 404, method: "GET", uri: "/zzzzzzz", result: "Error"},
		{name: "a redirect logged as an error", status: 302, method: "GET", uri: "/Ab3dE5g", result: "Error"},
		{name: "quota exceeded", status: 302, method: "GET", uri: "/Ab3dE5g", result: "LimitExceeded"},
		{name: "no capacity", status: 302, method: "GET", uri: "/Ab3dE5g", result: "CapacityExceeded"},
		{name: "no result type", status: 302, method: "GET", uri: "/Ab3dE5g", result: ""},
		{name: "a result type CloudFront does not document", status: 302, method: "GET", uri: "/Ab3dE5g", result: "Teleported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clicklog.Record{Time: at(1796040000, 0), Status: tt.status, Method: tt.method, URI: tt.uri,
				UserAgent: "Mozilla/5.0", ResultType: tt.result}

			_, ok := clicklog.Classify(&r)

			assert.Equal(t, tt.want, ok, "%d %s %s with result type %q", tt.status, tt.method, tt.uri, tt.result)
		})
	}
}

// TestClassifyByResponseResultType: x-edge-response-result-type, how the
// edge classified an answer before sending it, decides; x-edge-result-type
// turns into Error when the viewer hangs up early, which does not undo a
// redirect it already had.
func TestClassifyByResponseResultType(t *testing.T) {
	tests := []struct {
		name             string
		status           int
		response, result string
		want             bool
	}{
		{name: "miss", status: 302, response: "Miss", result: "Miss", want: true},
		{name: "hit", status: 302, response: "Hit", result: "Hit", want: true},
		{name: "refresh hit", status: 307, response: "RefreshHit", result: "RefreshHit", want: true},
		{name: "the viewer hung up after a redirect from the origin", status: 302, response: "Miss", result: "Error", want: true},
		{name: "the viewer hung up after a redirect from the cache", status: 302, response: "Hit", result: "Error", want: true},
		{name: "CloudFront's 301 to https", status: 301, response: "Redirect", result: "Redirect"},
		{name: "the viewer hung up after CloudFront's 301 to https", status: 301, response: "Redirect", result: "Error"},
		{name: "an error", status: 302, response: "Error", result: "Error"},
		{name: "no capacity", status: 302, response: "CapacityExceeded", result: "CapacityExceeded"},
		{name: "a result type CloudFront does not document", status: 302, response: "Teleported", result: "Hit"},
		// A record of the previous layout has only x-edge-result-type.
		{name: "previous layout, hit", status: 302, result: "Hit", want: true},
		{name: "previous layout, CloudFront's 301 to https", status: 301, result: "Redirect"},
		{name: "previous layout, an error that may have been either", status: 302, result: "Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clicklog.Record{Time: at(1796040000, 0), Status: tt.status, Method: "GET", URI: "/Ab3dE5g",
				UserAgent: "Mozilla/5.0", ResponseResultType: tt.response, ResultType: tt.result}

			_, ok := clicklog.Classify(&r)

			assert.Equal(t, tt.want, ok)
		})
	}
}

// TestClassifyResultTypeFixture reads testdata/result-types.log, real
// records in the configured layout, most of them pairs: an http viewer's
// request answered by CloudFront's 301 to https, then the same viewer's
// request over https.
func TestClassifyResultTypeFixture(t *testing.T) {
	type want struct {
		code string // "" when the record is no click
		bot  bool
	}
	wants := []want{
		{},                           // 301 Redirect: CloudFront sends the http viewer to https
		{code: "Ab3dE5g"},            // 302 Miss: the click, over https
		{},                           // 301 Redirect, with a query string
		{code: "Ab3dE5g"},            // 302 Hit
		{},                           // 301 Redirect of a HEAD
		{code: "Ab3dE5g", bot: true}, // 302 Hit of the HEAD over https
		{},                           // 301 Redirect for a code that does not exist
		{},                           // 404 for it over https
		{},                           // 301 Redirect for an alias
		{code: "spring-sale"},        // the alias's own 301, from the cache after revalidation
		{code: "Ab3dE5g"},            // 302 Miss, the viewer hung up before the last byte (Error)
		{},                           // 301 Redirect, the viewer hung up before the last byte (Error)
		{},                           // 302 classified Error before it was sent
		{},                           // 503 CapacityExceeded
		{},                           // 502 Error
		{},                           // 000: the viewer hung up before any answer
	}
	lines := readLines(t, "result-types.log")
	require.Len(t, lines, len(wants))
	clicks := 0
	for i, line := range lines {
		r, err := clicklog.Parse(line)
		require.NoError(t, err, "line %d", i+1)

		got, ok := clicklog.Classify(&r)

		assert.Equal(t, wants[i].code != "", ok, "line %d: %d %s %s %s/%s", i+1, r.Status, r.Method, r.URI, r.ResponseResultType, r.ResultType)
		assert.Equal(t, wants[i].code, got.Code, "line %d", i+1)
		assert.Equal(t, wants[i].bot, got.Bot, "line %d", i+1)
		if ok {
			clicks++
		}
	}
	assert.Equal(t, 5, clicks, "four viewers' clicks over http and the one whose viewer hung up")
}
