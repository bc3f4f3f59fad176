package infra_test

import (
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
			assert.Equal(t, console.ContentSecurityPolicy, get(cfg, "SecurityHeadersConfig", "ContentSecurityPolicy", "ContentSecurityPolicy"), p)
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
