package infra_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestAPIsAreTheDescription: every Region's API Gateway resources are
// shared/edgespec's description, which the local gateway plays too, so
// the two cannot drift: the redirect HTTP API's routes, integrations and
// authorizer, and the /v1 REST API's resource tree, methods, binary media
// types, stage throttles, gateway responses and usage plan (with the
// deployment's apiRateLimit, apiBurstLimit and apiQuotaPerDay). Both test
// apps are read from their one synthesis.
func TestAPIsAreTheDescription(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		plan := edgespec.DefaultUsagePlan
		plan.Throttle = edgespec.Throttle{RateLimit: s.cfg.APIRateLimit, BurstLimit: int(s.cfg.APIBurstLimit)}
		plan.Quota = int(s.cfg.APIQuotaPerDay)
		apis := edgespec.APIs(plan)
		redirect, ok := edgespec.Find(apis, edgespec.RedirectAPI)
		require.True(t, ok)
		management, ok := edgespec.Find(apis, edgespec.ManagementAPI)
		require.True(t, ok)
		for _, region := range s.cfg.Regions {
			t.Run(s.name+"/"+region+"/redirect", func(t *testing.T) {
				assertHTTPAPI(t, s.regional(region), redirect)
			})
		}
		for _, region := range infra.V1Regions(s.cfg) {
			t.Run(s.name+"/"+region+"/management", func(t *testing.T) {
				assertRESTAPI(t, s.regional(region), management)
			})
		}
	}
}

// functionRef is how a template refers to the function of a description:
// its logical ID, quoted, in the JSON of an integration's URI.
func functionRef(t *testing.T, tp tpl, fn edgespec.Lambda) string {
	t.Helper()
	r, ok := tp.function(string(fn))
	require.True(t, ok, "function %s", fn)
	return strconv.Quote(r.ID)
}

func assertHTTPAPI(t *testing.T, tp tpl, want edgespec.API) {
	apis := tp.resources("AWS::ApiGatewayV2::Api")
	require.Len(t, apis, 1)
	assert.Equal(t, "HTTP", apis[0].Props["ProtocolType"])
	assert.Equal(t, want.Description, apis[0].Props["Description"])
	assert.Nil(t, apis[0].Props["CorsConfiguration"], "no CORS in the description")

	stages := tp.resources("AWS::ApiGatewayV2::Stage")
	require.Len(t, stages, 1)
	assert.Equal(t, want.Stage, stages[0].Props["StageName"])
	assert.Nil(t, stages[0].Props["DefaultRouteSettings"], "no stage throttle in the description")

	authorizers := map[string]string{} // logical ID -> name
	for _, a := range tp.resources("AWS::ApiGatewayV2::Authorizer") {
		name, _ := a.Props["Name"].(string)
		authorizers[a.ID] = name
		w, ok := want.Authorizer(name)
		if !assert.True(t, ok, "authorizer %s described", name) {
			continue
		}
		assert.Equal(t, string(w.Type), a.Props["AuthorizerType"], name)
		assert.Equal(t, toAny(w.IdentitySources), a.Props["IdentitySource"], name)
		assert.Equal(t, w.ResultTTL.Seconds(), a.Props["AuthorizerResultTtlInSeconds"], name)
		assert.Equal(t, w.Response == edgespec.SimpleResponse, a.Props["EnableSimpleResponses"], name)
		assert.Equal(t, w.PayloadFormatVersion, a.Props["AuthorizerPayloadFormatVersion"], name)
		assert.Contains(t, toJSON(a.Props["AuthorizerUri"]), functionRef(t, tp, w.Function), name)
	}
	assert.Len(t, authorizers, len(want.Authorizers))

	integrations := map[string]resource{}
	for _, in := range tp.resources("AWS::ApiGatewayV2::Integration") {
		integrations[in.ID] = in
	}
	routes := map[string]resource{}
	for _, r := range tp.resources("AWS::ApiGatewayV2::Route") {
		routes[r.Props["RouteKey"].(string)] = r
	}
	var wantKeys []string
	for _, w := range want.Routes {
		wantKeys = append(wantKeys, w.Key())
		r, ok := routes[w.Key()]
		if !assert.True(t, ok, "route %s", w.Key()) {
			continue
		}
		if w.Authorizer != "" {
			assert.Equal(t, "CUSTOM", r.Props["AuthorizationType"], w.Key())
			id, _ := get(r.Props, "AuthorizerId", "Ref").(string)
			assert.Equal(t, w.Authorizer, authorizers[id], w.Key())
		} else {
			assert.Contains(t, []any{nil, "NONE"}, r.Props["AuthorizationType"], w.Key())
		}
		target, _ := get(r.Props, "Target", "Fn::Join", 1, 1, "Ref").(string)
		in, ok := integrations[target]
		if !assert.True(t, ok, "route %s has an integration", w.Key()) {
			continue
		}
		assert.Equal(t, string(w.Integration.Kind), in.Props["IntegrationType"], w.Key())
		assert.Contains(t, toJSON(in.Props["IntegrationUri"]), functionRef(t, tp, w.Integration.Function), w.Key())
		assert.Equal(t, want.PayloadFormatVersion, in.Props["PayloadFormatVersion"], w.Key())
		assert.Equal(t, float64(want.IntegrationTimeout.Milliseconds()), in.Props["TimeoutInMillis"], w.Key())
	}
	assert.ElementsMatch(t, wantKeys, keys(routes), "the described routes and no other")
}

func toAny[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// restPaths resolves each AWS::ApiGateway::Resource's full path through
// its parents.
func restPaths(tp tpl) map[string]string {
	parts := map[string][2]string{} // ID -> parent ID ("" for the root), part
	for _, r := range tp.resources("AWS::ApiGateway::Resource") {
		parent, _ := get(r.Props, "ParentId", "Ref").(string)
		parts[r.ID] = [2]string{parent, r.Props["PathPart"].(string)}
	}
	paths := map[string]string{}
	var path func(id string) string
	path = func(id string) string {
		p, ok := parts[id]
		if !ok {
			return "" // the root
		}
		return path(p[0]) + "/" + p[1]
	}
	for id := range parts {
		paths[id] = path(id)
	}
	return paths
}

func assertRESTAPI(t *testing.T, tp tpl, want edgespec.API) {
	rest := tp.resources("AWS::ApiGateway::RestApi")
	require.Len(t, rest, 1)
	assert.Equal(t, toAny(want.BinaryMediaTypes), rest[0].Props["BinaryMediaTypes"])
	assert.Equal(t, want.APIKeySource, rest[0].Props["ApiKeySourceType"])
	assert.Equal(t, want.Description, rest[0].Props["Description"])

	restAuthorizers := assertRESTAuthorizers(t, tp, want)
	paths := restPaths(tp)
	methods := map[string]resource{}
	for _, m := range tp.resources("AWS::ApiGateway::Method") {
		id, _ := get(m.Props, "ResourceId", "Ref").(string)
		path, ok := paths[id]
		if !ok {
			path = "/"
		}
		methods[m.Props["HttpMethod"].(string)+" "+path] = m
	}
	var wantKeys []string
	for _, w := range want.Routes {
		wantKeys = append(wantKeys, w.Key())
		m, ok := methods[w.Key()]
		if !assert.True(t, ok, "method %s", w.Key()) {
			continue
		}
		assert.Equal(t, w.APIKeyRequired, m.Props["ApiKeyRequired"], w.Key())
		if w.Authorizer != "" {
			assert.Equal(t, "CUSTOM", m.Props["AuthorizationType"], w.Key())
			id, _ := get(m.Props, "AuthorizerId", "Ref").(string)
			assert.Equal(t, w.Authorizer, restAuthorizers[id], "%s runs its authorizer", w.Key())
		} else {
			assert.Equal(t, "NONE", m.Props["AuthorizationType"], w.Key())
		}
		assert.Equal(t, string(w.Integration.Kind), get(m.Props, "Integration", "Type"), w.Key())
		uri := toJSON(get(m.Props, "Integration", "Uri"))
		switch w.Integration.Kind {
		case edgespec.LambdaProxy:
			assert.Contains(t, uri, functionRef(t, tp, w.Integration.Function), w.Key())
			wantParams := map[string]any{}
			for _, p := range w.PathParameters() {
				wantParams["method.request.path."+p] = true
			}
			if len(wantParams) == 0 {
				assert.Nil(t, m.Props["RequestParameters"], w.Key())
			} else {
				assert.Equal(t, wantParams, m.Props["RequestParameters"], "API Gateway checks the path parameters: %s", w.Key())
			}
		case edgespec.ServiceIntegration:
			service, action, _ := strings.Cut(w.Integration.Action, ":")
			assert.Contains(t, uri, ":"+service+":action/"+action, w.Key())
		case edgespec.MockIntegration:
			require.Equal(t, edgespec.ProblemsPage, w.Integration.Page)
			assert.Equal(t, apigw.ProblemsPage(), get(m.Props, "Integration", "IntegrationResponses", 0, "ResponseTemplates", "text/html"), w.Key())
		}
	}
	assert.ElementsMatch(t, wantKeys, keys(methods), "the described methods and no other")

	stages := tp.resources("AWS::ApiGateway::Stage")
	require.Len(t, stages, 1)
	assert.Equal(t, want.Stage, stages[0].Props["StageName"])
	throttles := map[string]edgespec.Throttle{}
	for _, ms := range asSlice(stages[0].Props["MethodSettings"]) {
		rate, ok := get(ms, "ThrottlingRateLimit").(float64)
		if !ok {
			continue
		}
		burst, _ := get(ms, "ThrottlingBurstLimit").(float64)
		throttles[fmt.Sprint(get(ms, "HttpMethod"), " ", get(ms, "ResourcePath"))] = edgespec.Throttle{RateLimit: rate, BurstLimit: int(burst)}
	}
	wantThrottles := map[string]edgespec.Throttle{}
	if want.Throttle != nil {
		wantThrottles["* /*"] = *want.Throttle
	}
	for _, w := range want.Routes {
		if w.Throttle != nil {
			// Method settings escape the resource path's slashes.
			wantThrottles[w.Method+" "+strings.ReplaceAll(w.Path, "/", "~1")] = *w.Throttle
		}
	}
	assert.Equal(t, wantThrottles, throttles, "the stage's and the methods' throttles")

	responses := map[string]resource{}
	for _, r := range tp.resources("AWS::ApiGateway::GatewayResponse") {
		responses[r.Props["ResponseType"].(string)] = r
	}
	var wantTypes []string
	for _, w := range want.GatewayResponses {
		wantTypes = append(wantTypes, w.Type)
		r, ok := responses[w.Type]
		if !assert.True(t, ok, w.Type) {
			continue
		}
		assert.Equal(t, strconv.Itoa(w.Status), r.Props["StatusCode"], w.Type)
		assert.Equal(t, "'"+apigw.ContentTypeProblem+"'", get(r.Props, "ResponseParameters", "gatewayresponse.header.Content-Type"), w.Type)
		body := get(r.Props, "ResponseTemplates", "application/json").(string)
		p := w.Problem("$context.path")
		assert.JSONEq(t, toJSON(p), body, "the problem the local gateway answers too: %s", w.Type)
	}
	sort.Strings(wantTypes)
	assert.ElementsMatch(t, wantTypes, keys(responses))

	plans := tp.resources("AWS::ApiGateway::UsagePlan")
	if want.UsagePlan == nil {
		assert.Empty(t, plans)
		return
	}
	require.Len(t, plans, 1)
	assertUsageKey(t, tp, want, plans[0])
	u := want.UsagePlan
	assert.Equal(t, u.Description, plans[0].Props["Description"])
	assert.Equal(t, map[string]any{"RateLimit": u.Throttle.RateLimit, "BurstLimit": float64(u.Throttle.BurstLimit)}, plans[0].Props["Throttle"])
	assert.Equal(t, map[string]any{"Limit": float64(u.Quota), "Period": string(u.QuotaPeriod)}, plans[0].Props["Quota"])
}

// assertRESTAuthorizers checks the REST API's Lambda authorizers against
// the description (REQUEST, no identity source, no cache, the function it
// names) and returns their names by logical ID.
func assertRESTAuthorizers(t *testing.T, tp tpl, want edgespec.API) map[string]string {
	t.Helper()
	names := map[string]string{}
	for _, a := range tp.resources("AWS::ApiGateway::Authorizer") {
		var w edgespec.Authorizer
		var found bool
		for _, z := range want.Authorizers {
			if strings.HasPrefix(a.ID, "ManagementApi"+z.Name+"Authorizer") {
				w, found = z, true
			}
		}
		if !assert.True(t, found, "authorizer %s is described", a.ID) {
			continue
		}
		names[a.ID] = w.Name
		assert.Equal(t, string(w.Type), a.Props["Type"], w.Name)
		assert.NotContains(t, a.Props, "IdentitySource", "%s: no identity source, so it runs for every request", w.Name)
		assert.Equal(t, 0.0, a.Props["AuthorizerResultTtlInSeconds"], "%s: nothing cached", w.Name)
		assert.Contains(t, toJSON(a.Props["AuthorizerUri"]), functionRef(t, tp, w.Function), w.Name)
	}
	assert.Len(t, names, len(want.Authorizers))
	return names
}

// assertUsageKey: with key source AUTHORIZER the plan has exactly one
// key, the deployment's, and the authorizer is told its value.
func assertUsageKey(t *testing.T, tp tpl, want edgespec.API, plan resource) {
	t.Helper()
	keys := tp.resources("AWS::ApiGateway::ApiKey")
	planKeys := tp.resources("AWS::ApiGateway::UsagePlanKey")
	if want.APIKeySource != edgespec.KeySourceAuthorizer {
		assert.Empty(t, keys)
		return
	}
	require.Len(t, keys, 1, "one usage-plan key per Region")
	require.Len(t, planKeys, 1)
	assert.Equal(t, keys[0].ID, get(planKeys[0].Props, "KeyId", "Ref"))
	assert.Equal(t, plan.ID, get(planKeys[0].Props, "UsagePlanId", "Ref"))
	assert.Equal(t, "API_KEY", planKeys[0].Props["KeyType"])
	assert.Equal(t, true, keys[0].Props["Enabled"])
	fn, ok := tp.function(string(edgespec.LambdaAPIAuth))
	require.True(t, ok)
	env := toJSON(get(fn.Props, "Environment", "Variables", "USAGE_PLAN_KEY"))
	assert.Equal(t, toJSON(keys[0].Props["Value"]), env, "the authorizer returns the plan's key")
}
