package localgw

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
)

// TestOriginAuthorizer: the redirect route behind the real origin
// authorizer answers only requests that carry the origin secret, as the
// deployed HTTP API does; a caller going around the edge is refused
// before the redirect function runs.
func TestOriginAuthorizer(t *testing.T) {
	const secret = "s3cr3t-origin-value"
	tests := []struct {
		name       string
		header     http.Header
		wantStatus int
		wantBody   string
	}{
		{name: "no header: refused without invoking the authorizer", wantStatus: http.StatusUnauthorized, wantBody: `{"message":"Unauthorized"}`},
		{name: "empty header", header: http.Header{"X-Origin-Verify": {""}}, wantStatus: http.StatusUnauthorized, wantBody: `{"message":"Unauthorized"}`},
		{name: "wrong secret", header: http.Header{"X-Origin-Verify": {"guess"}}, wantStatus: http.StatusForbidden, wantBody: `{"message":"Forbidden"}`},
		{name: "the secret", header: http.Header{"X-Origin-Verify": {secret}}, wantStatus: http.StatusFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := originauthfn.New(originauthfn.Options{Secrets: originauthfn.Static{secret}})
			auth := &Authorizer{Header: originauthfn.HeaderName, Handler: h.Handle, TTL: time.Minute}
			f := newFixture(t, Options{})
			f.gw = mustGateway(t, Options{Routes: Routes(Handlers{Redirect: f.redirect.handle, OriginAuthorizer: auth})})
			rec := f.do(http.MethodGet, "/abc1234", "", tt.header)
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			if tt.wantBody != "" {
				assert.JSONEq(t, tt.wantBody, rec.Body.String())
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				assert.Zero(t, f.redirect.calls(), "the redirect function never sees it")
				return
			}
			assert.Equal(t, 1, f.redirect.calls())
		})
	}
}

func mustGateway(t *testing.T, o Options) *Gateway {
	t.Helper()
	gw, err := New(o)
	require.NoError(t, err)
	return gw
}

// TestAuthorizerCacheAndErrors: answers are cached per header value for
// the TTL, allow and deny alike; errors and panics are 500 and not cached.
func TestAuthorizerCacheAndErrors(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var seen []events.APIGatewayV2CustomAuthorizerV2Request
	fail := false
	auth := &Authorizer{
		Header: "X-Origin-Verify",
		TTL:    5 * time.Minute,
		Now:    func() time.Time { return now },
		Handler: func(_ context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
			seen = append(seen, req)
			switch {
			case fail:
				return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, errors.New("no secret")
			case req.IdentitySource[0] == "boom":
				panic("crash")
			}
			return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: req.IdentitySource[0] == "good"}, nil
		},
	}
	f := newFixture(t, Options{})
	f.gw = mustGateway(t, Options{Routes: Routes(Handlers{Redirect: f.redirect.handle, OriginAuthorizer: auth})})
	get := func(v string) int {
		return f.do(http.MethodGet, "/abc1234?x=1", "", http.Header{"X-Origin-Verify": {v}}).Code
	}

	assert.Equal(t, http.StatusFound, get("good"))
	require.Len(t, seen, 1)
	ev := seen[0]
	assert.Equal(t, "2.0", ev.Version)
	assert.Equal(t, "REQUEST", ev.Type)
	assert.Equal(t, "GET /{code}", ev.RouteKey)
	assert.Equal(t, "/abc1234", ev.RawPath)
	assert.Equal(t, "x=1", ev.RawQueryString)
	assert.Equal(t, map[string]string{"code": "abc1234"}, ev.PathParameters)
	assert.Equal(t, "good", ev.Headers["x-origin-verify"], "header names lower-cased as in payload 2.0")

	assert.Equal(t, http.StatusFound, get("good"))
	assert.Equal(t, http.StatusForbidden, get("bad"))
	assert.Equal(t, http.StatusForbidden, get("bad"))
	assert.Len(t, seen, 2, "one invocation per value within the TTL")
	assert.Equal(t, 2, auth.Invocations())

	now = now.Add(5 * time.Minute)
	fail = true
	assert.Equal(t, http.StatusInternalServerError, get("good"), "expired: invoked again, and it failed")
	assert.Equal(t, http.StatusInternalServerError, get("good"), "errors are not cached")
	fail = false
	assert.Equal(t, http.StatusFound, get("good"))
	assert.Equal(t, http.StatusInternalServerError, get("boom"), "a crash is a 500")
	assert.Equal(t, 3, f.redirect.calls(), "only allowed requests reach the handler")
}
