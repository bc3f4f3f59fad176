package localedge

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestNewRefusesWhatItDoesNotModel: the local edge does not start on a
// description holding anything it would not answer as CloudFront does.
func TestNewRefusesWhatItDoesNotModel(t *testing.T) {
	tests := []struct {
		name    string
		change  func(d *edgespec.Spec)
		options Options
	}{
		{name: "two viewer-response functions", change: func(d *edgespec.Spec) {
			d.Default.Functions = append(d.Default.Functions, edgespec.FunctionAssociation{EventType: edgespec.ViewerResponse, Function: edgespec.CanonicalPathFunction})
		}},
		{name: "an unknown event type", change: func(d *edgespec.Spec) {
			d.Default.Functions = []edgespec.FunctionAssociation{{EventType: "origin-request", Function: edgespec.CanonicalPathFunction}}
		}},
		{name: "an unknown function", change: func(d *edgespec.Spec) {
			d.Behaviors[0].Functions = []edgespec.FunctionAssociation{{EventType: edgespec.ViewerRequest, Function: "geo-redirect"}}
		}},
		{name: "the query string in the cache key", change: func(d *edgespec.Spec) {
			d.Default.CachePolicy.QueryStrings = edgespec.KeyValues{Behavior: edgespec.KeyAll}
		}},
		{name: "a cookie in the cache key", change: func(d *edgespec.Spec) {
			d.Default.CachePolicy.Cookies = edgespec.KeyValues{Behavior: edgespec.KeyAllowList, Names: []string{"session"}}
		}},
		{name: "OPTIONS cached", change: func(d *edgespec.Spec) {
			d.Behaviors[1].CachedMethods = edgespec.MethodsGetHeadOptions
		}},
		{name: "a method set CloudFront has not", change: func(d *edgespec.Spec) {
			d.Default.AllowedMethods = []string{"GET", "POST"}
		}},
		{name: "an unknown viewer protocol policy", change: func(d *edgespec.Spec) {
			d.Behaviors[0].ViewerProtocol = "match-viewer"
		}},
		{name: "cookies to the origin", change: func(d *edgespec.Spec) {
			p := *d.Default.OriginRequestPolicy
			p.Cookies = edgespec.KeyValues{Behavior: edgespec.KeyAll}
			d.Default.OriginRequestPolicy = &p
		}},
		{name: "a CloudFront header it does not add", change: func(d *edgespec.Spec) {
			p := *d.Default.OriginRequestPolicy
			p.CloudFrontHeaders = append(p.CloudFrontHeaders, "CloudFront-Viewer-JA3-Fingerprint")
			d.Default.OriginRequestPolicy = &p
		}},
		{name: "all viewer headers", change: func(d *edgespec.Spec) {
			p := *d.Behaviors[1].OriginRequestPolicy
			p.Headers = edgespec.KeyValues{Behavior: edgespec.KeyAllViewer}
			d.Behaviors[1].OriginRequestPolicy = &p
		}},
		{name: "the web ACL", change: func(d *edgespec.Spec) {
			d.WebACL = &edgespec.WebACL{RateLimit: 1000, RateRule: edgespec.WAFRateRuleName, CanonicalPathRule: edgespec.WAFCanonicalPathRuleName}
		}},
		{name: "an error caching minimum", change: func(d *edgespec.Spec) {
			d.ErrorResponses = []edgespec.ErrorResponse{{Status: 404, CachingMinTTLSeconds: 60}}
		}},
		{name: "other log fields", change: func(d *edgespec.Spec) {
			d.RealtimeLog.Fields = append(d.RealtimeLog.Fields, "cs-cookie")
		}},
		{name: "other failover codes", change: func(d *edgespec.Spec) {
			*d = edgespec.Distribution(edgespec.Options{Failover: true})
			d.OriginGroups[0].FailoverStatusCodes = []int{404, 500}
		}},
		{name: "a behaviour to no origin", change: func(d *edgespec.Spec) {
			d.Behaviors[0].TargetOrigin = "elsewhere"
		}},
		{name: "a second default", change: func(d *edgespec.Spec) {
			d.Behaviors = append(d.Behaviors, d.Default)
		}},
		{name: "the console without its bucket", change: func(d *edgespec.Spec) {
			*d = edgespec.Distribution(edgespec.Options{Console: true})
		}},
		{name: "an origin header the description does not name", change: func(*edgespec.Spec) {},
			options: Options{RedirectOriginHeaders: map[string]string{"X-Other": "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := edgespec.Distribution(edgespec.Options{})
			tt.change(&d)
			o := tt.options
			o.Origin, o.Distribution, o.Log = newOrigin(), &d, slog.New(slog.DiscardHandler)
			e, err := New(o)
			require.Error(t, err)
			assert.Nil(t, e)
			assert.True(t, errors.Is(err, ErrUnmodelled), "%v", err)
		})
	}
}

// TestEveryDeployedVariantIsModelled: the local edge starts on every
// description infra deploys but those with the web ACL, whose rate rule it
// does not play.
func TestEveryDeployedVariantIsModelled(t *testing.T) {
	for _, failover := range []bool{false, true} {
		for _, withConsole := range []bool{false, true} {
			d := edgespec.Distribution(edgespec.Options{Failover: failover, Console: withConsole})
			o := Options{Origin: newOrigin(), Distribution: &d, Log: slog.New(slog.DiscardHandler),
				RedirectOriginHeaders: map[string]string{edgespec.OriginVerifyHeader: "s"}}
			if withConsole {
				o.ConsoleOrigin = Bucket(t.TempDir())
			}
			e, err := New(o)
			require.NoError(t, err, "failover %v, console %v", failover, withConsole)
			require.NoError(t, e.Close(t.Context()))
		}
	}
}

// headersOrigin answers with the headers set for a path.
type headersOrigin map[string]http.Header

func (o headersOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, vs := range o[r.URL.Path] {
		w.Header()[k] = vs
	}
	w.Header().Set("Location", "https://example.com/")
	w.WriteHeader(http.StatusFound)
}

// TestResponseHeadersPolicyAsCloudFrontAppliesIt: a header with override
// replaces the origin's; one without is added only when the origin sent
// none of that name; on an answer from the origin and on one from the
// cache alike.
func TestResponseHeadersPolicyAsCloudFrontAppliesIt(t *testing.T) {
	d := edgespec.Distribution(edgespec.Options{})
	policy := *d.Default.ResponseHeadersPolicy
	csp, ref := *policy.Security.ContentSecurityPolicy, *policy.Security.ReferrerPolicy
	csp.Override, ref.Override = false, false
	policy.Security.ContentSecurityPolicy, policy.Security.ReferrerPolicy = &csp, &ref
	policy.Custom = []edgespec.Header{{Name: "X-Robots-Tag", Value: "noindex", Override: false}}
	d.Default.ResponseHeadersPolicy = &policy

	origin := headersOrigin{
		"/own0001": {
			"Content-Security-Policy": {"default-src 'self'"}, "Referrer-Policy": {"no-referrer"},
			"X-Frame-Options": {"SAMEORIGIN"}, "Cache-Control": {"s-maxage=60"},
		},
		"/bare001": {"Cache-Control": {"s-maxage=60"}},
	}
	e, err := New(Options{Origin: origin, Distribution: &d, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close(t.Context()) })
	tests := []struct {
		path                   string
		csp, referrer, frame   string
		robots, hsts, xssFirst string
	}{
		{"/own0001", "default-src 'self'", "no-referrer", "DENY", "noindex", "max-age=63072000; includeSubDomains", "1; mode=block"},
		{"/bare001", edgespec.StrictCSP, "strict-origin-when-cross-origin", "DENY", "noindex", "max-age=63072000; includeSubDomains", "1; mode=block"},
	}
	for _, tt := range tests {
		for _, want := range []string{"Miss from cloudfront", "Hit from cloudfront"} {
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://sho.rt"+tt.path, nil))
			h := rec.Header()
			require.Equal(t, want, h.Get("X-Cache"), tt.path)
			assert.Equal(t, []string{tt.csp}, h.Values("Content-Security-Policy"), "%s: override false keeps the origin's", tt.path)
			assert.Equal(t, []string{tt.referrer}, h.Values("Referrer-Policy"), tt.path)
			assert.Equal(t, []string{tt.frame}, h.Values("X-Frame-Options"), "%s: override true replaces the origin's", tt.path)
			assert.Equal(t, tt.robots, h.Get("X-Robots-Tag"), tt.path)
			assert.Equal(t, tt.hsts, h.Get("Strict-Transport-Security"), tt.path)
			assert.Equal(t, tt.xssFirst, h.Get("X-XSS-Protection"), tt.path)
			assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), tt.path)
		}
	}

	// The /v1 behaviour has the same policy as deployed (override on), and
	// answers uncached.
	rec := httptest.NewRecorder()
	origin["/v1/links"] = http.Header{"Content-Security-Policy": {"default-src *"}}
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://sho.rt/v1/links", nil))
	assert.Equal(t, edgespec.StrictCSP, rec.Header().Get("Content-Security-Policy"))
}

// TestDeployedHeadersKeepThePageCSP: with the deployed description the
// redirect and unlock behaviours keep a page's own CSP and Referrer-Policy
// (the password form's) and give the strict ones to answers without;
// /v1 overrides them.
func TestDeployedHeadersKeepThePageCSP(t *testing.T) {
	form := http.Header{"Content-Security-Policy": {"form-action 'self' https: http:"}, "Referrer-Policy": {"no-referrer"}, "Cache-Control": {"no-store"}}
	origin := headersOrigin{"/form001": form, "/unlock/form001": form, "/v1/links": form, "/plain01": {"Cache-Control": {"s-maxage=60"}}}
	e, err := New(Options{Origin: origin, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close(t.Context()) })
	tests := []struct {
		method, path, csp, referrer string
	}{
		{"GET", "/form001", "form-action 'self' https: http:", "no-referrer"},
		{"POST", "/unlock/form001", "form-action 'self' https: http:", "no-referrer"},
		{"GET", "/plain01", edgespec.StrictCSP, "strict-origin-when-cross-origin"},
		{"GET", "/v1/links", edgespec.StrictCSP, "strict-origin-when-cross-origin"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(tt.method, "http://sho.rt"+tt.path, nil))
		assert.Equal(t, tt.csp, rec.Header().Get("Content-Security-Policy"), tt.path)
		assert.Equal(t, tt.referrer, rec.Header().Get("Referrer-Policy"), tt.path)
		assert.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"), tt.path)
	}
}
