package edgespec

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFunctionSource(t *testing.T) {
	tests := []struct {
		name    string
		wantErr bool
	}{
		{name: CanonicalPathFunction},
		{name: "", wantErr: true},
		{name: "no-such-function", wantErr: true},
		{name: "../functions/canonical-path", wantErr: true},
		{name: "canonical-path.js", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := FunctionSource(tt.name)
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrUnknownFunction)
				assert.Empty(t, src)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, src, "function handler(event)")
		})
	}
}

func TestFunctionNames(t *testing.T) {
	assert.Contains(t, FunctionNames(), CanonicalPathFunction)
	for _, n := range FunctionNames() {
		assert.NotPanics(t, func() { MustFunctionSource(n) }, n)
	}
	assert.Panics(t, func() { MustFunctionSource("no-such-function") })
}

// TestCanonicalPathBody keeps the body the JavaScript answers equal to
// NonCanonicalPathBody, which the web ACL answers: the two paths to the
// same 400 must not drift. The literal is a JavaScript double-quoted
// string whose only escape is \n, which Go unquotes the same way.
func TestCanonicalPathBody(t *testing.T) {
	src := MustFunctionSource(CanonicalPathFunction)
	m := regexp.MustCompile(`data:\s*("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(src, -1)
	require.Len(t, m, 1, "one body literal in %s.js", CanonicalPathFunction)
	body, err := strconv.Unquote(m[0][1])
	require.NoError(t, err)
	assert.Equal(t, NonCanonicalPathBody, body)
}

// TestQueryForwardNames keeps the header and values the query-forward
// JavaScript reads equal to QueryForwardHeader and its values, which the
// redirect origin writes.
func TestQueryForwardNames(t *testing.T) {
	src := MustFunctionSource(QueryForwardFunction)
	assert.Contains(t, src, "var HEADER = '"+strings.ToLower(QueryForwardHeader)+"';")
	assert.Contains(t, src, "mode === '"+QueryForwardOff+"'")
	assert.Contains(t, src, "mode === '"+QueryForwardVisitor+"'")
}

// TestRedirectCacheKeyIsThePath: the query never splits the redirect
// cache, which is why query-forward merges it after the cache.
func TestRedirectCacheKeyIsThePath(t *testing.T) {
	p := Distribution(Options{}).Default.CachePolicy
	assert.Equal(t, None, p.QueryStrings)
	assert.Equal(t, None, p.Headers)
	assert.Equal(t, None, p.Cookies)
}

// TestVersionKeyNames keeps version-key's refusal body and header equal
// to NonCanonicalPathBody and VersionHeader, and its missing key at
// NoVersion.
func TestVersionKeyNames(t *testing.T) {
	src := MustFunctionSource(VersionKeyFunction)
	m := regexp.MustCompile(`data:\s*("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(src, -1)
	require.Len(t, m, 1, "one body literal in %s.js", VersionKeyFunction)
	body, err := strconv.Unquote(m[0][1])
	require.NoError(t, err)
	assert.Equal(t, NonCanonicalPathBody, body)
	assert.Contains(t, src, "var HEADER = '"+VersionHeader+"';")
	assert.Contains(t, src, "version = '"+NoVersion+"';")
}

// TestVersionKeysDistribution: with VersionKeys the redirect behaviour
// has one viewer-request function, version-key with the store, with WAF
// or without, and its cache keys on the version header alone besides the
// path; without it nothing changes.
func TestVersionKeysDistribution(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want []FunctionAssociation
	}{
		{"off, no WAF", Options{}, []FunctionAssociation{{ViewerRequest, CanonicalPathFunction, false}, {ViewerResponse, QueryForwardFunction, false}}},
		{"off, WAF", Options{WAF: true}, []FunctionAssociation{{ViewerResponse, QueryForwardFunction, false}}},
		{"on, no WAF", Options{VersionKeys: true}, []FunctionAssociation{{ViewerRequest, VersionKeyFunction, true}, {ViewerResponse, QueryForwardFunction, false}}},
		{"on, WAF", Options{VersionKeys: true, WAF: true}, []FunctionAssociation{{ViewerRequest, VersionKeyFunction, true}, {ViewerResponse, QueryForwardFunction, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Distribution(tt.o)
			assert.Equal(t, tt.want, d.Default.Functions)
			want := KeyValues(None)
			if tt.o.VersionKeys {
				want = KeyValues{Behavior: KeyAllowList, Names: []string{VersionHeader}}
			}
			assert.Equal(t, want, d.Default.CachePolicy.Headers)
			assert.Equal(t, None, d.Default.CachePolicy.QueryStrings)
			assert.Equal(t, None, d.Default.CachePolicy.Cookies)
			for _, b := range d.Behaviors {
				for _, f := range b.Functions {
					assert.False(t, f.KeyValueStore, "only the redirects' function reads the store")
				}
			}
		})
	}
}
