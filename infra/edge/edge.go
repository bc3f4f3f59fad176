package edge

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscertificatemanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awswafv2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

// ManagementPathPattern is the behaviour served by the primary region's
// /v1 API; everything else is a redirect.
const ManagementPathPattern = "/v1/*"

// UnlockPathPattern is the behaviour of the password forms' POSTs
// (link.UnlockPath).
var UnlockPathPattern = link.UnlockPath("*")

// Cache TTL bounds of the redirect policy. The origin's Cache-Control
// (s-maxage) decides within them: MinTTL 0 so a short or zero s-maxage for
// a young or expiring link is honoured, MaxTTL one year for immutable links.
const (
	RedirectMinTTLSeconds     = 0
	RedirectDefaultTTLSeconds = 60 // only when the origin sends no Cache-Control
	RedirectMaxTTLSeconds     = 365 * 24 * 60 * 60
)

// ForwardedAPIHeaders are the viewer headers /v1 needs at the origin. The
// viewer's Host is never forwarded: API Gateway routes on its own host name.
// Accept is: the REST API picks binary answers (the QR code's PNG) by the
// request's Accept, and CloudFront sends the origin only the headers listed
// here. With the API's "*/*" binary media type any Accept will do, but an
// Accept that never arrives leaves the choice to API Gateway's handling of
// a missing header.
// RedirectOriginHeaders are the viewer headers the redirect and unlock
// behaviours forward to their origin: the CloudFront headers and
// Accept-Language the redirect rules read, User-Agent (bots never use up a
// click limit; the desktop OS), and Content-Type, which a protected link's
// password form POSTs with. They are in the origin request policy, not the cache key, so
// links without rules keep one cache entry per path; the answers that
// depend on them are no-store.
func RedirectOriginHeaders() []string {
	return append(slices.Clone(viewer.OriginHeaders), "Content-Type")
}

var ForwardedAPIHeaders = []string{"x-api-key", "Idempotency-Key", "If-Match", "Content-Type", "Accept"}

// FailoverStatusCodes send a redirect to the fallback region.
var FailoverStatusCodes = []float64{500, 502, 503, 504}

// Props configure the edge.
type Props struct {
	// RedirectOrigins are the redirect APIs' host names: the primary first,
	// then the one CloudFront fails over to (optional).
	RedirectOrigins []*string
	// ManagementOrigin and ManagementOriginPath locate the /v1 REST API
	// stage: the primary region's execute-api host and stage, or the
	// failover name every region's stage is mapped at ("" path).
	ManagementOrigin     *string
	ManagementOriginPath string

	// OriginSecretARN is the origin secret (NewOriginSecret) in the edge's
	// region, which CloudFront sends to the redirect origins in
	// OriginVerifyHeader; OriginSecretVersion pins the version a rotation
	// moves to ("" for AWSCURRENT).
	OriginSecretARN     *string
	OriginSecretVersion string

	// ClickStreamARN receives the real-time logs, with LogFields in order.
	ClickStreamARN *string
	LogFields      []string

	DomainName     string // optional
	CertificateARN string // required with DomainName

	WAF          bool
	WAFRateLimit int // per IP per 5 minutes, on redirect paths

	// Behaviors are more behaviours (the web console's), added after /v1
	// in this order: CloudFront takes the first pattern that matches.
	Behaviors []Behavior
}

// Behavior is a cache behaviour for a path pattern.
type Behavior struct {
	PathPattern string
	Origin      awscloudfront.IOrigin
	Options     *awscloudfront.AddBehaviorOptions
}

// Edge is the distribution and what it is built from.
type Edge struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct      constructs.Construct
	Distribution   awscloudfront.Distribution
	RedirectPolicy awscloudfront.CachePolicy
	APIRequests    awscloudfront.OriginRequestPolicy
	LogConfig      awscloudfront.RealtimeLogConfig
	WebACL         awswafv2.CfnWebACL // nil when off
	// RedirectRequests is the redirect behaviour's origin request policy:
	// the viewer headers the redirect rules and the click limit read, and
	// the viewer's address for the budget of unknown codes; all outside
	// the cache key.
	RedirectRequests awscloudfront.OriginRequestPolicy
	// CanonicalPath refuses percent-encoded redirect paths when WAF is
	// off (nil when on: the web ACL's rule does it).
	CanonicalPath awscloudfront.Function
}

// New creates the distribution. It must be in a us-east-1 stack when WAF or
// a custom domain is on (CLOUDFRONT-scope web ACLs and viewer certificates
// live there).
func New(scope constructs.Construct, id string, p Props) *Edge {
	c := constructs.NewConstruct(scope, jsii.String(id))

	redirectPolicy := awscloudfront.NewCachePolicy(c, jsii.String("RedirectCache"), &awscloudfront.CachePolicyProps{
		Comment:    jsii.String("Redirects: cached by path only, for as long as the origin's s-maxage says"),
		MinTtl:     awscdk.Duration_Seconds(jsii.Number(RedirectMinTTLSeconds)),
		DefaultTtl: awscdk.Duration_Seconds(jsii.Number(RedirectDefaultTTLSeconds)),
		MaxTtl:     awscdk.Duration_Seconds(jsii.Number(RedirectMaxTTLSeconds)),
		// Nothing but the path in the key: one cached answer per code, so
		// query strings, cookies and headers cannot split (or bust) it.
		HeaderBehavior:      awscloudfront.CacheHeaderBehavior_None(),
		CookieBehavior:      awscloudfront.CacheCookieBehavior_None(),
		QueryStringBehavior: awscloudfront.CacheQueryStringBehavior_None(),
		// A redirect's body is a few bytes; Accept-Encoding in the key
		// would only split the cache.
		EnableAcceptEncodingGzip:   jsii.Bool(false),
		EnableAcceptEncodingBrotli: jsii.Bool(false),
	})
	fwd := make([]*string, len(ForwardedAPIHeaders))
	for i, h := range ForwardedAPIHeaders {
		fwd[i] = jsii.String(h)
	}
	apiRequests := awscloudfront.NewOriginRequestPolicy(c, jsii.String("ApiRequests"), &awscloudfront.OriginRequestPolicyProps{
		Comment:             jsii.String("/v1: the API key, idempotency, precondition, content type and Accept headers, the query string; never Host"),
		HeaderBehavior:      awscloudfront.OriginRequestHeaderBehavior_AllowList(fwd...),
		QueryStringBehavior: awscloudfront.OriginRequestQueryStringBehavior_All(),
		CookieBehavior:      awscloudfront.OriginRequestCookieBehavior_None(),
	})
	// The redirect origin reads the viewer headers of the redirect rules
	// and counts unknown codes per viewer address (shared/missbudget), so
	// CloudFront adds them to its origin requests; none is in the cache
	// key, so every viewer of a plain link still shares one cached answer.
	redirectRequests := awscloudfront.NewOriginRequestPolicy(c, jsii.String("RedirectRequests"), &awscloudfront.OriginRequestPolicyProps{
		Comment:             jsii.String("Redirects: the viewer headers the redirect rules read and the viewer's address for the miss budget; never Host, cookies or the query"),
		HeaderBehavior:      awscloudfront.OriginRequestHeaderBehavior_AllowList(*jsii.Strings(append(RedirectOriginHeaders(), ViewerAddressHeader)...)...),
		QueryStringBehavior: awscloudfront.OriginRequestQueryStringBehavior_None(),
		CookieBehavior:      awscloudfront.OriginRequestCookieBehavior_None(),
	})
	headers := awscloudfront.NewResponseHeadersPolicy(c, jsii.String("SecurityHeaders"), &awscloudfront.ResponseHeadersPolicyProps{
		Comment: jsii.String("Security headers on every response"),
		SecurityHeadersBehavior: &awscloudfront.ResponseSecurityHeadersBehavior{
			StrictTransportSecurity: &awscloudfront.ResponseHeadersStrictTransportSecurity{
				AccessControlMaxAge: awscdk.Duration_Days(jsii.Number(730)),
				IncludeSubdomains:   jsii.Bool(true),
				Override:            jsii.Bool(true),
			},
			ContentTypeOptions: &awscloudfront.ResponseHeadersContentTypeOptions{Override: jsii.Bool(true)},
			FrameOptions: &awscloudfront.ResponseHeadersFrameOptions{
				FrameOption: awscloudfront.HeadersFrameOption_DENY, Override: jsii.Bool(true),
			},
			ReferrerPolicy: &awscloudfront.ResponseHeadersReferrerPolicy{
				ReferrerPolicy: awscloudfront.HeadersReferrerPolicy_STRICT_ORIGIN_WHEN_CROSS_ORIGIN, Override: jsii.Bool(true),
			},
			// The service serves JSON and a tiny "link expired" page with
			// inline style: nothing else may load, nothing may frame it.
			ContentSecurityPolicy: &awscloudfront.ResponseHeadersContentSecurityPolicy{
				ContentSecurityPolicy: jsii.String("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
				Override:              jsii.Bool(true),
			},
			XssProtection: &awscloudfront.ResponseHeadersXSSProtection{
				Protection: jsii.Bool(true), ModeBlock: jsii.Bool(true), Override: jsii.Bool(true),
			},
		},
	})

	// Real-time logs: every edge request, hit or miss (100 % sampling), so
	// clicks served from the cache are counted too.
	logRole := awsiam.NewRole(c, jsii.String("RealtimeLogRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("cloudfront.amazonaws.com"), nil),
		Description: jsii.String("Lets CloudFront write real-time log records to the click stream"),
	})
	stream := awskinesis.Stream_FromStreamArn(c, jsii.String("ClickStream"), p.ClickStreamARN)
	fields := make([]*string, len(p.LogFields))
	for i, f := range p.LogFields {
		fields[i] = jsii.String(f)
	}
	logConfig := awscloudfront.NewRealtimeLogConfig(c, jsii.String("ClickLog"), &awscloudfront.RealtimeLogConfigProps{
		EndPoints:    &[]awscloudfront.Endpoint{awscloudfront.Endpoint_FromKinesisStream(stream, logRole)},
		Fields:       &fields,
		SamplingRate: jsii.Number(100),
	})

	secret := originSecretValue(p.OriginSecretARN, p.OriginSecretVersion)
	var redirectOrigin awscloudfront.IOrigin = redirectAPIOrigin(p.RedirectOrigins[0], secret)
	if len(p.RedirectOrigins) > 1 && p.RedirectOrigins[1] != nil {
		statuses := make([]*float64, len(FailoverStatusCodes))
		for i := range FailoverStatusCodes {
			statuses[i] = &FailoverStatusCodes[i]
		}
		redirectOrigin = awscloudfrontorigins.NewOriginGroup(&awscloudfrontorigins.OriginGroupProps{
			PrimaryOrigin:       redirectOrigin,
			FallbackOrigin:      redirectAPIOrigin(p.RedirectOrigins[1], secret),
			FallbackStatusCodes: &statuses,
		})
	}
	var originPath *string // none: the API's stage is mapped at a custom domain's root
	if p.ManagementOriginPath != "" {
		originPath = jsii.String(p.ManagementOriginPath)
	}
	managementOrigin := awscloudfrontorigins.NewHttpOrigin(p.ManagementOrigin, &awscloudfrontorigins.HttpOriginProps{
		OriginPath:         originPath,
		ProtocolPolicy:     awscloudfront.OriginProtocolPolicy_HTTPS_ONLY,
		OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
		ReadTimeout:        awscdk.Duration_Seconds(jsii.Number(30)),
	})

	var webACL awswafv2.CfnWebACL
	var webACLArn *string
	var canonical awscloudfront.Function
	var functions *[]*awscloudfront.FunctionAssociation
	if p.WAF {
		webACL = newWebACL(c, p.WAFRateLimit)
		webACLArn = webACL.AttrArn()
	} else {
		canonical = newCanonicalPathFunction(c)
		functions = &[]*awscloudfront.FunctionAssociation{{
			EventType: awscloudfront.FunctionEventType_VIEWER_REQUEST,
			Function:  canonical,
		}}
	}

	props := &awscloudfront.DistributionProps{
		Comment:     jsii.String("URL shortener: redirects, the /v1 API and the /console web console"),
		HttpVersion: awscloudfront.HttpVersion_HTTP2_AND_3,
		EnableIpv6:  jsii.Bool(true),
		WebAclId:    webACLArn,
		DefaultBehavior: &awscloudfront.BehaviorOptions{
			Origin:                redirectOrigin,
			ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_REDIRECT_TO_HTTPS,
			AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_GET_HEAD(),
			CachedMethods:         awscloudfront.CachedMethods_CACHE_GET_HEAD(),
			CachePolicy:           redirectPolicy,
			OriginRequestPolicy:   redirectRequests,
			ResponseHeadersPolicy: headers,
			RealtimeLogConfig:     logConfig,
			FunctionAssociations:  functions,
			Compress:              jsii.Bool(false),
		},
		AdditionalBehaviors: &map[string]*awscloudfront.BehaviorOptions{
			// A protected link's password form posts here. CloudFront
			// refuses POST on a behaviour whose target is an origin group,
			// so this one goes to the primary Region's redirect API alone,
			// uncached, logged like the redirects (the 303 answering the
			// right password is a click).
			UnlockPathPattern: {
				Origin:                redirectAPIOrigin(p.RedirectOrigins[0], secret),
				ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
				AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_ALL(),
				CachePolicy:           awscloudfront.CachePolicy_CACHING_DISABLED(),
				OriginRequestPolicy:   redirectRequests,
				ResponseHeadersPolicy: headers,
				RealtimeLogConfig:     logConfig,
				Compress:              jsii.Bool(false),
			},
			ManagementPathPattern: {
				Origin: managementOrigin,
				// HTTPS only rather than a redirect to it: a 301 answered
				// to a POST turns into a GET in many clients.
				ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
				AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_ALL(),
				CachePolicy:           awscloudfront.CachePolicy_CACHING_DISABLED(),
				OriginRequestPolicy:   apiRequests,
				ResponseHeadersPolicy: headers,
			},
		},
	}
	if p.DomainName != "" {
		props.DomainNames = jsii.Strings(p.DomainName)
		props.Certificate = awscertificatemanager.Certificate_FromCertificateArn(c, jsii.String("Certificate"), jsii.String(p.CertificateARN))
		props.MinimumProtocolVersion = awscloudfront.SecurityPolicyProtocol_TLS_V1_2_2021
	}
	dist := awscloudfront.NewDistribution(c, jsii.String("Distribution"), props)
	for _, b := range p.Behaviors {
		dist.AddBehavior(jsii.String(b.PathPattern), b.Origin, b.Options)
	}
	return &Edge{Construct: c, Distribution: dist, RedirectPolicy: redirectPolicy, APIRequests: apiRequests, LogConfig: logConfig,
		WebACL: webACL, RedirectRequests: redirectRequests, CanonicalPath: canonical}
}

// redirectAPIOrigin is one region's redirect HTTP API. Short timeouts: a
// region that does not answer should fail over in seconds, not the default
// 3 x 10 s (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/high_availability_origin_failover.html). Every request carries the origin secret,
// without which the API answers 401 or 403 (infra/api NewRedirect).
func redirectAPIOrigin(domain, secret *string) awscloudfront.IOrigin {
	return awscloudfrontorigins.NewHttpOrigin(domain, &awscloudfrontorigins.HttpOriginProps{
		CustomHeaders:      &map[string]*string{OriginVerifyHeader: secret},
		ProtocolPolicy:     awscloudfront.OriginProtocolPolicy_HTTPS_ONLY,
		OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
		ConnectionAttempts: jsii.Number(2),
		ConnectionTimeout:  awscdk.Duration_Seconds(jsii.Number(3)),
		ReadTimeout:        awscdk.Duration_Seconds(jsii.Number(10)),
	})
}

// WAFRateRuleName is the rate-based rule against code enumeration.
const WAFRateRuleName = "RedirectRatePerIP"

// WAFCanonicalPathRuleName is the rule that refuses percent-encoded
// spellings of redirect paths, and NonCanonicalPathBody its answer's body.
//
// CloudFront caches a redirect under the path as the viewer spelt it, so
// /%61bcdefg and /abcdefg are two cache entries, and an invalidation of
// /abcdefg (every DELETE and PATCH) never reaches the first. The redirect
// origin cannot tell them apart and so cannot give the spelling a short
// s-maxage: an HTTP API percent-decodes the path and the path parameters
// before its function sees them (payload 1.0 path, requestContext.path and
// pathParameters alike; hotsock/voker#8, middleapi/standard-server#93), and
// CloudFront forwards no other trace of the URI. No code or alias holds a
// character that needs encoding, so a "%" in a redirect path is never the
// canonical spelling of a link. The web ACL refuses such a request before
// the cache or the origin sees it, for the $1 a month of one more rule on
// inspection WAF already bills; a CloudFront Function answering a 301 to
// the decoded path would run on every redirect, hits included ($0.10 per
// million). With WAF off (waf: false, the default) that function is what
// refuses them (newCanonicalPathFunction), with the same answer. The local
// edge (internal/localedge) plays either.
const (
	WAFCanonicalPathRuleName = "CanonicalRedirectPath"
	NonCanonicalPathBody     = edgespec.NonCanonicalPathBody
	nonCanonicalPathBodyKey  = "NonCanonicalPath"
)

// newWebACL blocks an IP that asks for more than limit redirect paths in
// five minutes: enumerating codes takes many requests per hit (README,
// "Short codes and guessing"), a person clicking links does not. /v1 is left to
// the usage plan's per-key throttle. It also answers 400 to a redirect
// path with a "%" in it (see WAFCanonicalPathRuleName).
func newWebACL(scope constructs.Construct, limit int) awswafv2.CfnWebACL {
	visibility := func(name string) *awswafv2.CfnWebACL_VisibilityConfigProperty {
		return &awswafv2.CfnWebACL_VisibilityConfigProperty{
			CloudWatchMetricsEnabled: jsii.Bool(true),
			MetricName:               jsii.String(name),
			SampledRequestsEnabled:   jsii.Bool(true),
		}
	}
	notAPI := &awswafv2.CfnWebACL_StatementProperty{
		NotStatement: &awswafv2.CfnWebACL_NotStatementProperty{
			Statement: &awswafv2.CfnWebACL_StatementProperty{
				ByteMatchStatement: &awswafv2.CfnWebACL_ByteMatchStatementProperty{
					FieldToMatch:         &awswafv2.CfnWebACL_FieldToMatchProperty{UriPath: map[string]any{}},
					PositionalConstraint: jsii.String("STARTS_WITH"),
					SearchString:         jsii.String("/v1/"),
					TextTransformations: []*awswafv2.CfnWebACL_TextTransformationProperty{
						{Priority: jsii.Number(0), Type: jsii.String("NONE")},
					},
				},
			},
		},
	}
	hasPercent := &awswafv2.CfnWebACL_StatementProperty{
		ByteMatchStatement: &awswafv2.CfnWebACL_ByteMatchStatementProperty{
			// The path as the viewer sent it: no URL_DECODE.
			FieldToMatch:         &awswafv2.CfnWebACL_FieldToMatchProperty{UriPath: map[string]any{}},
			PositionalConstraint: jsii.String("CONTAINS"),
			SearchString:         jsii.String("%"),
			TextTransformations: []*awswafv2.CfnWebACL_TextTransformationProperty{
				{Priority: jsii.Number(0), Type: jsii.String("NONE")},
			},
		},
	}
	return awswafv2.NewCfnWebACL(scope, jsii.String("WebAcl"), &awswafv2.CfnWebACLProps{
		Scope:            jsii.String("CLOUDFRONT"),
		Description:      jsii.String("Rate limit against short code enumeration, canonical redirect paths only"),
		DefaultAction:    &awswafv2.CfnWebACL_DefaultActionProperty{Allow: map[string]any{}},
		VisibilityConfig: visibility("ShortenerWebAcl"),
		CustomResponseBodies: map[string]*awswafv2.CfnWebACL_CustomResponseBodyProperty{
			nonCanonicalPathBodyKey: {ContentType: jsii.String("TEXT_PLAIN"), Content: jsii.String(NonCanonicalPathBody)},
		},
		Rules: []*awswafv2.CfnWebACL_RuleProperty{{
			Name:     jsii.String(WAFRateRuleName),
			Priority: jsii.Number(0),
			Action:   &awswafv2.CfnWebACL_RuleActionProperty{Block: map[string]any{}},
			Statement: &awswafv2.CfnWebACL_StatementProperty{
				RateBasedStatement: &awswafv2.CfnWebACL_RateBasedStatementProperty{
					AggregateKeyType:    jsii.String("IP"),
					Limit:               jsii.Number(float64(limit)),
					EvaluationWindowSec: jsii.Number(300),
					ScopeDownStatement:  notAPI,
				},
			},
			VisibilityConfig: visibility(WAFRateRuleName),
		}, {
			Name:     jsii.String(WAFCanonicalPathRuleName),
			Priority: jsii.Number(1),
			Action: &awswafv2.CfnWebACL_RuleActionProperty{Block: &awswafv2.CfnWebACL_BlockActionProperty{
				CustomResponse: &awswafv2.CfnWebACL_CustomResponseProperty{
					ResponseCode:          jsii.Number(400),
					CustomResponseBodyKey: jsii.String(nonCanonicalPathBodyKey),
				},
			}},
			Statement: &awswafv2.CfnWebACL_StatementProperty{
				AndStatement: &awswafv2.CfnWebACL_AndStatementProperty{
					Statements: []*awswafv2.CfnWebACL_StatementProperty{notAPI, hasPercent},
				},
			},
			VisibilityConfig: visibility(WAFCanonicalPathRuleName),
		}},
	})
}

// ViewerAddressHeader is the header CloudFront adds to the redirect's
// origin requests: the viewer's IP address and source port
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
const ViewerAddressHeader = "CloudFront-Viewer-Address"

// CanonicalPathFunctionCode is the source of the viewer-request CloudFront
// Function (shared/edgespec functions/canonical-path.js) that
// answers a redirect path holding a "%" as the web ACL's canonical-path
// rule does (400, NonCanonicalPathBody), when there is no web ACL. A
// function sees the URI as the viewer sent it, still percent-encoded
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-event-structure.html),
// while the HTTP API origin would decode it and answer a redirect CloudFront
// caches under the spelling, out of reach of the code's invalidations.
// It runs on every viewer request of the redirect behaviour, hits included:
// $0.10 per million (https://aws.amazon.com/cloudfront/pricing/), a sixth
// of what WAF bills for inspecting the same requests.
var CanonicalPathFunctionCode = edgespec.MustFunctionSource(edgespec.CanonicalPathFunction)

func newCanonicalPathFunction(scope constructs.Construct) awscloudfront.Function {
	return awscloudfront.NewFunction(scope, jsii.String("CanonicalPath"), &awscloudfront.FunctionProps{
		Comment: jsii.String("Refuses percent-encoded spellings of redirect paths (400), which the edge would cache out of reach of invalidations"),
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(CanonicalPathFunctionCode)),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
	})
}
