package cloudfrontjs

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestCanonicalPathFunction runs the deployed canonical-path function: a
// redirect path passes untouched, a percent-encoded spelling gets the 400
// with edgespec.NonCanonicalPathBody, the body the web ACL answers too,
// never cached.
func TestCanonicalPathFunction(t *testing.T) {
	f, err := Compile(edgespec.CanonicalPathFunction, edgespec.MustFunctionSource(edgespec.CanonicalPathFunction))
	require.NoError(t, err)
	tests := []struct {
		uri     string
		refused bool
	}{
		{"/abc1234", false},
		{"/", false},
		{"/%61bc1234", true},
		{"/abc123%34", true},
		{"/ab%20cd", true},
		{"/%2561bc1234", true},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			ev := testEvent()
			ev.Request.URI = tt.uri
			res, err := f.ViewerRequest(context.Background(), ev)
			require.NoError(t, err)
			if !tt.refused {
				require.NotNil(t, res.Request)
				assert.Equal(t, tt.uri, res.Request.URI)
				assert.Equal(t, visibleHeaders(ev.Request.Headers), res.Request.Headers)
				return
			}
			require.NotNil(t, res.Response)
			assert.Equal(t, 400, res.Response.StatusCode)
			assert.Equal(t, edgespec.NonCanonicalPathBody, string(res.Response.Body.Bytes()))
			assert.Equal(t, "no-store", res.Response.Headers["cache-control"].Value)
			assert.Equal(t, "text/plain", res.Response.Headers["content-type"].Value)
		})
	}
}

// TestEdgespecFunctionsLoad: every CloudFront Function infra deploys loads
// under cloudfront-js-2.0's rules (size, syntax, features, handler), so a
// function that CloudFront would refuse at deploy time fails here first.
func TestEdgespecFunctionsLoad(t *testing.T) {
	names := edgespec.FunctionNames()
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var opts []Option
			if name == edgespec.VersionKeyFunction {
				opts = append(opts, WithKeyValueStore(mapStore{})) // associated with the store on CloudFront
			}
			_, err := Compile(name, edgespec.MustFunctionSource(name), opts...)
			assert.NoError(t, err)
		})
	}
}
