package webconsole

import (
	"path/filepath"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3deployment"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/infra/edge"
)

// The behaviours' path patterns. "/console" alone is its own behaviour so
// that a short link such as /consolation stays a redirect.
const (
	RootPathPattern   = "/console"
	HTMLPathPattern   = "/console/*"
	AssetsPathPattern = "/console/assets/*"
)

// KeyPrefix is where the build goes in the bucket: CloudFront asks S3 for
// the viewer's path without its leading slash, so /console/index.html is
// the key console/index.html.
const KeyPrefix = "console/"

// Props configure the console.
type Props struct {
	// BuildDir is the console's build output (console/build.mjs): index.html
	// and assets/.
	BuildDir string
}

// Console is the bucket, its deployment, and what the distribution needs
// to serve it.
type Console struct {
	Construct    constructs.Construct
	Bucket       awss3.Bucket
	Deployment   awss3deployment.BucketDeployment
	Rewrite      awscloudfront.Function
	HTMLHeaders  awscloudfront.ResponseHeadersPolicy
	AssetHeaders awscloudfront.ResponseHeadersPolicy
	// Behaviors go into the distribution, in this order: the assets'
	// pattern before /console/*, which would match them too.
	Behaviors []edge.Behavior
}

// rewriteCode is the viewer-request function: /console answers a 301 to
// /console/ (the page's relative links need the slash) and /console/ is
// index.html, since S3 has no directory index behind an origin access
// control. https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/example-function-add-index.html
const rewriteCode = `function handler(event) {
  var r = event.request;
  if (r.uri === '/console') {
    return { statusCode: 301, statusDescription: 'Moved Permanently',
      headers: { location: { value: '/console/' }, 'cache-control': { value: 'no-store' } } };
  }
  if (r.uri === '/console/') {
    r.uri = '/console/index.html';
  }
  return r;
}`

// New creates the console's bucket, deployment, function and policies. It
// must be in the distribution's stack: the origin access control's bucket
// policy names the distribution.
func New(scope constructs.Construct, id string, p Props) *Console {
	c := constructs.NewConstruct(scope, jsii.String(id))
	bucket := awss3.NewBucket(c, jsii.String("Bucket"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		// The build is in the repository: a deleted stack loses nothing.
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	// Object metadata says the same as the headers policies, for a reader
	// of the bucket; the policies are what viewers get.
	assets := awss3deployment.NewBucketDeployment(c, jsii.String("Assets"), &awss3deployment.BucketDeploymentProps{
		DestinationBucket:    bucket,
		DestinationKeyPrefix: jsii.String(KeyPrefix),
		Sources:              &[]awss3deployment.ISource{awss3deployment.Source_Asset(jsii.String(p.BuildDir), nil)},
		Exclude:              jsii.Strings("*"),
		Include:              jsii.Strings("assets/*"),
		CacheControl:         &[]awss3deployment.CacheControl{awss3deployment.CacheControl_FromString(jsii.String(console.AssetCacheControl))},
		// Old hashed assets stay, for pages loaded before a deploy.
		Prune:       jsii.Bool(false),
		MemoryLimit: jsii.Number(256),
	})
	html := awss3deployment.NewBucketDeployment(c, jsii.String("HTML"), &awss3deployment.BucketDeploymentProps{
		DestinationBucket:    bucket,
		DestinationKeyPrefix: jsii.String(KeyPrefix),
		Sources:              &[]awss3deployment.ISource{awss3deployment.Source_Asset(jsii.String(p.BuildDir), nil)},
		Exclude:              jsii.Strings("assets/*"),
		CacheControl:         &[]awss3deployment.CacheControl{awss3deployment.CacheControl_FromString(jsii.String(console.HTMLCacheControl))},
		Prune:                jsii.Bool(false),
		MemoryLimit:          jsii.Number(256),
	})
	// The HTML names the assets: they are in the bucket before it.
	html.Node().AddDependency(assets)

	rewrite := awscloudfront.NewFunction(c, jsii.String("Rewrite"), &awscloudfront.FunctionProps{
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(rewriteCode)),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
		Comment: jsii.String("Console: /console -> /console/, /console/ -> index.html"),
	})
	htmlHeaders := headersPolicy(c, "HTMLHeaders", "Console HTML: strict CSP, never cached", console.HTMLCacheControl)
	assetHeaders := headersPolicy(c, "AssetHeaders", "Console assets: strict CSP, content-hashed so immutable", console.AssetCacheControl)

	origin := awscloudfrontorigins.S3BucketOrigin_WithOriginAccessControl(bucket, &awscloudfrontorigins.S3BucketOriginWithOACProps{
		OriginAccessLevels: &[]awscloudfront.AccessLevel{awscloudfront.AccessLevel_READ},
	})
	htmlBehavior := &awscloudfront.AddBehaviorOptions{
		ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_REDIRECT_TO_HTTPS,
		AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_GET_HEAD(),
		CachedMethods:         awscloudfront.CachedMethods_CACHE_GET_HEAD(),
		CachePolicy:           awscloudfront.CachePolicy_CACHING_DISABLED(),
		ResponseHeadersPolicy: htmlHeaders,
		Compress:              jsii.Bool(true),
		FunctionAssociations: &[]*awscloudfront.FunctionAssociation{{
			EventType: awscloudfront.FunctionEventType_VIEWER_REQUEST, Function: rewrite,
		}},
	}
	assetBehavior := &awscloudfront.AddBehaviorOptions{
		ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_REDIRECT_TO_HTTPS,
		AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_GET_HEAD(),
		CachedMethods:         awscloudfront.CachedMethods_CACHE_GET_HEAD(),
		CachePolicy:           awscloudfront.CachePolicy_CACHING_OPTIMIZED(),
		ResponseHeadersPolicy: assetHeaders,
		Compress:              jsii.Bool(true),
	}
	return &Console{
		Construct: c, Bucket: bucket, Deployment: html, Rewrite: rewrite,
		HTMLHeaders: htmlHeaders, AssetHeaders: assetHeaders,
		Behaviors: []edge.Behavior{
			{PathPattern: AssetsPathPattern, Origin: origin, Options: assetBehavior},
			{PathPattern: HTMLPathPattern, Origin: origin, Options: htmlBehavior},
			{PathPattern: RootPathPattern, Origin: origin, Options: htmlBehavior},
		},
	}
}

// headersPolicy sets the console's security headers and Cache-Control,
// overriding whatever the origin sent. A Cache-Control added by a response
// headers policy reaches viewers only; it does not change how CloudFront
// caches (the cache policy does):
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/modifying-response-headers.html
func headersPolicy(scope constructs.Construct, id, comment, cacheControl string) awscloudfront.ResponseHeadersPolicy {
	return awscloudfront.NewResponseHeadersPolicy(scope, jsii.String(id), &awscloudfront.ResponseHeadersPolicyProps{
		Comment: jsii.String(comment),
		SecurityHeadersBehavior: &awscloudfront.ResponseSecurityHeadersBehavior{
			ContentSecurityPolicy: &awscloudfront.ResponseHeadersContentSecurityPolicy{
				ContentSecurityPolicy: jsii.String(console.ContentSecurityPolicy), Override: jsii.Bool(true),
			},
			StrictTransportSecurity: &awscloudfront.ResponseHeadersStrictTransportSecurity{
				AccessControlMaxAge: awscdk.Duration_Days(jsii.Number(730)), IncludeSubdomains: jsii.Bool(true), Override: jsii.Bool(true),
			},
			ContentTypeOptions: &awscloudfront.ResponseHeadersContentTypeOptions{Override: jsii.Bool(true)},
			FrameOptions: &awscloudfront.ResponseHeadersFrameOptions{
				FrameOption: awscloudfront.HeadersFrameOption_DENY, Override: jsii.Bool(true),
			},
			ReferrerPolicy: &awscloudfront.ResponseHeadersReferrerPolicy{
				ReferrerPolicy: awscloudfront.HeadersReferrerPolicy_NO_REFERRER, Override: jsii.Bool(true),
			},
		},
		CustomHeadersBehavior: &awscloudfront.ResponseCustomHeadersBehavior{
			CustomHeaders: &[]*awscloudfront.ResponseCustomHeader{{
				Header: jsii.String("Cache-Control"), Value: jsii.String(cacheControl), Override: jsii.Bool(true),
			}},
		},
	})
}

// BuildDir is the console's build below a make build asset folder.
func BuildDir(assetDir string) string {
	return filepath.Join(assetDir, strings.TrimPrefix(console.BuildDir, "build/"))
}
