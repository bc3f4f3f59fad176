package cloudfrontjs

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestQueryForwardFunction runs the deployed query-forward function on the
// answers a redirect behaviour sends: the visitor's query merged into a
// redirect's Location, the link's choice read from
// edgespec.QueryForwardHeader and never passed on, every other answer
// left as it is.
func TestQueryForwardFunction(t *testing.T) {
	f, err := Compile(edgespec.QueryForwardFunction, edgespec.MustFunctionSource(edgespec.QueryForwardFunction))
	require.NoError(t, err)
	header := strings.ToLower(edgespec.QueryForwardHeader)
	tests := []struct {
		name     string
		status   int
		location string // none when empty
		mode     string // no header when empty
		query    string // the visitor's raw query
		want     string // the Location sent; none when empty
	}{
		{name: "added", status: 302, location: "https://example.com/p", query: "utm_source=x&ref=y",
			want: "https://example.com/p?ref=y&utm_source=x"},
		{name: "no visitor query", status: 302, location: "https://example.com/p?a=1", want: "https://example.com/p?a=1"},
		{name: "destination wins by default", status: 301, location: "https://example.com/p?utm_source=dest&a=1", query: "utm_source=x&b=2",
			want: "https://example.com/p?utm_source=dest&a=1&b=2"},
		{name: "visitor wins", status: 302, location: "https://example.com/p?utm_source=dest&a=1", mode: edgespec.QueryForwardVisitor,
			query: "utm_source=x&b=2", want: "https://example.com/p?a=1&b=2&utm_source=x"},
		{name: "off", status: 302, location: "https://example.com/p?a=1", mode: edgespec.QueryForwardOff, query: "b=2",
			want: "https://example.com/p?a=1"},
		{name: "fragment stays last", status: 307, location: "https://example.com/p?a=1#top", query: "b=2",
			want: "https://example.com/p?a=1&b=2#top"},
		{name: "fragment without a query", status: 308, location: "https://example.com/p#top", query: "b=2",
			want: "https://example.com/p?b=2#top"},
		{name: "repeated names keep every value in order", status: 302, location: "https://example.com/p", query: "t=1&t=2&t=3",
			want: "https://example.com/p?t=1&t=2&t=3"},
		{name: "repeated destination names all give way to the visitor", status: 302, location: "https://example.com/p?t=a&t=b&c=1",
			mode: edgespec.QueryForwardVisitor, query: "t=v", want: "https://example.com/p?c=1&t=v"},
		{name: "the visitor's encoding is kept", status: 302, location: "https://example.com/p", query: "q=a%20b+c&e=%E2%82%AC",
			want: "https://example.com/p?e=%E2%82%AC&q=a%20b+c"},
		{name: "names are compared decoded", status: 302, location: "https://example.com/p?utm_source=dest", query: "utm%5Fsource=x",
			want: "https://example.com/p?utm_source=dest"},
		{name: "a bad escape is compared as it is", status: 302, location: "https://example.com/p?a=1", query: "%zz=1",
			want: "https://example.com/p?a=1&%zz=1"},
		{name: "relative spelling redirect", status: 303, location: "/promo25", query: "utm_source=x",
			want: "/promo25?utm_source=x"},
		{name: "200 left alone", status: 200, query: "a=1"},
		{name: "a 200 with a Location left alone", status: 200, location: "https://example.com/p", query: "a=1",
			want: "https://example.com/p"},
		{name: "304 left alone", status: 304, mode: edgespec.QueryForwardVisitor, query: "a=1"},
		{name: "redirect without a Location", status: 302, query: "a=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEvent()
			ev.Request.Querystring = parseRawQuery(tt.query)
			resp := &Response{StatusCode: tt.status, Headers: Values{"cache-control": {Value: "public, max-age=0, s-maxage=60"}}}
			if tt.location != "" {
				resp.Headers["location"] = Value{Value: tt.location}
			}
			if tt.mode != "" {
				resp.Headers[header] = Value{Value: tt.mode}
			}
			ev.Response = resp
			got, err := f.ViewerResponse(context.Background(), ev)
			require.NoError(t, err)
			assert.Equal(t, tt.status, got.StatusCode)
			assert.NotContains(t, got.Headers, header, "the link's choice never reaches the viewer")
			assert.Equal(t, "public, max-age=0, s-maxage=60", got.Headers["cache-control"].Value)
			loc, ok := got.Headers["location"]
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			assert.Equal(t, tt.want, loc.Value)
		})
	}
}
