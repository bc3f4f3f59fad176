package localgw

import (
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHTTPAPIPath(t *testing.T) {
	// One case per rule seen in live captures of deployed HTTP APIs
	// (hotsock/voker#8): decoded, cut at a decoded "?", decoded twice,
	// 400 when the second decoding fails.
	tests := []struct {
		sent, want string
		rejected   bool
	}{
		{sent: "/plain", want: "/plain"},
		{sent: "/%61bcdefg", want: "/abcdefg"},
		{sent: "/a%20b", want: "/a b"},
		{sent: "/a%3Fb", want: "/a"},
		{sent: "/a%23b", want: "/a#b"},
		{sent: "/a%2Fb", want: "/a/b"},
		{sent: "/%CE%BB-%E4%B8%96", want: "/λ-世"},
		{sent: "/a%252Fb", want: "/a/b"},
		{sent: "/a%253Fb", want: "/a?b"},
		{sent: "/a%2525b", want: "/a%b"},
		{sent: "/a%25zz", rejected: true},
		{sent: "/a%zz", rejected: true},
	}
	for _, tt := range tests {
		t.Run(tt.sent, func(t *testing.T) {
			got, ok := httpAPIPath(tt.sent)
			assert.Equal(t, !tt.rejected, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The redirect origin is an HTTP API: its function sees the decoded path,
// so every spelling of a code reaches it as the code itself. The /v1 REST
// API hands its functions the path as sent.
func TestGatewayDecodesPathsAsTheDeployedAPIDoes(t *testing.T) {
	tests := []struct {
		name       string
		target     string
		wantStatus int
		wantPath   string // "" when the handler must not run
		wantCode   string
		wantStage  string
	}{
		{name: "redirect, canonical", target: "/abc1234", wantStatus: 302, wantPath: "/abc1234", wantCode: "abc1234", wantStage: "$default"},
		{name: "redirect, an escaped letter", target: "/%61bc1234", wantStatus: 302, wantPath: "/abc1234", wantCode: "abc1234", wantStage: "$default"},
		{name: "redirect, every letter escaped", target: "/%61%62%63%31%32%33%34", wantStatus: 302, wantPath: "/abc1234", wantCode: "abc1234", wantStage: "$default"},
		{name: "redirect, escaped twice", target: "/%2561bc1234", wantStatus: 302, wantPath: "/abc1234", wantCode: "abc1234", wantStage: "$default"},
		{name: "redirect, cut at an escaped ?", target: "/abc1234%3Fx=1", wantStatus: 302, wantPath: "/abc1234", wantCode: "abc1234", wantStage: "$default"},
		{name: "redirect, escaped space", target: "/ab%20cd", wantStatus: 302, wantPath: "/ab cd", wantCode: "ab cd", wantStage: "$default"},
		{name: "redirect, escaped slash leaves the route", target: "/ab%2Fcd", wantStatus: 404},
		{name: "redirect, a stray escaped %", target: "/ab%25zz", wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})

			rec := f.do(http.MethodGet, tt.target, "", nil)

			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			if tt.wantPath == "" {
				assert.Zero(t, f.redirect.calls())
				if tt.wantStatus == 400 {
					assert.JSONEq(t, `{"message":"Bad Request"}`, rec.Body.String())
				}
				return
			}
			ev := f.redirect.last(t)
			assert.Equal(t, tt.wantPath, ev.Path)
			assert.Equal(t, tt.wantPath, ev.RequestContext.Path)
			assert.Equal(t, map[string]string{"code": tt.wantCode}, ev.PathParameters)
			assert.Equal(t, "/{code}", ev.Resource)
			assert.Equal(t, tt.wantStage, ev.RequestContext.Stage)
		})
	}

	t.Run("REST API keeps the path as sent", func(t *testing.T) {
		manage := &recorder{resp: f200()}
		f := newFixture(t, Options{Routes: Routes(Handlers{Manage: manage.handle})})

		rec := f.do(http.MethodGet, "/v1/links/%61bc1234", "", http.Header{"X-Api-Key": {"dev-key"}})

		require.Equal(t, 200, rec.Code)
		ev := manage.last(t)
		assert.Equal(t, "/v1/links/%61bc1234", ev.Path)
		assert.Equal(t, map[string]string{"code": "%61bc1234"}, ev.PathParameters)
		assert.Equal(t, Stage, ev.RequestContext.Stage)
	})
}

func f200() events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{StatusCode: 200, Body: "{}"}
}
