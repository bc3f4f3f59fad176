package infra_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/infra/edge"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestDistributionMatchesTheDescription reads each synthesized variant's
// distribution back and compares it with edgespec.Distribution for that
// configuration, which the local edge plays: behaviours in order with
// their methods, viewer protocol, compression, cache, origin request and
// response headers policies, function associations and real-time log; the
// origins, origin groups, error responses, log fields and web ACL. A
// change made to the CDK side alone, or to the description alone, fails
// here.
func TestDistributionMatchesTheDescription(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			opts := edgespec.Options{
				WAF: s.cfg.WAF, WAFRateLimit: s.cfg.WAFRateLimit,
				Failover: len(infra.RedirectOriginRegions(s.cfg)) > 1,
				Console:  true,
			}
			if s.stacks.Data.Auth != nil {
				// The console's CSP lets it fetch the hosted domain's tokens.
				opts.ConsoleTokenOrigin = "https://shortener-sho-rt.auth.eu-west-1.amazoncognito.com"
			}
			spec := edgespec.Distribution(opts)
			assert.Equal(t, spec, s.stacks.Edge.Edge.Spec, "the edge was built from the description of its configuration")
			tp := s.edge()
			dists := tp.resources("AWS::CloudFront::Distribution")
			require.Len(t, dists, 1)
			d := get(dists[0].Props, "DistributionConfig").(map[string]any)
			assert.Equal(t, spec.Comment, d["Comment"])

			behaviors := asSlice(d["CacheBehaviors"])
			require.Len(t, behaviors, len(spec.Behaviors))
			for i, sb := range spec.Behaviors {
				checkBehavior(t, tp, d, sb, behaviors[i].(map[string]any))
			}
			def := d["DefaultCacheBehavior"].(map[string]any)
			assert.Nil(t, def["PathPattern"])
			checkBehavior(t, tp, d, spec.Default, def)
			if t.Failed() {
				t.Logf("the distribution: %s", toJSON(d))
			}

			var responses []edgespec.ErrorResponse
			for _, r := range asSlice(d["CustomErrorResponses"]) {
				responses = append(responses, edgespec.ErrorResponse{
					Status: int(get(r, "ErrorCode").(float64)), CachingMinTTLSeconds: int(get(r, "ErrorCachingMinTTL").(float64)),
				})
				assert.Nil(t, get(r, "ResponsePagePath"), "error responses set caching minimums only")
			}
			assert.Equal(t, spec.ErrorResponses, responses)

			if spec.WebACL == nil {
				assert.Nil(t, d["WebACLId"])
				assert.Empty(t, tp.resources("AWS::WAFv2::WebACL"))
			} else {
				acls := tp.resources("AWS::WAFv2::WebACL")
				require.Len(t, acls, 1)
				assert.Equal(t, map[string]any{"Fn::GetAtt": []any{acls[0].ID, "Arn"}}, d["WebACLId"])
				rules := map[string]any{}
				for _, r := range asSlice(acls[0].Props["Rules"]) {
					rules[get(r, "Name").(string)] = r
				}
				assert.Len(t, rules, 2)
				require.Contains(t, rules, spec.WebACL.RateRule)
				require.Contains(t, rules, spec.WebACL.CanonicalPathRule)
				assert.Equal(t, float64(spec.WebACL.RateLimit), get(rules[spec.WebACL.RateRule], "Statement", "RateBasedStatement", "Limit"))
			}
		})
	}
}

// checkBehavior compares one behaviour of the template with sb.
func checkBehavior(t *testing.T, tp tpl, d map[string]any, sb edgespec.Behavior, b map[string]any) {
	t.Helper()
	name := sb.PathPattern
	if name != edgespec.DefaultPathPattern {
		assert.Equal(t, sb.PathPattern, b["PathPattern"], "behaviours in the description's order")
	}
	assert.Equal(t, string(sb.ViewerProtocol), b["ViewerProtocolPolicy"], name)
	assert.ElementsMatch(t, strs(sb.AllowedMethods), b["AllowedMethods"], name)
	assert.ElementsMatch(t, strs(sb.CachedMethods), b["CachedMethods"], name)
	assert.Equal(t, sb.Compress, b["Compress"], name)

	// The cache policy: a managed one by its ID, a custom one by its key
	// and TTLs.
	if cp := sb.CachePolicy; cp.Managed != "" {
		assert.Equal(t, cp.ManagedID, b["CachePolicyId"], name)
	} else {
		res := tp.resource(refID(t, b["CachePolicyId"]))
		require.Equal(t, "AWS::CloudFront::CachePolicy", res.Type, name)
		c := get(res.Props, "CachePolicyConfig").(map[string]any)
		assert.Equal(t, cp.Comment, c["Comment"], name)
		assert.Equal(t, float64(cp.MinTTLSeconds), c["MinTTL"], name)
		assert.Equal(t, float64(cp.DefaultTTLSeconds), c["DefaultTTL"], name)
		assert.Equal(t, float64(cp.MaxTTLSeconds), c["MaxTTL"], name)
		key := c["ParametersInCacheKeyAndForwardedToOrigin"].(map[string]any)
		assert.Equal(t, cp.AcceptEncodingGzip, key["EnableAcceptEncodingGzip"], name)
		assert.Equal(t, cp.AcceptEncodingBrotli, key["EnableAcceptEncodingBrotli"], name)
		checkKey(t, name+" cache headers", cp.Headers, get(key, "HeadersConfig", "HeaderBehavior"), get(key, "HeadersConfig", "Headers"))
		checkKey(t, name+" cache cookies", cp.Cookies, get(key, "CookiesConfig", "CookieBehavior"), get(key, "CookiesConfig", "Cookies"))
		checkKey(t, name+" cache query", cp.QueryStrings, get(key, "QueryStringsConfig", "QueryStringBehavior"), get(key, "QueryStringsConfig", "QueryStrings"))
	}

	if rp := sb.OriginRequestPolicy; rp == nil {
		assert.Nil(t, b["OriginRequestPolicyId"], name)
	} else if rp.Managed != "" {
		assert.Equal(t, rp.ManagedID, b["OriginRequestPolicyId"], "%s: the managed %s", name, rp.Managed)
	} else {
		res := tp.resource(refID(t, b["OriginRequestPolicyId"]))
		require.Equal(t, "AWS::CloudFront::OriginRequestPolicy", res.Type, name)
		c := get(res.Props, "OriginRequestPolicyConfig").(map[string]any)
		assert.Equal(t, rp.Comment, c["Comment"], name)
		headers := edgespec.KeyValues{Behavior: rp.Headers.Behavior, Names: rp.HeaderNames()}
		checkKey(t, name+" origin headers", headers, get(c, "HeadersConfig", "HeaderBehavior"), get(c, "HeadersConfig", "Headers"))
		checkKey(t, name+" origin cookies", rp.Cookies, get(c, "CookiesConfig", "CookieBehavior"), get(c, "CookiesConfig", "Cookies"))
		checkKey(t, name+" origin query", rp.QueryStrings, get(c, "QueryStringsConfig", "QueryStringBehavior"), get(c, "QueryStringsConfig", "QueryStrings"))
	}

	if hp := sb.ResponseHeadersPolicy; hp == nil {
		assert.Nil(t, b["ResponseHeadersPolicyId"], name)
	} else {
		res := tp.resource(refID(t, b["ResponseHeadersPolicyId"]))
		require.Equal(t, "AWS::CloudFront::ResponseHeadersPolicy", res.Type, name)
		c := get(res.Props, "ResponseHeadersPolicyConfig").(map[string]any)
		assert.Equal(t, hp.Comment, c["Comment"], name)
		assert.Equal(t, hp.Headers(), templateHeaders(t, c), name)
	}

	var assocs []edgespec.FunctionAssociation
	for _, a := range asSlice(get(b, "FunctionAssociations")) {
		fn := tp.resource(refID(t, get(a, "FunctionARN")))
		require.Equal(t, "AWS::CloudFront::Function", fn.Type, name)
		assert.Equal(t, "cloudfront-js-2.0", get(fn.Props, "FunctionConfig", "Runtime"), name)
		assocs = append(assocs, edgespec.FunctionAssociation{
			EventType: edgespec.FunctionEventType(fmt.Sprint(get(a, "EventType"))),
			Function:  functionName(fn),
		})
	}
	assert.Equal(t, sb.Functions, assocs, name)

	if sb.RealtimeLog {
		res := tp.resource(refID(t, b["RealtimeLogConfigArn"]))
		require.Equal(t, "AWS::CloudFront::RealtimeLogConfig", res.Type, name)
		assert.Equal(t, strs(edgespec.Distribution(edgespec.Options{}).RealtimeLog.Fields), res.Props["Fields"], name)
		assert.Equal(t, 100.0, res.Props["SamplingRate"], name)
	} else {
		assert.Nil(t, b["RealtimeLogConfigArn"], name)
	}

	checkTarget(t, d, name, sb.TargetOrigin, fmt.Sprint(b["TargetOriginId"]))
}

// refID is the logical ID a Ref or Fn::GetAtt names.
func refID(t *testing.T, v any) string {
	t.Helper()
	if id, ok := get(v, "Ref").(string); ok {
		return id
	}
	if id, ok := get(v, "Fn::GetAtt", 0).(string); ok {
		return id
	}
	t.Errorf("not a reference to a resource: %s", toJSON(v))
	return ""
}

// functionName tells which of the description's functions a template's
// function is, by its code.
func functionName(fn resource) string {
	switch code, _ := fn.Props["FunctionCode"].(string); {
	case code == edge.CanonicalPathFunctionCode:
		return edgespec.CanonicalPathFunction
	case code == edge.QueryForwardFunctionCode:
		return edgespec.QueryForwardFunction
	case strings.Contains(code, "'/console/index.html'"):
		return edgespec.ConsoleRewriteFunctionName
	}
	return "unknown function " + fn.ID
}

// checkTarget compares a behaviour's target with the description's
// origin or origin group id.
func checkTarget(t *testing.T, d map[string]any, name, id, targetID string) {
	t.Helper()
	spec := edgespec.Distribution(edgespec.Options{Failover: true, Console: true})
	if g, ok := spec.Group(id); ok {
		var group any
		for _, og := range asSlice(get(d, "OriginGroups", "Items")) {
			if get(og, "Id") == targetID {
				group = og
			}
		}
		require.NotNil(t, group, "%s: the origin group", name)
		var codes []int
		for _, c := range asSlice(get(group, "FailoverCriteria", "StatusCodes", "Items")) {
			codes = append(codes, int(c.(float64)))
		}
		assert.ElementsMatch(t, g.FailoverStatusCodes, codes, name)
		members := asSlice(get(group, "Members", "Items"))
		require.Len(t, members, 2, name)
		checkOrigin(t, d, name+" primary", g.Primary, fmt.Sprint(get(members[0], "OriginId")))
		checkOrigin(t, d, name+" fallback", g.Fallback, fmt.Sprint(get(members[1], "OriginId")))
		return
	}
	checkOrigin(t, d, name, id, targetID)
}

// checkOrigin compares the template's origin originID with the
// description's origin id.
func checkOrigin(t *testing.T, d map[string]any, name, id, originID string) {
	t.Helper()
	so, ok := edgespec.Distribution(edgespec.Options{Failover: true, Console: true}).Origin(id)
	require.True(t, ok, "%s: origin %s", name, id)
	var o map[string]any
	for _, x := range asSlice(d["Origins"]) {
		if get(x, "Id") == originID {
			o = x.(map[string]any)
		}
	}
	require.NotNil(t, o, "%s: origin %s", name, originID)
	domain := toJSON(o["DomainName"])
	switch so.Kind {
	case edgespec.RedirectOrigin:
		assert.Contains(t, domain, "RedirectApi", name)
	case edgespec.ManagementOrigin:
		assert.NotContains(t, domain, "RedirectApi", name)
	case edgespec.ConsoleBucket:
		assert.NotNil(t, o["S3OriginConfig"], name)
		assert.NotNil(t, o["OriginAccessControlId"], name)
		return
	}
	var headers []string
	for _, h := range asSlice(o["OriginCustomHeaders"]) {
		headers = append(headers, fmt.Sprint(get(h, "HeaderName")))
	}
	assert.Equal(t, so.CustomHeaders, headers, name)
	c, _ := o["CustomOriginConfig"].(map[string]any)
	assert.Equal(t, "https-only", c["OriginProtocolPolicy"], name)
	assert.Equal(t, []any{"TLSv1.2"}, c["OriginSSLProtocols"], name)
	assert.Equal(t, float64(so.ReadTimeoutSeconds), c["OriginReadTimeout"], name)
	assert.Equal(t, float64(so.ConnectionAttempts), o["ConnectionAttempts"], name)
	assert.Equal(t, float64(so.ConnectionTimeoutSeconds), o["ConnectionTimeout"], name)
}

// checkKey compares one kind of a policy's key (headers, cookies or query
// strings) with the template's behaviour and names.
func checkKey(t *testing.T, what string, want edgespec.KeyValues, behavior, names any) {
	t.Helper()
	assert.Equal(t, string(want.Behavior), behavior, what)
	var got []string
	for _, n := range asSlice(names) {
		got = append(got, strings.ToLower(fmt.Sprint(n)))
	}
	var wantNames []string
	for _, n := range want.Names {
		wantNames = append(wantNames, strings.ToLower(n))
	}
	sort.Strings(got)
	sort.Strings(wantNames)
	assert.Equal(t, wantNames, got, what)
}

// templateHeaders are the headers a response headers policy's template
// sets, written as CloudFront sends them, in edgespec's order.
func templateHeaders(t *testing.T, c map[string]any) []edgespec.Header {
	t.Helper()
	var out []edgespec.Header
	sec, _ := c["SecurityHeadersConfig"].(map[string]any)
	override := func(h any) bool { return get(h, "Override") == true }
	if h := sec["StrictTransportSecurity"]; h != nil {
		v := fmt.Sprintf("max-age=%d", int(get(h, "AccessControlMaxAgeSec").(float64)))
		if get(h, "IncludeSubdomains") == true {
			v += "; includeSubDomains"
		}
		if get(h, "Preload") == true {
			v += "; preload"
		}
		out = append(out, edgespec.Header{Name: "Strict-Transport-Security", Value: v, Override: override(h)})
	}
	if h := sec["ContentTypeOptions"]; h != nil {
		out = append(out, edgespec.Header{Name: "X-Content-Type-Options", Value: "nosniff", Override: override(h)})
	}
	if h := sec["FrameOptions"]; h != nil {
		out = append(out, edgespec.Header{Name: "X-Frame-Options", Value: get(h, "FrameOption").(string), Override: override(h)})
	}
	if h := sec["ReferrerPolicy"]; h != nil {
		out = append(out, edgespec.Header{Name: "Referrer-Policy", Value: get(h, "ReferrerPolicy").(string), Override: override(h)})
	}
	if h := sec["ContentSecurityPolicy"]; h != nil {
		out = append(out, edgespec.Header{Name: "Content-Security-Policy", Value: get(h, "ContentSecurityPolicy").(string), Override: override(h)})
	}
	if h := sec["XSSProtection"]; h != nil {
		v := "0"
		if get(h, "Protection") == true {
			v = "1"
			if get(h, "ModeBlock") == true {
				v += "; mode=block"
			}
			if u, ok := get(h, "ReportUri").(string); ok {
				v += "; report=" + u
			}
		}
		out = append(out, edgespec.Header{Name: "X-XSS-Protection", Value: v, Override: override(h)})
	}
	for _, h := range asSlice(get(c, "CustomHeadersConfig", "Items")) {
		out = append(out, edgespec.Header{Name: get(h, "Header").(string), Value: get(h, "Value").(string), Override: override(h)})
	}
	assert.Nil(t, c["RemoveHeadersConfig"], "the description removes no headers")
	assert.Nil(t, c["CorsConfig"], "the description sets no CORS")
	assert.Nil(t, c["ServerTimingHeadersConfig"], "the description sets no Server-Timing")
	return out
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
