package edgespec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

func TestAPIsAreValid(t *testing.T) {
	apis := edgespec.APIs(edgespec.DefaultUsagePlan)
	require.Len(t, apis, 2)
	for _, a := range apis {
		assert.NoError(t, a.Validate(), a.Name)
	}
}

// TestRedirectAPI: only CloudFront reaches the redirect function, so
// every route runs the origin authorizer, and there is no catch-all.
func TestRedirectAPI(t *testing.T) {
	a, ok := edgespec.Find(edgespec.APIs(edgespec.DefaultUsagePlan), edgespec.RedirectAPI)
	require.True(t, ok)
	assert.Equal(t, edgespec.HTTPAPI, a.Kind)
	assert.Equal(t, "1.0", a.PayloadFormatVersion, "the handlers take events.APIGatewayProxyRequest")
	var keys []string
	for _, r := range a.Routes {
		keys = append(keys, r.Key())
		assert.Equal(t, edgespec.OriginAuthorizer, r.Authorizer, r.Key())
		assert.Equal(t, edgespec.LambdaRedirect, r.Integration.Function, r.Key())
	}
	assert.Equal(t, []string{"GET /{code}", "HEAD /{code}", "POST /unlock/{code}"}, keys)
	auth, ok := a.Authorizer(edgespec.OriginAuthorizer)
	require.True(t, ok)
	assert.Equal(t, []string{"$request.header.X-Origin-Verify"}, auth.IdentitySources)
	assert.Equal(t, edgespec.SimpleResponse, auth.Response)
	assert.Equal(t, edgespec.OriginAuthorizerTTL, auth.ResultTTL)
}

// TestManagementAPI: every method with a function behind it needs a key;
// the two API Gateway answers itself (problems page, health) do not.
func TestManagementAPI(t *testing.T) {
	plan := edgespec.UsagePlan{Throttle: edgespec.Throttle{RateLimit: 5, BurstLimit: 10}, Quota: 50, QuotaPeriod: edgespec.QuotaPerDay}
	a, ok := edgespec.Find(edgespec.APIs(plan), edgespec.ManagementAPI)
	require.True(t, ok)
	assert.Equal(t, edgespec.RESTAPI, a.Kind)
	assert.Equal(t, &plan, a.UsagePlan, "the plan given")
	assert.Equal(t, apigw.BinaryMediaTypes, a.BinaryMediaTypes)
	assert.Equal(t, edgespec.HealthPath, a.HealthPath)
	unkeyed := map[string]edgespec.IntegrationKind{}
	for _, r := range a.Routes {
		if r.Integration.Kind == edgespec.LambdaProxy {
			assert.True(t, r.APIKeyRequired, r.Key())
			assert.Equal(t, edgespec.APIAuthorizer, r.Authorizer, r.Key())
			continue
		}
		assert.False(t, r.APIKeyRequired, r.Key())
		assert.Empty(t, r.Authorizer, r.Key())
		unkeyed[r.Key()] = r.Integration.Kind
	}
	assert.Equal(t, map[string]edgespec.IntegrationKind{
		"GET " + apigw.ProblemsPath: edgespec.MockIntegration, "GET /v1/health": edgespec.ServiceIntegration,
	}, unkeyed)
	for _, typ := range []string{edgespec.ResponseThrottled, edgespec.ResponseQuotaExceeded} {
		g, ok := a.GatewayResponse(typ)
		require.True(t, ok, typ)
		assert.Equal(t, 429, g.Problem("/v1/links").Status)
		assert.Equal(t, apigw.ProblemRateLimited.Type, g.Problem("/v1/links").Type, "the problem the page explains")
	}
}

// TestManagementAuthorizer: the /v1 authorizer runs for every request
// (no identity source, no cache), so a request without credentials gets
// the API's own 401, and it supplies the usage-plan key.
func TestManagementAuthorizer(t *testing.T) {
	a := edgespec.Management(edgespec.DefaultUsagePlan)
	z, ok := a.Authorizer(edgespec.APIAuthorizer)
	require.True(t, ok)
	assert.Equal(t, edgespec.Authorizer{
		Name: edgespec.APIAuthorizer, Type: edgespec.RequestAuthorizer, Function: edgespec.LambdaAPIAuth, Response: edgespec.IAMPolicyResponse,
	}, z)
	assert.Equal(t, edgespec.KeySourceAuthorizer, a.APIKeySource)
	for typ, status := range map[string]int{
		edgespec.ResponseUnauthorized: 401, edgespec.ResponseAccessDenied: 403, edgespec.ResponseAuthorizerFailure: 500,
	} {
		g, ok := a.GatewayResponse(typ)
		require.True(t, ok, typ)
		p := g.Problem("/v1/links")
		assert.Equal(t, status, p.Status, typ)
		assert.Contains(t, apigw.ProblemsPage(), `id="`+g.Slug+`"`, "%s: its type is explained on the problems page", typ)
	}
}

func TestAPIsReturnsAFreshValue(t *testing.T) {
	a := edgespec.APIs(edgespec.DefaultUsagePlan)
	a[1].Routes[0].Path = "/changed"
	a[1].BinaryMediaTypes[0] = "image/png"
	a[1].Throttle.RateLimit = 1
	b := edgespec.APIs(edgespec.DefaultUsagePlan)
	assert.Equal(t, "/v1/links", b[1].Routes[0].Path)
	assert.Equal(t, []string{"*/*"}, b[1].BinaryMediaTypes)
	assert.Equal(t, edgespec.ManagementThrottle, *b[1].Throttle)
	assert.Equal(t, []string{"*/*"}, apigw.BinaryMediaTypes)
}

func TestValidateRefuses(t *testing.T) {
	fn := edgespec.Integration{Kind: edgespec.LambdaProxy, Function: edgespec.LambdaManage}
	tests := []struct {
		name   string
		change func(a *edgespec.API)
	}{
		{"no name", func(a *edgespec.API) { a.Name = "" }},
		{"unknown kind", func(a *edgespec.API) { a.Kind = "WEBSOCKET" }},
		{"lower-case method", func(a *edgespec.API) { a.Routes[0].Method = "get" }},
		{"no leading slash", func(a *edgespec.API) { a.Routes[0].Path = "v1/links" }},
		{"empty segment", func(a *edgespec.API) { a.Routes[0].Path = "/v1//links" }},
		{"partial parameter", func(a *edgespec.API) { a.Routes[0].Path = "/v1/a-{id}" }},
		{"defined twice", func(a *edgespec.API) { a.Routes = append(a.Routes, a.Routes[0]) }},
		{"unknown authorizer", func(a *edgespec.API) { a.Routes[0].Authorizer = "nobody" }},
		{"function-less proxy", func(a *edgespec.API) { a.Routes[0].Integration = edgespec.Integration{Kind: edgespec.LambdaProxy} }},
		{"unknown integration", func(a *edgespec.API) { a.Routes[0].Integration = edgespec.Integration{Kind: "HTTP_PROXY"} }},
		{"health without its route", func(a *edgespec.API) { a.HealthPath = "/v1/nothing" }},
		{"keys on an HTTP API", func(a *edgespec.API) {
			a.Kind = edgespec.HTTPAPI
			a.Routes = []edgespec.Route{{Method: "GET", Path: "/x", Integration: fn, APIKeyRequired: true}}
		}},
		{"a cached authorizer without identity sources", func(a *edgespec.API) { a.Authorizers[0].ResultTTL = 300e9 }},
		{"an HTTP API authorizer without identity sources", func(a *edgespec.API) {
			*a = edgespec.Redirect()
			a.Authorizers[0].IdentitySources = nil
			a.Authorizers[0].ResultTTL = 0
		}},
		{"the key from an authorizer a route lacks", func(a *edgespec.API) { a.Routes[0].Authorizer = "" }},
		{"binary media types on an HTTP API", func(a *edgespec.API) {
			*a = edgespec.Redirect()
			a.BinaryMediaTypes = []string{"*/*"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := edgespec.Management(edgespec.DefaultUsagePlan)
			tt.change(&a)
			assert.ErrorIs(t, a.Validate(), edgespec.ErrInvalidAPI)
		})
	}
}

func TestRoutePathParameters(t *testing.T) {
	tests := []struct {
		path string
		want []string
	}{
		{"/v1/links", nil},
		{"/{code}", []string{"code"}},
		{"/v1/webhooks/{id}/deliveries", []string{"id"}},
		{"/a/{b}/{c}", []string{"b", "c"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, edgespec.Route{Path: tt.path}.PathParameters(), tt.path)
	}
}
