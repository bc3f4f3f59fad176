package localgw

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

const usageKey = "local-usage-plan-key-0123"

// fakeAPIAuth allows "Bearer user", the key "good-key" and "Bearer
// narrow" (for one other method only); denies "bad-key"; fails on "Bearer
// down"; answers "Unauthorized" to anything else.
func fakeAPIAuth(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	allow := func(resource string, c map[string]any, key string) events.APIGatewayCustomAuthorizerResponse {
		return events.APIGatewayCustomAuthorizerResponse{PrincipalID: "p", Context: c, UsageIdentifierKey: key,
			PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{
				{Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{resource}}}}}
	}
	api := "arn:aws:execute-api:local:000000000000:local/*"
	switch req.Headers["X-Api-Key"] + req.Headers["Authorization"] {
	case "Bearer user":
		return allow(api, map[string]any{"owner": "user:s1", "role": "admin", "n": 7.0, "b": true}, usageKey), nil
	case "good-key":
		return allow(api, map[string]any{"owner": "alice"}, usageKey), nil
	case "Bearer stray-key":
		return allow(api, map[string]any{"owner": "alice"}, "a-key-no-plan-has-000000"), nil
	case "Bearer narrow":
		return allow("arn:aws:execute-api:local:000000000000:local/local/GET/v1/links", map[string]any{"owner": "alice"}, usageKey), nil
	case "Bearer nested":
		return allow(api, map[string]any{"owner": map[string]any{"id": "alice"}}, usageKey), nil
	case "bad-key":
		resp := allow(req.MethodArn, nil, "")
		resp.PolicyDocument.Statement[0].Effect = "Deny"
		return resp, nil
	case "Bearer down":
		return events.APIGatewayCustomAuthorizerResponse{}, errors.New("keys table unreachable")
	}
	return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized")
}

func authorizedFixture(t *testing.T, plan *edgespec.UsagePlan) (*fixture, *RESTAuthorizer) {
	t.Helper()
	auth := &RESTAuthorizer{Handler: fakeAPIAuth}
	f0 := newFixture(t, Options{Routes: []Route{}})
	o, err := Configure(edgespec.APIs(edgespec.DefaultUsagePlan), Handlers{Create: f0.create.handle, APIAuthorizer: auth})
	require.NoError(t, err)
	o.UsagePlan = plan
	o.APIKeys = StaticKeys(usageKey)
	f := newFixture(t, o)
	f.create = f0.create
	return f, auth
}

// TestRESTAuthorizer: the /v1 authorizer runs for every request, headers
// or none, and API Gateway answers its verdicts with the API's gateway
// responses; only an allowed request reaches the function, with the
// authorizer's context.
func TestRESTAuthorizer(t *testing.T) {
	tests := []struct {
		name       string
		header     http.Header
		method     string
		wantStatus int
		wantType   string
	}{
		{name: "no credentials", wantStatus: 401, wantType: "unauthenticated"},
		{name: "a token that fails", header: http.Header{"Authorization": {"Bearer forged"}}, wantStatus: 401, wantType: "unauthenticated"},
		{name: "a denied key", header: http.Header{"X-Api-Key": {"bad-key"}}, wantStatus: 403, wantType: "forbidden"},
		{name: "a failing authorizer", header: http.Header{"Authorization": {"Bearer down"}}, wantStatus: 500, wantType: "internal"},
		{name: "a context value that is an object", header: http.Header{"Authorization": {"Bearer nested"}}, wantStatus: 500, wantType: "internal"},
		{name: "a policy for another method", header: http.Header{"Authorization": {"Bearer narrow"}}, wantStatus: 403, wantType: "forbidden"},
		{name: "a usage key no plan has", header: http.Header{"Authorization": {"Bearer stray-key"}}, wantStatus: 403, wantType: "forbidden"},
		{name: "a user", header: http.Header{"Authorization": {"Bearer user"}}, wantStatus: 201},
		{name: "a key", header: http.Header{"X-Api-Key": {"good-key"}}, wantStatus: 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, auth := authorizedFixture(t, nil)
			resp := f.do(http.MethodPost, "/v1/links", `{"url":"https://example.com"}`, tt.header)
			assert.Equal(t, 1, auth.Invocations(), "no identity sources: it runs whatever the request carries")
			require.Equal(t, tt.wantStatus, resp.Code, resp.Body.String())
			if tt.wantType != "" {
				assert.Equal(t, apigw.ContentTypeProblem, resp.Header().Get("Content-Type"))
				var p apigw.Problem
				require.NoError(t, json.Unmarshal(resp.Body.Bytes(), &p))
				assert.Equal(t, apigw.ProblemBase+tt.wantType, p.Type)
				assert.Zero(t, f.create.calls(), "refused before the function")
				return
			}
			assert.Equal(t, 1, f.create.calls())
		})
	}
}

// TestRESTAuthorizerContext: the function gets the authorizer's context
// as API Gateway passes it, every value a string, with principalId, and
// the usage-plan key as identity.apiKey; apigw.Caller reads it.
func TestRESTAuthorizerContext(t *testing.T) {
	f, _ := authorizedFixture(t, nil)
	resp := f.do(http.MethodPost, "/v1/links", `{}`, http.Header{"Authorization": {"Bearer user"}})
	require.Equal(t, 201, resp.Code, resp.Body.String())
	ev := f.create.last(t)
	assert.Equal(t, map[string]any{"principalId": "p", "owner": "user:s1", "role": "admin", "n": "7", "b": "true"}, ev.RequestContext.Authorizer)
	assert.Equal(t, usageKey, ev.RequestContext.Identity.APIKey)
	assert.Equal(t, KeyID(usageKey), ev.RequestContext.Identity.APIKeyID)
	p, ok := apigw.Caller(&ev)
	require.True(t, ok)
	assert.Equal(t, apigw.Principal{Owner: "user:s1", Role: "admin"}, p)
}

// TestRESTAuthorizerUsageKeyThrottles: with key source AUTHORIZER the
// usage plan meters the authorizer's usageIdentifierKey, so a user and an
// API key of the deployment share its one bucket.
func TestRESTAuthorizerUsageKeyThrottles(t *testing.T) {
	plan := edgespec.UsagePlan{Throttle: edgespec.Throttle{RateLimit: 0.001, BurstLimit: 2}, Quota: 100, QuotaPeriod: edgespec.QuotaPerDay}
	f, _ := authorizedFixture(t, &plan)
	assert.Equal(t, 201, f.do(http.MethodPost, "/v1/links", `{}`, http.Header{"Authorization": {"Bearer user"}}).Code)
	assert.Equal(t, 201, f.do(http.MethodPost, "/v1/links", `{}`, http.Header{"X-Api-Key": {"good-key"}}).Code)
	resp := f.do(http.MethodPost, "/v1/links", `{}`, http.Header{"X-Api-Key": {"good-key"}})
	assert.Equal(t, 429, resp.Code, resp.Body.String())
}

func TestWildcard(t *testing.T) {
	arn := "arn:aws:execute-api:local:000000000000:local/local/POST/v1/links"
	for pattern, want := range map[string]bool{
		"arn:aws:execute-api:local:000000000000:local/*":               true,
		"arn:aws:execute-api:local:000000000000:local/*/POST/v1/links": true,
		"arn:aws:execute-api:*:*:local/local/P?ST/*":                   true,
		"*": true,
		"arn:aws:execute-api:local:000000000000:local/local/GET/*":  false,
		"arn:aws:execute-api:local:000000000000:other/*":            false,
		"arn:aws:execute-api:local:000000000000:local/[a-z]/POST/*": false,
	} {
		assert.Equal(t, want, wildcard(pattern, arn), pattern)
	}
}
