package infra_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/infra/webconsole"
)

// TestConsole: the web console is a private bucket read only through an
// origin access control, three behaviours on the distribution (the hashed
// assets first, cached and immutable; the HTML never cached, behind the
// index rewrite), response headers policies with the strict CSP, and the
// build deployed under console/.
func TestConsole(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		e := s.edge()

		// The bucket: nothing public, TLS only.
		buckets := e.resources("AWS::S3::Bucket")
		require.Len(t, buckets, 1)
		bucket := buckets[0]
		assert.Equal(t, map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
			bucket.Props["PublicAccessBlockConfiguration"])
		var policy resource
		for _, p := range e.resources("AWS::S3::BucketPolicy") {
			if get(p.Props, "Bucket", "Ref") == bucket.ID {
				policy = p
			}
		}
		require.NotNil(t, policy.Props, "a bucket policy")
		var cloudfrontRead, denyInsecure bool
		for _, st := range asSlice(get(policy.Props, "PolicyDocument", "Statement")) {
			js := toJSON(st)
			if get(st, "Effect") == "Allow" && get(st, "Principal", "Service") == "cloudfront.amazonaws.com" {
				cloudfrontRead = true
				assert.Equal(t, "s3:GetObject", get(st, "Action"), "read only")
				assert.Contains(t, js, "AWS:SourceArn", "only this distribution")
				assert.Contains(t, js, "distribution/")
			}
			if get(st, "Effect") == "Deny" && strings.Contains(js, "aws:SecureTransport") {
				denyInsecure = true
			}
			assert.NotEqual(t, "*", get(st, "Principal"), "no public principal: %s", js)
		}
		assert.True(t, cloudfrontRead, "CloudFront reads the bucket through the OAC")
		assert.True(t, denyInsecure, "TLS only")
		oacs := e.resources("AWS::CloudFront::OriginAccessControl")
		require.Len(t, oacs, 1)
		assert.Equal(t, "s3", get(oacs[0].Props, "OriginAccessControlConfig", "OriginAccessControlOriginType"))
		assert.Equal(t, "always", get(oacs[0].Props, "OriginAccessControlConfig", "SigningBehavior"))

		// The behaviours, in the order CloudFront matches them.
		d := e.resources("AWS::CloudFront::Distribution")[0].Props["DistributionConfig"].(map[string]any)
		var s3Origin string
		for _, o := range asSlice(d["Origins"]) {
			if get(o, "S3OriginConfig") != nil {
				s3Origin = get(o, "Id").(string)
				assert.Equal(t, map[string]any{"Fn::GetAtt": []any{oacs[0].ID, "Id"}}, get(o, "OriginAccessControlId"))
			}
		}
		require.NotEmpty(t, s3Origin)
		var patterns []string
		byPattern := map[string]map[string]any{}
		for _, b := range asSlice(d["CacheBehaviors"]) {
			p := get(b, "PathPattern").(string)
			patterns = append(patterns, p)
			byPattern[p] = b.(map[string]any)
		}
		assert.Equal(t, []string{"/unlock/*", "/v1/*", webconsole.AssetsPathPattern, webconsole.HTMLPathPattern, webconsole.RootPathPattern}, patterns,
			"/console/assets/* must come before /console/*, which matches it too")

		const cachingDisabled, cachingOptimized = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad", "658327ea-f89d-4fab-a63d-7e88639e58f6"
		for _, p := range []string{webconsole.AssetsPathPattern, webconsole.HTMLPathPattern, webconsole.RootPathPattern} {
			b := byPattern[p]
			assert.Equal(t, s3Origin, b["TargetOriginId"], p)
			assert.Equal(t, []any{"GET", "HEAD"}, b["AllowedMethods"], p)
			assert.Equal(t, "redirect-to-https", b["ViewerProtocolPolicy"], p)
			headers := e.resource(get(b, "ResponseHeadersPolicyId", "Ref").(string))
			cfg := headers.Props["ResponseHeadersPolicyConfig"].(map[string]any)
			assert.Equal(t, consoleCSP(s), get(cfg, "SecurityHeadersConfig", "ContentSecurityPolicy", "ContentSecurityPolicy"), p)
			assert.Equal(t, true, get(cfg, "SecurityHeadersConfig", "ContentSecurityPolicy", "Override"), p)
			assert.NotContains(t, console.ContentSecurityPolicy, "unsafe-inline")
			assert.Equal(t, "DENY", get(cfg, "SecurityHeadersConfig", "FrameOptions", "FrameOption"), p)
			custom := asSlice(get(cfg, "CustomHeadersConfig", "Items"))
			require.Len(t, custom, 1, p)
			assert.Equal(t, "Cache-Control", get(custom[0], "Header"), p)
			assert.Equal(t, true, get(custom[0], "Override"), p)
			if p == webconsole.AssetsPathPattern {
				assert.Equal(t, cachingOptimized, b["CachePolicyId"], "hashed assets are cached")
				assert.Equal(t, console.AssetCacheControl, get(custom[0], "Value"))
				assert.Nil(t, b["FunctionAssociations"])
			} else {
				assert.Equal(t, cachingDisabled, b["CachePolicyId"], "the HTML is never cached")
				assert.Equal(t, console.HTMLCacheControl, get(custom[0], "Value"), p)
				fa := asSlice(b["FunctionAssociations"])
				require.Len(t, fa, 1, p)
				assert.Equal(t, "viewer-request", get(fa[0], "EventType"))
			}
		}

		// The rewrite function, and the deployment under console/.
		var fns []resource
		for _, f := range e.resources("AWS::CloudFront::Function") {
			if strings.HasPrefix(f.ID, "Console") {
				fns = append(fns, f)
			}
		}
		require.Len(t, fns, 1)
		code := fns[0].Props["FunctionCode"].(string)
		assert.Contains(t, code, "'/console/index.html'")
		assert.Contains(t, code, "statusCode: 301")
		assert.Equal(t, "cloudfront-js-2.0", get(fns[0].Props, "FunctionConfig", "Runtime"))
		deployments := e.resources("Custom::CDKBucketDeployment")
		require.Len(t, deployments, 2, "assets, then the HTML")
		for _, dep := range deployments {
			assert.Equal(t, webconsole.KeyPrefix, dep.Props["DestinationBucketKeyPrefix"])
			assert.Equal(t, map[string]any{"Ref": bucket.ID}, dep.Props["DestinationBucketName"])
		}
	}
}

// consoleCSP is the console's CSP in s: with sign-in, connect-src allows
// the hosted domain (the custom deployment's prefix and primary Region).
func consoleCSP(s *synthesized) string {
	if s.stacks.Data.Auth == nil {
		return console.ContentSecurityPolicy
	}
	return console.CSP("https://shortener-sho-rt.auth.eu-west-1.amazoncognito.com")
}

// TestConsoleSignInConfig: the console's config.json goes to the bucket
// with the HTML: empty with sign-in off; with it, the hosted domain's
// endpoints, the console's own URL as redirect URI, and the issuer and
// app client read from the data stack at deploy time. The CSP lets the
// console fetch the hosted domain's token endpoint and nothing more.
func TestConsoleSignInConfig(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		e := s.edge()
		var html resource
		for _, dep := range e.resources("Custom::CDKBucketDeployment") {
			if toJSON(get(dep.Props, "Exclude")) == `["assets/*"]` {
				html = dep
			}
		}
		require.NotNil(t, html.Props, "%s: the HTML deployment", s.name)
		assert.Len(t, asSlice(html.Props["SourceObjectKeys"]), 2, "%s: the build and config.json", s.name)

		var configs []map[string]any
		require.NoError(t, filepath.WalkDir(s.outDir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == console.ConfigKey {
				b, rerr := os.ReadFile(path)
				require.NoError(t, rerr)
				var m map[string]any
				require.NoError(t, json.Unmarshal(b, &m), "%s: %s", path, b)
				configs = append(configs, m)
			}
			return err
		}))
		require.Len(t, configs, 1, s.name)
		c := configs[0]

		var csps []string
		for _, p := range e.resources("AWS::CloudFront::ResponseHeadersPolicy") {
			cfg := p.Props["ResponseHeadersPolicyConfig"].(map[string]any)
			if strings.HasPrefix(p.ID, "Console") {
				csps = append(csps, get(cfg, "SecurityHeadersConfig", "ContentSecurityPolicy", "ContentSecurityPolicy").(string))
			}
		}
		require.Len(t, csps, 2, s.name)
		if s.stacks.Data.Auth == nil {
			assert.Empty(t, c, "sign-in off: the console offers the API key only")
			assert.Equal(t, []string{console.ContentSecurityPolicy, console.ContentSecurityPolicy}, csps)
			assert.Nil(t, html.Props["SourceMarkers"], "nothing read at deploy time")
			continue
		}
		const hosted = "https://shortener-sho-rt.auth.eu-west-1.amazoncognito.com"
		a := c["auth"].(map[string]any)
		assert.Equal(t, hosted+"/oauth2/authorize", a["authorizeUrl"])
		assert.Equal(t, hosted+"/oauth2/token", a["tokenUrl"])
		assert.Equal(t, hosted+"/logout", a["logoutUrl"])
		assert.Equal(t, "https://sho.rt/console/", a["redirectUri"], "the app client's callback URL")
		assert.Equal(t, console.Scope, a["scope"])
		// The issuer and client are the data stack's, filled in when the
		// deployment runs.
		assert.NotEmpty(t, a["issuer"])
		assert.NotEmpty(t, a["clientId"])
		markers := toJSON(html.Props["SourceMarkers"])
		assert.Contains(t, markers, "Fn::GetStackOutput", "a weak reference to the data stack")
		assert.Contains(t, markers, "https://cognito-idp.eu-west-1.amazonaws.com/")

		want := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self' " + hosted +
			"; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
		assert.Equal(t, []string{want, want}, csps, "the token endpoint's origin, nothing broader")
	}
}
