package redirectfn

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/link"
)

// TestRedirectsSayTheLinksQueryChoice: a redirect carries
// edgespec.QueryForwardHeader for the edge's query-forward function only
// when its link's choice is not the default, on the plain (cached),
// decided and expired redirects alike; pages and the spelling redirect
// never do.
func TestRedirectsSayTheLinksQueryChoice(t *testing.T) {
	off := link.Features{KeepQueryOut: true}
	visitor := link.Features{QueryPrecedence: link.QueryVisitor}
	tests := []struct {
		name string
		link link.Link
		path string
		want string // the header's value; "" for none
	}{
		{name: "default", link: link.Link{Code: "deflt01"}, path: "deflt01"},
		{name: "forward_query false", link: link.Link{Code: "qoff001", Features: off}, path: "qoff001", want: edgespec.QueryForwardOff},
		{name: "visitor wins", link: link.Link{Code: "qvis001", Features: visitor}, path: "qvis001", want: edgespec.QueryForwardVisitor},
		{name: "off wins over the precedence", link: link.Link{Code: "qboth01", Features: link.Features{KeepQueryOut: true, QueryPrecedence: link.QueryVisitor}},
			path: "qboth01", want: edgespec.QueryForwardOff},
		{name: "decided", link: link.Link{Code: "qlim001", Features: link.Features{MaxClicks: 5, QueryPrecedence: link.QueryVisitor}},
			path: "qlim001", want: edgespec.QueryForwardVisitor},
		{name: "expired to its expired_url", link: link.Link{Code: "qexp001", ExpiresAt: start.Add(-time.Second),
			Features: link.Features{ExpiredURL: "https://example.com/over", KeepQueryOut: true}}, path: "qexp001", want: edgespec.QueryForwardOff},
		{name: "gone page", link: link.Link{Code: "qgone01", Status: link.StatusDisabled, Features: off}, path: "qgone01"},
		{name: "password form", link: link.Link{Code: "qpass01", Features: link.Features{PasswordHash: "plain:pw", KeepQueryOut: true}}, path: "qpass01"},
		{name: "spelling redirect", link: link.Link{Code: "hello12", Alias: "Hello12", Features: off}, path: "Hello12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newDecidedFixture(t)
			f.put(t, tt.link)
			resp := f.do(t, request(t, "GET", tt.path, ""))
			got, ok := resp.Headers[edgespec.QueryForwardHeader]
			assert.Equal(t, tt.want != "", ok, "status %d", resp.StatusCode)
			assert.Equal(t, tt.want, got)
		})
	}
}
