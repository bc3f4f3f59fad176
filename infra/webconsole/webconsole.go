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
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// The behaviours' path patterns (shared/edgespec). "/console" alone is its
// own behaviour so that a short link such as /consolation stays a redirect.
const (
	RootPathPattern   = edgespec.ConsoleRootPattern
	HTMLPathPattern   = edgespec.ConsoleHTMLPattern
	AssetsPathPattern = edgespec.ConsoleAssetsPattern
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
	// Auth is the sign-in the console offers beside the API key; nil
	// when sign-in is off.
	Auth *Auth
}

// Auth is the identity provider as the console needs it: the Cognito
// hosted domain's URL (a plain string: the console's CSP names its
// origin), and the issuer and app client, which may be tokens of the
// data stack.
type Auth struct {
	HostedDomainURL string
	Issuer          *string
	ClientID        *string
	// RedirectURI is the console's URL, the app client's callback and
	// sign-out URL.
	RedirectURI string
}

// config is the console's config.json (console.Config) for a: its
// values may be deploy-time tokens, which Source_JsonData resolves.
func config(a *Auth) map[string]any {
	if a == nil {
		return map[string]any{}
	}
	c := console.HostedAuth(a.HostedDomainURL, "", "", a.RedirectURI)
	return map[string]any{"auth": map[string]any{
		"issuer": a.Issuer, "clientId": a.ClientID,
		"authorizeUrl": c.AuthorizeURL, "tokenUrl": c.TokenURL, "logoutUrl": c.LogoutURL,
		"redirectUri": c.RedirectURI, "scope": c.Scope,
	}}
}

// TokenOrigin is the origin the console fetches tokens from with a (the
// hosted domain), "" without sign-in.
func (a *Auth) TokenOrigin() string {
	if a == nil {
		return ""
	}
	return console.Origin(a.HostedDomainURL, "")
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
	// Edge is what the distribution's console behaviours, which the edge
	// builds from the description (edgespec.Distribution with Console),
	// take from here: the bucket origin, the policies, the function.
	Edge *edge.Console
}

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
	// The HTML, and config.json: whether people sign in, and where.
	html := awss3deployment.NewBucketDeployment(c, jsii.String("HTML"), &awss3deployment.BucketDeploymentProps{
		DestinationBucket:    bucket,
		DestinationKeyPrefix: jsii.String(KeyPrefix),
		Sources: &[]awss3deployment.ISource{
			awss3deployment.Source_Asset(jsii.String(p.BuildDir), nil),
			awss3deployment.Source_JsonData(jsii.String(console.ConfigKey), config(p.Auth), nil),
		},
		Exclude:      jsii.Strings("assets/*"),
		CacheControl: &[]awss3deployment.CacheControl{awss3deployment.CacheControl_FromString(jsii.String(console.HTMLCacheControl))},
		Prune:        jsii.Bool(false),
		MemoryLimit:  jsii.Number(256),
	})
	// The HTML names the assets: they are in the bucket before it.
	html.Node().AddDependency(assets)

	rewrite := awscloudfront.NewFunction(c, jsii.String("Rewrite"), &awscloudfront.FunctionProps{
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(edgespec.MustFunctionSource(edgespec.ConsoleRewriteFunctionName))),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
		Comment: jsii.String("Console: /console -> /console/, /console/ -> index.html"),
	})
	// The console's own policies, as the description has them: its CSP
	// and security headers and its Cache-Control, overriding the bucket's.
	// With sign-in, the CSP lets the console fetch the hosted domain's
	// token endpoint.
	htmlHeaders := edge.NewResponseHeadersPolicy(c, *edgespec.ConsoleHTMLHeadersFor(p.Auth.TokenOrigin()))
	assetHeaders := edge.NewResponseHeadersPolicy(c, *edgespec.ConsoleAssetHeadersFor(p.Auth.TokenOrigin()))

	origin := awscloudfrontorigins.S3BucketOrigin_WithOriginAccessControl(bucket, &awscloudfrontorigins.S3BucketOriginWithOACProps{
		OriginAccessLevels: &[]awscloudfront.AccessLevel{awscloudfront.AccessLevel_READ},
	})
	return &Console{
		Construct: c, Bucket: bucket, Deployment: html, Rewrite: rewrite,
		HTMLHeaders: htmlHeaders, AssetHeaders: assetHeaders,
		Edge: &edge.Console{
			Origin: origin,
			ResponseHeadersPolicies: map[string]awscloudfront.IResponseHeadersPolicy{
				*htmlHeaders.Node().Id(): htmlHeaders, *assetHeaders.Node().Id(): assetHeaders,
			},
			Functions:   map[string]awscloudfront.IFunction{edgespec.ConsoleRewriteFunctionName: rewrite},
			TokenOrigin: p.Auth.TokenOrigin(),
		},
	}
}

// BuildDir is the console's build below a make build asset folder.
func BuildDir(assetDir string) string {
	return filepath.Join(assetDir, strings.TrimPrefix(console.BuildDir, "build/"))
}
