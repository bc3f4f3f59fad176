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
