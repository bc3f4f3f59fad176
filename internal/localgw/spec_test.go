package localgw

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// allHandlers sets every handler, each a recorder of its own.
func allHandlers() (Handlers, map[string]*recorder) {
	r := map[string]*recorder{}
	for _, name := range []string{"create", "redirect", "manage", "batch", "qr", "stats", "webhooks"} {
		r[name] = &recorder{resp: apigw.JSON(http.StatusOK, map[string]string{"from": name}, nil)}
	}
	return Handlers{Create: r["create"].handle, Redirect: r["redirect"].handle, Manage: r["manage"].handle,
		Batch: r["batch"].handle, QR: r["qr"].handle, Stats: r["stats"].handle, Webhooks: r["webhooks"].handle}, r
}

// TestConfigureModelsTheServicesAPIs: the service's description is all
// modelled, every route of it a route here (but the problems page, the
// gateway's own, and the health check, its caller's), with its API's
// settings.
func TestConfigureModelsTheServicesAPIs(t *testing.T) {
	apis := edgespec.APIs(edgespec.DefaultUsagePlan)
	h, _ := allHandlers()
	auth := &Authorizer{Handler: nil}
	h.OriginAuthorizer = auth
	h.APIAuthorizer = &RESTAuthorizer{}
	o, err := Configure(apis, h)
	require.NoError(t, err)

	got := map[string]Route{}
	for _, rt := range o.Routes {
		for _, m := range rt.Methods {
			got[m+" "+rt.Pattern] = rt
		}
	}
	var want []string
	for _, a := range apis {
		for _, r := range a.Routes {
			if r.Path == apigw.ProblemsPath || r.Path == a.HealthPath && a.HealthPath != "" {
				continue
			}
			want = append(want, r.Key())
			rt, ok := got[r.Key()]
			if !assert.True(t, ok, "%s routed", r.Key()) {
				continue
			}
			assert.Equal(t, r.APIKeyRequired, rt.NeedsKey, r.Key())
			assert.Equal(t, a.Kind == edgespec.HTTPAPI, rt.API == HTTPAPI, r.Key())
			assert.Equal(t, a.IntegrationTimeout, rt.Timeout, r.Key())
			assert.Equal(t, r.Authorizer != "", rt.Authorizer != nil || rt.RESTAuthorizer != nil, r.Key())
			assert.Equal(t, r.Authorizer == edgespec.APIAuthorizer, rt.RESTAuthorizer == h.APIAuthorizer, r.Key())
			assert.Len(t, rt.Throttles, map[bool]int{true: 1, false: 0}[a.Throttle != nil], "the stage's throttle: %s", r.Key())
		}
	}
	assert.ElementsMatch(t, want, keysOf(got))
	assert.Equal(t, []string{"GET", "HEAD"}, got["GET /{code}"].Methods, "one Route per resource and handler")
	assert.Equal(t, []string{"GET", "PATCH", "DELETE"}, got["GET /v1/links/{code}"].Methods)
	assert.Equal(t, []string{"GET"}, got["GET /v1/links/{code}/qr"].Methods, "QR is a handler of its own")
	assert.Equal(t, []string{"*/*"}, o.BinaryMediaTypes)
	assert.Equal(t, &edgespec.DefaultUsagePlan, o.UsagePlan)
	assert.Len(t, o.GatewayResponses, 7)
	assert.Equal(t, edgespec.KeySourceAuthorizer, o.APIKeySource)
	assert.Equal(t, "X-Origin-Verify", auth.Header, "from the identity source")
	assert.Equal(t, edgespec.OriginAuthorizerTTL, auth.TTL, "the result TTL")
	_, err = New(o)
	assert.NoError(t, err)
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestConfigureRoutesEachFunction: each route reaches the handler of the
// function the description names (batch and QR their own fields).
func TestConfigureRoutesEachFunction(t *testing.T) {
	h, rec := allHandlers()
	o, err := Configure(edgespec.APIs(edgespec.DefaultUsagePlan), h)
	require.NoError(t, err)
	f := newFixture(t, o)
	key := http.Header{"X-Api-Key": {"dev-key"}}
	tests := []struct{ method, path, want string }{
		{"POST", "/v1/links", "create"},
		{"GET", "/v1/links", "manage"},
		{"POST", "/v1/links/batch", "batch"},
		{"GET", "/v1/links/abc1234", "manage"},
		{"DELETE", "/v1/links/abc1234", "manage"},
		{"GET", "/v1/links/abc1234/qr", "qr"},
		{"GET", "/v1/links/abc1234/stats", "stats"},
		{"GET", "/v1/webhooks/wh1/deliveries", "webhooks"},
		{"GET", "/abc1234", "redirect"},
		{"HEAD", "/abc1234", "redirect"},
		{"POST", "/unlock/abc1234", "redirect"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			before := rec[tt.want].calls()
			resp := f.do(tt.method, tt.path, "", key)
			assert.Equal(t, http.StatusOK, resp.Code, resp.Body.String())
			assert.Equal(t, before+1, rec[tt.want].calls())
		})
	}
}

// TestConfigureRefusesWhatItDoesNotModel: fail closed. Each case is a
// valid description with one element the gateway does not play.
func TestConfigureRefusesWhatItDoesNotModel(t *testing.T) {
	tests := []struct {
		name   string
		change func(apis []edgespec.API)
	}{
		{"CORS", func(apis []edgespec.API) {
			apis[1].CORS = &edgespec.CORS{AllowOrigins: []string{"https://example.com"}}
		}},
		{"payload format 2.0", func(apis []edgespec.API) { apis[0].PayloadFormatVersion = "2.0" }},
		{"an HTTP API stage of its own", func(apis []edgespec.API) { apis[0].Stage = "live" }},
		{"IAM policy authorizer responses", func(apis []edgespec.API) { apis[0].Authorizers[0].Response = edgespec.IAMPolicyResponse }},
		{"two identity sources", func(apis []edgespec.API) {
			apis[0].Authorizers[0].IdentitySources = append(apis[0].Authorizers[0].IdentitySources, "$request.querystring.k")
		}},
		{"an identity source not a header", func(apis []edgespec.API) {
			apis[0].Authorizers[0].IdentitySources = []string{"$context.identity.sourceIp"}
		}},
		{"an authorizer of another function", func(apis []edgespec.API) { apis[0].Authorizers[0].Function = "keyauth" }},
		{"a function it has no handler field for", func(apis []edgespec.API) {
			apis[1].Routes = append(apis[1].Routes, edgespec.Route{Method: "GET", Path: "/v1/export", APIKeyRequired: true,
				Authorizer: edgespec.APIAuthorizer, Integration: edgespec.Integration{Kind: edgespec.LambdaProxy, Function: "export"}})
		}},
		{"a mock integration of another page", func(apis []edgespec.API) {
			apis[1].Routes = append(apis[1].Routes, edgespec.Route{Method: "GET", Path: "/v1/terms",
				Integration: edgespec.Integration{Kind: edgespec.MockIntegration, Page: "terms"}})
		}},
		{"another service action", func(apis []edgespec.API) {
			apis[1].Routes = append(apis[1].Routes, edgespec.Route{Method: "POST", Path: "/v1/queue",
				Integration: edgespec.Integration{Kind: edgespec.ServiceIntegration, Action: "sqs:SendMessage"}})
		}},
		{"keys from elsewhere", func(apis []edgespec.API) { apis[1].APIKeySource = "QUERYSTRING" }},
		{"a cached REST authorizer", func(apis []edgespec.API) {
			apis[1].Authorizers[0].IdentitySources = []string{"method.request.header.x-api-key"}
			apis[1].Authorizers[0].ResultTTL = time.Minute
		}},
		{"a TOKEN authorizer", func(apis []edgespec.API) { apis[1].Authorizers[0].Type = "TOKEN" }},
		{"a REST authorizer of another function", func(apis []edgespec.API) { apis[1].Authorizers[0].Function = "keyauth" }},
		{"a weekly quota", func(apis []edgespec.API) { apis[1].UsagePlan.QuotaPeriod = "WEEK" }},
		{"another gateway response", func(apis []edgespec.API) {
			apis[1].GatewayResponses = append(apis[1].GatewayResponses, edgespec.GatewayResponse{Type: "DEFAULT_4XX", Status: 400})
		}},
		{"a second REST API", func(apis []edgespec.API) {
			second := edgespec.Management(edgespec.DefaultUsagePlan)
			second.Name = "admin"
			second.Routes = nil
			second.HealthPath = ""
			apis[1] = second
			apis[0] = edgespec.Management(edgespec.DefaultUsagePlan)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			apis := edgespec.APIs(edgespec.DefaultUsagePlan)
			tt.change(apis)
			for _, a := range apis {
				require.NoError(t, a.Validate(), "a valid description")
			}
			h, _ := allHandlers()
			_, err := Configure(apis, h)
			assert.ErrorIs(t, err, ErrUnmodelled)
		})
	}
}

func TestConfigureRefusesAnInvalidDescription(t *testing.T) {
	apis := edgespec.APIs(edgespec.DefaultUsagePlan)
	apis[1].Routes = append(apis[1].Routes, apis[1].Routes[0])
	_, err := Configure(apis, Handlers{})
	assert.ErrorIs(t, err, edgespec.ErrInvalidAPI)
}

func TestConfigureRefusesAnAuthorizerOnAnotherHeader(t *testing.T) {
	_, err := Configure(edgespec.APIs(edgespec.DefaultUsagePlan), Handlers{OriginAuthorizer: &Authorizer{Header: "X-Other"}})
	assert.ErrorContains(t, err, "X-Other")
}

// clock is a settable time for throttles and quotas.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// throttled is a gateway of the management API with plan and stage as
// its throttles.
func throttled(t *testing.T, plan edgespec.UsagePlan, stage *edgespec.Throttle, responses bool) (*fixture, *clock) {
	t.Helper()
	apis := []edgespec.API{edgespec.Management(plan)}
	apis[0].Throttle = stage
	if !responses {
		apis[0].GatewayResponses = nil
	}
	h, _ := allHandlers()
	o, err := Configure(apis, h)
	require.NoError(t, err)
	c := &clock{now: time.Date(2026, 12, 1, 23, 59, 0, 0, time.UTC)}
	o.Now = c.Now
	return newFixture(t, o), c
}

// TestUsagePlanThrottlesEachKey: a key's bucket holds the burst and
// refills at the rate; another key has its own; a refused request is the
// THROTTLED gateway response.
func TestUsagePlanThrottlesEachKey(t *testing.T) {
	plan := edgespec.UsagePlan{Throttle: edgespec.Throttle{RateLimit: 1, BurstLimit: 2}, Quota: 100, QuotaPeriod: edgespec.QuotaPerDay}
	f, c := throttled(t, plan, nil, true)
	dev, other := http.Header{"X-Api-Key": {"dev-key"}}, http.Header{"X-Api-Key": {"other-key"}}
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code)
	rec := f.do("GET", "/v1/links", "", dev)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	p := problemOf(t, rec)
	assert.Equal(t, apigw.Problem{Type: apigw.ProblemRateLimited.Type, Title: "Too many requests", Status: 429,
		Detail: "slow down and retry", Instance: "/v1/links"}, p)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", other).Code, "a bucket per key")
	c.now = c.now.Add(time.Second)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code, "one token a second")
	assert.Equal(t, 429, f.do("GET", "/v1/links", "", dev).Code)
	assert.Equal(t, 200, f.do("GET", apigw.ProblemsPath, "", nil).Code, "the usage plan counts keyed methods only")
}

// TestUsagePlanQuotaPerDay: a key's quota is for one UTC day; a throttled
// request does not count against it.
func TestUsagePlanQuotaPerDay(t *testing.T) {
	plan := edgespec.UsagePlan{Throttle: edgespec.Throttle{RateLimit: 1000, BurstLimit: 1000}, Quota: 2, QuotaPeriod: edgespec.QuotaPerDay}
	f, c := throttled(t, plan, nil, true)
	dev := http.Header{"X-Api-Key": {"dev-key"}}
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code)
	rec := f.do("GET", "/v1/links", "", dev)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "Quota exceeded", problemOf(t, rec).Title)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", http.Header{"X-Api-Key": {"other-key"}}).Code, "a quota per key")
	c.now = c.now.Add(time.Minute) // past midnight UTC
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", dev).Code, "a new day")
}

// TestStageThrottle: the stage's bucket is shared by every key and
// method; without gateway responses a 429 is API Gateway's default.
func TestStageThrottle(t *testing.T) {
	f, c := throttled(t, edgespec.DefaultUsagePlan, &edgespec.Throttle{RateLimit: 1, BurstLimit: 1}, false)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", http.Header{"X-Api-Key": {"dev-key"}}).Code)
	rec := f.do("POST", "/v1/links", "", http.Header{"X-Api-Key": {"other-key"}})
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.JSONEq(t, `{"message":"Too Many Requests"}`, rec.Body.String())
	c.now = c.now.Add(time.Second)
	assert.Equal(t, 200, f.do("POST", "/v1/links", "", http.Header{"X-Api-Key": {"other-key"}}).Code)
}

// TestMethodThrottle: a route's own throttle holds its method only.
func TestMethodThrottle(t *testing.T) {
	apis := []edgespec.API{edgespec.Management(edgespec.DefaultUsagePlan)}
	for i, r := range apis[0].Routes {
		if r.Key() == "POST /v1/links" {
			apis[0].Routes[i].Throttle = &edgespec.Throttle{RateLimit: 1, BurstLimit: 1}
		}
	}
	h, _ := allHandlers()
	o, err := Configure(apis, h)
	require.NoError(t, err)
	c := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	o.Now = c.Now
	f := newFixture(t, o)
	key := http.Header{"X-Api-Key": {"dev-key"}}
	assert.Equal(t, 200, f.do("POST", "/v1/links", "", key).Code)
	assert.Equal(t, 429, f.do("POST", "/v1/links", "", key).Code)
	assert.Equal(t, 200, f.do("GET", "/v1/links", "", key).Code, "another method of the resource")
}

func TestThrottleRefillsAtTheRateUpToTheBurst(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewThrottle(edgespec.Throttle{RateLimit: 2, BurstLimit: 3})
	taken := 0
	for b.take(start) {
		taken++
	}
	assert.Equal(t, 3, taken, "the burst")
	assert.True(t, b.take(start.Add(500*time.Millisecond)), "a token per 1/rate")
	assert.False(t, b.take(start.Add(500*time.Millisecond)))
	later := start.Add(time.Hour)
	taken = 0
	for b.take(later) {
		taken++
	}
	assert.Equal(t, 3, taken, "never more than the burst")
}

// TestAPIIntegrationTimeout: a route gets its API's integration timeout,
// the redirect's shorter than the gateway's 29 s; the handler's context
// carries it.
func TestAPIIntegrationTimeout(t *testing.T) {
	api := edgespec.Redirect()
	api.IntegrationTimeout = 20 * time.Millisecond
	deadlines := make(chan time.Duration, 1)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	blocked := func(ctx context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		d, _ := ctx.Deadline()
		deadlines <- time.Until(d)
		// Past the timeout, and not answering at it: the gateway's 504
		// is then the only answer there is.
		<-release
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
	}
	o, err := Configure([]edgespec.API{api}, Handlers{Redirect: blocked})
	require.NoError(t, err)
	f := newFixture(t, o)
	rec := f.do("GET", "/abc1234", "", nil)
	assert.Equal(t, http.StatusGatewayTimeout, rec.Code)
	assert.LessOrEqual(t, <-deadlines, 20*time.Millisecond, "the API's timeout, not the gateway's")
}
