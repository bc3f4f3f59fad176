package edgespec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*", "/", true},
		{"*", "/abc", true},
		{"/v1/*", "/v1/links", true},
		{"/v1/*", "/v1/", true},
		{"/v1/*", "/v1", false},
		{"/v1/*", "/v10/x", false},
		{"/console", "/console", true},
		{"/console", "/consolation", false},
		{"/console/*", "/console/", true},
		{"/console/assets/*", "/console/assets/app-1.js", true},
		{"/unlock/*", "/unlock/abc", true},
		{"/unlock/*", "/UNLOCK/abc", false},
		{"v1/*", "/v1/x", true},
		{"/a?c", "/abc", true},
		{"/a?c", "/ac", false},
		{"/*.js", "/x/y.js", true},
		{"/*.js", "/x/y.jsx", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			assert.Equal(t, tt.want, MatchPattern(tt.pattern, tt.path))
		})
	}
}

func TestDistributionVariants(t *testing.T) {
	tests := []struct {
		name         string
		opts         Options
		patterns     []string
		target       string
		functions    []FunctionAssociation
		webACL       bool
		originGroups int
	}{
		{
			name: "defaults", opts: Options{},
			patterns: []string{UnlockPathPattern, ManagementPathPattern},
			target:   RedirectOriginID,
			functions: []FunctionAssociation{{EventType: ViewerRequest, Function: CanonicalPathFunction},
				{EventType: ViewerResponse, Function: QueryForwardFunction}},
		},
		{
			name: "everything", opts: Options{WAF: true, WAFRateLimit: 500, Failover: true, Console: true},
			patterns:     []string{UnlockPathPattern, ManagementPathPattern, ConsoleAssetsPattern, ConsoleHTMLPattern, ConsoleRootPattern},
			target:       RedirectGroupID,
			functions:    []FunctionAssociation{{EventType: ViewerResponse, Function: QueryForwardFunction}},
			webACL:       true,
			originGroups: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Distribution(tt.opts)
			var got []string
			for _, b := range d.Behaviors {
				got = append(got, b.PathPattern)
				_, isOrigin := d.Origin(b.TargetOrigin)
				require.True(t, isOrigin, "%s: the unlock, /v1 and console behaviours go to one origin (POST never fails over)", b.PathPattern)
			}
			assert.Equal(t, tt.patterns, got)
			assert.Equal(t, tt.target, d.Default.TargetOrigin)
			assert.Equal(t, tt.functions, d.Default.Functions)
			assert.Equal(t, tt.webACL, d.WebACL != nil)
			assert.Len(t, d.OriginGroups, tt.originGroups)
			for _, g := range d.OriginGroups {
				assert.Equal(t, FailoverStatusCodes, g.FailoverStatusCodes)
			}
		})
	}
}

func TestMatchTakesTheFirstPattern(t *testing.T) {
	d := Distribution(Options{Console: true})
	tests := []struct{ path, want string }{
		{"/abcdefg", DefaultPathPattern},
		{"/consolation", DefaultPathPattern},
		{"/console", ConsoleRootPattern},
		{"/console/", ConsoleHTMLPattern},
		{"/console/assets/app.js", ConsoleAssetsPattern},
		{"/v1/links", ManagementPathPattern},
		{"/unlock/abc", UnlockPathPattern},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, d.Match(tt.path).PathPattern, tt.path)
	}
}

func TestResponseHeadersAsCloudFrontWritesThem(t *testing.T) {
	p := ResponseHeadersPolicy{
		Security: SecurityHeaders{
			StrictTransportSecurity: &StrictTransportSecurity{MaxAgeSeconds: HSTSMaxAgeSeconds, IncludeSubdomains: true, Override: true},
			ContentTypeOptions:      &ContentTypeOptions{Override: true},
			FrameOptions:            &FrameOptions{Option: "DENY"},
			ReferrerPolicy:          &ReferrerPolicy{Policy: "no-referrer"},
			ContentSecurityPolicy:   &ContentSecurityPolicy{Policy: "default-src 'none'", Override: true},
			XSSProtection:           &XSSProtection{Protection: true, ModeBlock: true},
		},
		Custom: []Header{{Name: "Cache-Control", Value: "no-store", Override: true}},
	}
	assert.Equal(t, []Header{
		{"Strict-Transport-Security", "max-age=63072000; includeSubDomains", true},
		{"X-Content-Type-Options", "nosniff", true},
		{"X-Frame-Options", "DENY", false},
		{"Referrer-Policy", "no-referrer", false},
		{"Content-Security-Policy", "default-src 'none'", true},
		{"X-XSS-Protection", "1; mode=block", false},
		{"Cache-Control", "no-store", true},
	}, p.Headers())
}

// TestRedirectPagesKeepTheirOwnCSPAndReferrerPolicy: on the redirect and
// unlock behaviours the origin's Content-Security-Policy and
// Referrer-Policy win (the password form's must), every other security
// header overrides as on /v1, and answers without their own still get the
// strict ones.
func TestRedirectPagesKeepTheirOwnCSPAndReferrerPolicy(t *testing.T) {
	d := Distribution(Options{})
	unlock := d.Match("/unlock/abc")
	require.Equal(t, UnlockPathPattern, unlock.PathPattern)
	api := d.Match("/v1/links")
	for _, b := range []Behavior{d.Default, unlock} {
		require.NotNil(t, b.ResponseHeadersPolicy, b.PathPattern)
		got := b.ResponseHeadersPolicy.Headers()
		want := api.ResponseHeadersPolicy.Headers()
		require.Len(t, got, len(want))
		for i, h := range got {
			assert.Equal(t, want[i].Name, h.Name)
			assert.Equal(t, want[i].Value, h.Value, h.Name)
			keep := h.Name == "Content-Security-Policy" || h.Name == "Referrer-Policy"
			assert.Equal(t, !keep, h.Override, "%s %s", b.PathPattern, h.Name)
		}
	}
	for _, h := range api.ResponseHeadersPolicy.Headers() {
		assert.True(t, h.Override, "/v1 %s", h.Name)
	}
	assert.Contains(t, StrictCSP, "form-action 'none'", "the default for pages without their own")
}

// TestEveryAliasReachesTheRedirect: a deployment may allow aliases of 1 to
// 100 characters (link.AliasSyntaxMinLen..AliasSyntaxMaxLen), and every
// one of them must reach the redirect behaviour, never a route of the
// service's; a path a behaviour routes elsewhere is a reserved word, so no
// alias can be made on it. Every 1- and 2-character segment is tried, and
// each behaviour's own path as a segment.
func TestEveryAliasReachesTheRedirect(t *testing.T) {
	d := Distribution(Options{WAF: true, Failover: true, Console: true})
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	var segments []string
	for _, a := range chars {
		segments = append(segments, string(a))
		for _, b := range chars {
			segments = append(segments, string(a)+string(b))
		}
	}
	segments = append(segments, strings.Repeat("k", link.AliasSyntaxMaxLen))
	for _, b := range d.Behaviors {
		segments = append(segments, strings.Trim(strings.TrimSuffix(b.PathPattern, "*"), "/"))
	}
	for _, s := range segments {
		if !link.IsAliasSyntax(s) {
			continue
		}
		if got := d.Match("/" + s).PathPattern; got != DefaultPathPattern {
			assert.True(t, link.IsReserved(s), "/%s goes to %s, yet an alias may be made on it", s, got)
		}
	}
	for _, s := range []string{"v1", "V1", "qr", "v2", "console", "_local", "healthz"} {
		assert.Nil(t, link.LookupKeys(s), "%s is a route, never a link", s)
	}
}

// TestManagementForwardsTheWorkspaceHeader: /v1's origin request policy
// passes X-Workspace (and Authorization) to API Gateway, whose authorizer
// reads it (docs/teams.md): every viewer header but Host.
func TestManagementForwardsTheWorkspaceHeader(t *testing.T) {
	b := Distribution(Options{}).Match("/v1/links")
	require.Equal(t, ManagementPathPattern, b.PathPattern)
	p := b.OriginRequestPolicy
	require.NotNil(t, p)
	assert.Equal(t, KeyAllExcept, p.Headers.Behavior)
	for _, h := range []string{"X-Workspace", AuthorizationHeader} {
		for _, except := range p.Headers.Names {
			assert.NotEqual(t, strings.ToLower(h), strings.ToLower(except), "%s reaches the origin", h)
		}
	}
}

// TestTheAPIBehaviourForwardsTheAPIHeaders: every header /v1 reads reaches
// the origin, the console's X-Shortener-Client among them (the audit log's
// source), in every variant of the distribution.
func TestTheAPIBehaviourForwardsTheAPIHeaders(t *testing.T) {
	for _, opts := range []Options{{}, {Console: true}} {
		p := Distribution(opts).Match("/v1/audit").OriginRequestPolicy
		require.NotNil(t, p)
		for _, h := range ForwardedAPIHeaders {
			switch p.Headers.Behavior {
			case KeyAllExcept:
				assert.NotContains(t, lower(p.Headers.Names), strings.ToLower(h), h)
			case KeyAllowList:
				assert.Contains(t, lower(p.Headers.Names), strings.ToLower(h), h)
			default:
				t.Fatalf("the /v1 policy forwards headers %q", p.Headers.Behavior)
			}
		}
	}
	assert.Contains(t, ForwardedAPIHeaders, "X-Shortener-Client")
}

func lower(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToLower(n)
	}
	return out
}
