package edge

import (
	"fmt"
	"maps"
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
)

// The behaviours' path patterns (shared/edgespec).
const ManagementPathPattern = edgespec.ManagementPathPattern

// UnlockPathPattern is the behaviour of the password forms' POSTs
// (link.UnlockPath).
var UnlockPathPattern = edgespec.UnlockPathPattern

// Cache TTL bounds of the redirect policy (edgespec.RedirectCache).
const (
	RedirectMinTTLSeconds     = edgespec.RedirectMinTTLSeconds
	RedirectDefaultTTLSeconds = edgespec.RedirectDefaultTTLSeconds
	RedirectMaxTTLSeconds     = edgespec.RedirectMaxTTLSeconds
)

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

	// ClickStreamARN receives the real-time logs.
	ClickStreamARN *string

	DomainName     string // optional
	CertificateARN string // required with DomainName

	WAF          bool
	WAFRateLimit int // per IP per 5 minutes, on redirect paths
	// VersionKeys keys the redirect cache on link versions in a key value
	// store made here (edgespec.Options.VersionKeys).
	VersionKeys bool

	// Console is the web console's part (infra/webconsole); nil leaves its
	// behaviours out.
	Console *Console
}

// Console is what the console's behaviours need that its own package
// builds: the bucket origin, the response headers policies of its
// behaviours by name (edgespec.ConsoleHTMLHeaders, ConsoleAssetHeaders) and
// its CloudFront Functions by name.
type Console struct {
	Origin                  awscloudfront.IOrigin
	ResponseHeadersPolicies map[string]awscloudfront.IResponseHeadersPolicy
	Functions               map[string]awscloudfront.IFunction
	// TokenOrigin is the identity provider's token endpoint origin the
	// console's CSP allows (edgespec.Options.ConsoleTokenOrigin); empty
	// with sign-in off.
	TokenOrigin string
}

// Edge is the distribution and what it is built from.
type Edge struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	// Spec is the description the distribution was built from.
	Spec           edgespec.Spec
	Distribution   awscloudfront.Distribution
	RedirectPolicy awscloudfront.ICachePolicy
	APIRequests    awscloudfront.IOriginRequestPolicy
	LogConfig      awscloudfront.RealtimeLogConfig
	WebACL         awswafv2.CfnWebACL // nil when off
	// RedirectRequests is the redirect behaviour's origin request policy:
	// the viewer headers the redirect rules and the click limit read, and
	// the viewer's address for the budget of unknown codes; all outside
	// the cache key.
	RedirectRequests awscloudfront.IOriginRequestPolicy
	// CanonicalPath refuses percent-encoded redirect paths when WAF is
	// off (nil when on: the web ACL's rule does it, or with VersionKeys:
	// VersionKey does it).
	CanonicalPath awscloudfront.IFunction
	// VersionStore is the key value store of link versions and VersionKey
	// the redirects' viewer-request function that reads it, with
	// VersionKeys; nil without.
	VersionStore awscloudfront.KeyValueStore
	VersionKey   awscloudfront.IFunction
}

// SpecOptions are the description's options for p.
func SpecOptions(p Props) edgespec.Options {
	o := edgespec.Options{
		WAF: p.WAF, WAFRateLimit: p.WAFRateLimit,
		Failover:    len(p.RedirectOrigins) > 1 && p.RedirectOrigins[1] != nil,
		Console:     p.Console != nil,
		VersionKeys: p.VersionKeys,
	}
	if p.Console != nil {
		o.ConsoleTokenOrigin = p.Console.TokenOrigin
	}
	return o
}

// New creates the distribution edgespec.Distribution describes for p. It
// must be in a us-east-1 stack when WAF or a custom domain is on
// (CLOUDFRONT-scope web ACLs and viewer certificates live there).
func New(scope constructs.Construct, id string, p Props) *Edge {
	c := constructs.NewConstruct(scope, jsii.String(id))
	spec := edgespec.Distribution(SpecOptions(p))
	b := &builder{scope: c, spec: spec, p: p,
		cachePolicies:   map[string]awscloudfront.ICachePolicy{},
		requestPolicies: map[string]awscloudfront.IOriginRequestPolicy{},
		headerPolicies:  map[string]awscloudfront.IResponseHeadersPolicy{},
		functions:       map[string]awscloudfront.IFunction{},
		origins:         map[string]awscloudfront.IOrigin{},
	}
	if p.Console != nil {
		maps.Copy(b.headerPolicies, p.Console.ResponseHeadersPolicies)
		maps.Copy(b.functions, p.Console.Functions)
	}
	b.logConfig = b.realtimeLog()
	if p.VersionKeys {
		// Made with the distribution: no function reads it before, and
		// manage learns its ARN from the edge parameter (Publish).
		b.versionStore = awscloudfront.NewKeyValueStore(c, jsii.String("LinkVersions"), &awscloudfront.KeyValueStoreProps{
			Comment: jsii.String("Link versions the redirect cache is keyed on: manage puts a changed link's, the version-key function reads them"),
		})
	}

	var webACL awswafv2.CfnWebACL
	var webACLArn *string
	if spec.WebACL != nil {
		webACL = newWebACL(c, *spec.WebACL)
		webACLArn = webACL.AttrArn()
	}

	props := &awscloudfront.DistributionProps{
		Comment:         jsii.String(spec.Comment),
		HttpVersion:     awscloudfront.HttpVersion_HTTP2_AND_3,
		EnableIpv6:      jsii.Bool(true),
		WebAclId:        webACLArn,
		DefaultBehavior: b.behavior(spec.Default),
		ErrorResponses:  errorResponses(spec.ErrorResponses),
	}
	if p.DomainName != "" {
		props.DomainNames = jsii.Strings(p.DomainName)
		props.Certificate = awscertificatemanager.Certificate_FromCertificateArn(c, jsii.String("Certificate"), jsii.String(p.CertificateARN))
		props.MinimumProtocolVersion = awscloudfront.SecurityPolicyProtocol_TLS_V1_2_2021
	}
	dist := awscloudfront.NewDistribution(c, jsii.String("Distribution"), props)
	// AddBehavior keeps the description's order, which CloudFront matches
	// in; a map of additional behaviours would not.
	for _, sb := range spec.Behaviors {
		o := b.behavior(sb)
		dist.AddBehavior(jsii.String(sb.PathPattern), o.Origin, &awscloudfront.AddBehaviorOptions{
			AllowedMethods: o.AllowedMethods, CachedMethods: o.CachedMethods, CachePolicy: o.CachePolicy,
			Compress: o.Compress, FunctionAssociations: o.FunctionAssociations, OriginRequestPolicy: o.OriginRequestPolicy,
			RealtimeLogConfig: o.RealtimeLogConfig, ResponseHeadersPolicy: o.ResponseHeadersPolicy,
			ViewerProtocolPolicy: o.ViewerProtocolPolicy,
		})
	}
	e := &Edge{Construct: c, Spec: spec, Distribution: dist, LogConfig: b.logConfig, WebACL: webACL,
		RedirectPolicy:   b.cachePolicies[spec.Default.CachePolicy.Name],
		RedirectRequests: b.requestPolicies[spec.Default.OriginRequestPolicy.Name],
		APIRequests:      b.requestPolicies[edgespec.AllViewerExceptHostHeader().Managed],
		CanonicalPath:    b.functions[edgespec.CanonicalPathFunction],
		VersionStore:     b.versionStore,
		VersionKey:       b.functions[edgespec.VersionKeyFunction],
	}
	return e
}

// builder maps the description's plain values onto CDK props, making
// each policy, function and origin once however many behaviours use it.
type builder struct {
	scope     constructs.Construct
	spec      edgespec.Spec
	p         Props
	logConfig awscloudfront.RealtimeLogConfig
	secret    *string
	// versionStore is the key value store of link versions; nil without
	// VersionKeys.
	versionStore awscloudfront.KeyValueStore

	cachePolicies   map[string]awscloudfront.ICachePolicy
	requestPolicies map[string]awscloudfront.IOriginRequestPolicy
	headerPolicies  map[string]awscloudfront.IResponseHeadersPolicy
	functions       map[string]awscloudfront.IFunction
	origins         map[string]awscloudfront.IOrigin
}

func (b *builder) behavior(sb edgespec.Behavior) *awscloudfront.BehaviorOptions {
	o := &awscloudfront.BehaviorOptions{
		Origin:               b.target(sb.TargetOrigin),
		ViewerProtocolPolicy: viewerProtocol(sb.ViewerProtocol),
		AllowedMethods:       allowedMethods(sb.AllowedMethods),
		CachedMethods:        cachedMethods(sb.CachedMethods),
		CachePolicy:          b.cachePolicy(sb.CachePolicy),
		Compress:             jsii.Bool(sb.Compress),
	}
	if sb.OriginRequestPolicy != nil {
		o.OriginRequestPolicy = b.originRequestPolicy(*sb.OriginRequestPolicy)
	}
	if sb.ResponseHeadersPolicy != nil {
		o.ResponseHeadersPolicy = b.responseHeadersPolicy(*sb.ResponseHeadersPolicy)
	}
	if sb.RealtimeLog {
		o.RealtimeLogConfig = b.logConfig
	}
	if len(sb.Functions) > 0 {
		assocs := make([]*awscloudfront.FunctionAssociation, len(sb.Functions))
		for i, f := range sb.Functions {
			if f.KeyValueStore && b.versionStore == nil {
				panic(fmt.Sprintf("edge: function %q reads the key value store and VersionKeys is off", f.Function))
			}
			assocs[i] = &awscloudfront.FunctionAssociation{EventType: functionEvent(f.EventType), Function: b.function(f.Function)}
		}
		o.FunctionAssociations = &assocs
	}
	return o
}

func viewerProtocol(v edgespec.ViewerProtocol) awscloudfront.ViewerProtocolPolicy {
	switch v {
	case edgespec.RedirectToHTTPS:
		return awscloudfront.ViewerProtocolPolicy_REDIRECT_TO_HTTPS
	case edgespec.HTTPSOnly:
		return awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY
	case edgespec.AllowAll:
		return awscloudfront.ViewerProtocolPolicy_ALLOW_ALL
	}
	panic(fmt.Sprintf("edge: viewer protocol policy %q", v))
}

func allowedMethods(ms []string) awscloudfront.AllowedMethods {
	switch {
	case slices.Equal(ms, edgespec.MethodsGetHead):
		return awscloudfront.AllowedMethods_ALLOW_GET_HEAD()
	case slices.Equal(ms, edgespec.MethodsGetHeadOptions):
		return awscloudfront.AllowedMethods_ALLOW_GET_HEAD_OPTIONS()
	case slices.Equal(ms, edgespec.MethodsAll):
		return awscloudfront.AllowedMethods_ALLOW_ALL()
	}
	panic(fmt.Sprintf("edge: CloudFront has no allowed methods set %v", ms))
}

func cachedMethods(ms []string) awscloudfront.CachedMethods {
	switch {
	case slices.Equal(ms, edgespec.MethodsGetHead):
		return awscloudfront.CachedMethods_CACHE_GET_HEAD()
	case slices.Equal(ms, edgespec.MethodsGetHeadOptions):
		return awscloudfront.CachedMethods_CACHE_GET_HEAD_OPTIONS()
	}
	panic(fmt.Sprintf("edge: CloudFront has no cached methods set %v", ms))
}

func functionEvent(t edgespec.FunctionEventType) awscloudfront.FunctionEventType {
	switch t {
	case edgespec.ViewerRequest:
		return awscloudfront.FunctionEventType_VIEWER_REQUEST
	case edgespec.ViewerResponse:
		return awscloudfront.FunctionEventType_VIEWER_RESPONSE
	}
	panic(fmt.Sprintf("edge: function event type %q", t))
}

func seconds(n int) awscdk.Duration { return awscdk.Duration_Seconds(jsii.Number(float64(n))) }

func (b *builder) cachePolicy(cp edgespec.CachePolicy) awscloudfront.ICachePolicy {
	key := cp.Name
	if cp.Managed != "" {
		key = cp.Managed
	}
	if p, ok := b.cachePolicies[key]; ok {
		return p
	}
	var p awscloudfront.ICachePolicy
	if cp.Managed != "" {
		p = awscloudfront.CachePolicy_FromCachePolicyId(b.scope, jsii.String("Managed"+cp.Managed), jsii.String(cp.ManagedID))
	} else {
		p = awscloudfront.NewCachePolicy(b.scope, jsii.String(cp.Name), &awscloudfront.CachePolicyProps{
			Comment:                    jsii.String(cp.Comment),
			MinTtl:                     seconds(cp.MinTTLSeconds),
			DefaultTtl:                 seconds(cp.DefaultTTLSeconds),
			MaxTtl:                     seconds(cp.MaxTTLSeconds),
			HeaderBehavior:             cacheHeaders.of(cp.Headers),
			CookieBehavior:             cacheCookies.of(cp.Cookies),
			QueryStringBehavior:        cacheQuery.of(cp.QueryStrings),
			EnableAcceptEncodingGzip:   jsii.Bool(cp.AcceptEncodingGzip),
			EnableAcceptEncodingBrotli: jsii.Bool(cp.AcceptEncodingBrotli),
		})
	}
	b.cachePolicies[key] = p
	return p
}

// keyBehaviours are the constructors of one kind of CloudFront behaviour
// (a cache key's or an origin request's headers, cookies or query
// strings), nil where the kind has none; of picks the one a KeyValues
// names.
type keyBehaviours[T any] struct {
	kind                string // in the panic of a behaviour the kind lacks
	none, all           func() T
	allowList, denyList func(names ...*string) T
}

func (b keyBehaviours[T]) of(k edgespec.KeyValues) T {
	switch {
	case k.Behavior == edgespec.KeyNone && b.none != nil:
		return b.none()
	case k.Behavior == edgespec.KeyAll && b.all != nil:
		return b.all()
	case k.Behavior == edgespec.KeyAllowList && b.allowList != nil:
		return b.allowList(*jsii.Strings(k.Names...)...)
	case k.Behavior == edgespec.KeyAllExcept && b.denyList != nil:
		return b.denyList(*jsii.Strings(k.Names...)...)
	}
	panic(fmt.Sprintf("edge: %s behaviour %q", b.kind, k.Behavior))
}

var (
	cacheHeaders = keyBehaviours[awscloudfront.CacheHeaderBehavior]{kind: "cache key header",
		none: awscloudfront.CacheHeaderBehavior_None, allowList: awscloudfront.CacheHeaderBehavior_AllowList}
	cacheCookies = keyBehaviours[awscloudfront.CacheCookieBehavior]{kind: "cache key cookie",
		none: awscloudfront.CacheCookieBehavior_None, all: awscloudfront.CacheCookieBehavior_All,
		allowList: awscloudfront.CacheCookieBehavior_AllowList, denyList: awscloudfront.CacheCookieBehavior_DenyList}
	cacheQuery = keyBehaviours[awscloudfront.CacheQueryStringBehavior]{kind: "cache key query string",
		none: awscloudfront.CacheQueryStringBehavior_None, all: awscloudfront.CacheQueryStringBehavior_All,
		allowList: awscloudfront.CacheQueryStringBehavior_AllowList, denyList: awscloudfront.CacheQueryStringBehavior_DenyList}
	requestCookies = keyBehaviours[awscloudfront.OriginRequestCookieBehavior]{kind: "origin request cookie",
		none: awscloudfront.OriginRequestCookieBehavior_None, all: awscloudfront.OriginRequestCookieBehavior_All,
		allowList: awscloudfront.OriginRequestCookieBehavior_AllowList}
	requestQuery = keyBehaviours[awscloudfront.OriginRequestQueryStringBehavior]{kind: "origin request query string",
		none: awscloudfront.OriginRequestQueryStringBehavior_None, all: awscloudfront.OriginRequestQueryStringBehavior_All,
		allowList: awscloudfront.OriginRequestQueryStringBehavior_AllowList}
)

func (b *builder) originRequestPolicy(rp edgespec.OriginRequestPolicy) awscloudfront.IOriginRequestPolicy {
	key := rp.Name
	if rp.Managed != "" {
		key = rp.Managed
	}
	if p, ok := b.requestPolicies[key]; ok {
		return p
	}
	if rp.Managed != "" {
		p := awscloudfront.OriginRequestPolicy_FromOriginRequestPolicyId(b.scope, jsii.String("Managed"+rp.Managed), jsii.String(rp.ManagedID))
		b.requestPolicies[key] = p
		return p
	}
	if rp.ListsAuthorization() {
		// CloudFront refuses it (400); only a cache policy or a managed
		// all-viewer policy passes Authorization.
		panic(fmt.Sprintf("edge: origin request policy %q lists Authorization", rp.Name))
	}
	var headers awscloudfront.OriginRequestHeaderBehavior
	switch rp.Headers.Behavior {
	case edgespec.KeyNone:
		if len(rp.CloudFrontHeaders) > 0 {
			headers = awscloudfront.OriginRequestHeaderBehavior_AllowList(*jsii.Strings(rp.CloudFrontHeaders...)...)
		} else {
			headers = awscloudfront.OriginRequestHeaderBehavior_None()
		}
	case edgespec.KeyAllowList:
		headers = awscloudfront.OriginRequestHeaderBehavior_AllowList(*jsii.Strings(rp.HeaderNames()...)...)
	case edgespec.KeyAllViewer:
		headers = awscloudfront.OriginRequestHeaderBehavior_All()
	case edgespec.KeyAllViewerCloudFront:
		headers = awscloudfront.OriginRequestHeaderBehavior_All(*jsii.Strings(rp.CloudFrontHeaders...)...)
	default:
		panic(fmt.Sprintf("edge: origin request header behaviour %q", rp.Headers.Behavior))
	}
	p := awscloudfront.NewOriginRequestPolicy(b.scope, jsii.String(rp.Name), &awscloudfront.OriginRequestPolicyProps{
		Comment:             jsii.String(rp.Comment),
		HeaderBehavior:      headers,
		CookieBehavior:      requestCookies.of(rp.Cookies),
		QueryStringBehavior: requestQuery.of(rp.QueryStrings),
	})
	b.requestPolicies[rp.Name] = p
	return p
}

func (b *builder) responseHeadersPolicy(hp edgespec.ResponseHeadersPolicy) awscloudfront.IResponseHeadersPolicy {
	if p, ok := b.headerPolicies[hp.Name]; ok {
		return p
	}
	p := NewResponseHeadersPolicy(b.scope, hp)
	b.headerPolicies[hp.Name] = p
	return p
}

// NewResponseHeadersPolicy creates the response headers policy hp
// describes, with hp.Name as its construct ID.
func NewResponseHeadersPolicy(scope constructs.Construct, hp edgespec.ResponseHeadersPolicy) awscloudfront.ResponseHeadersPolicy {
	s := hp.Security
	sec := &awscloudfront.ResponseSecurityHeadersBehavior{}
	if h := s.StrictTransportSecurity; h != nil {
		sec.StrictTransportSecurity = &awscloudfront.ResponseHeadersStrictTransportSecurity{
			AccessControlMaxAge: seconds(h.MaxAgeSeconds), IncludeSubdomains: jsii.Bool(h.IncludeSubdomains),
			Preload: jsii.Bool(h.Preload), Override: jsii.Bool(h.Override),
		}
	}
	if h := s.ContentTypeOptions; h != nil {
		sec.ContentTypeOptions = &awscloudfront.ResponseHeadersContentTypeOptions{Override: jsii.Bool(h.Override)}
	}
	if h := s.FrameOptions; h != nil {
		sec.FrameOptions = &awscloudfront.ResponseHeadersFrameOptions{FrameOption: frameOption(h.Option), Override: jsii.Bool(h.Override)}
	}
	if h := s.ReferrerPolicy; h != nil {
		sec.ReferrerPolicy = &awscloudfront.ResponseHeadersReferrerPolicy{ReferrerPolicy: referrerPolicy(h.Policy), Override: jsii.Bool(h.Override)}
	}
	if h := s.ContentSecurityPolicy; h != nil {
		sec.ContentSecurityPolicy = &awscloudfront.ResponseHeadersContentSecurityPolicy{
			ContentSecurityPolicy: jsii.String(h.Policy), Override: jsii.Bool(h.Override),
		}
	}
	if h := s.XSSProtection; h != nil {
		x := &awscloudfront.ResponseHeadersXSSProtection{
			Protection: jsii.Bool(h.Protection), ModeBlock: jsii.Bool(h.ModeBlock), Override: jsii.Bool(h.Override),
		}
		if h.ReportURI != "" {
			x.ReportUri = jsii.String(h.ReportURI)
		}
		sec.XssProtection = x
	}
	props := &awscloudfront.ResponseHeadersPolicyProps{Comment: jsii.String(hp.Comment), SecurityHeadersBehavior: sec}
	if len(hp.Custom) > 0 {
		custom := make([]*awscloudfront.ResponseCustomHeader, len(hp.Custom))
		for i, h := range hp.Custom {
			custom[i] = &awscloudfront.ResponseCustomHeader{Header: jsii.String(h.Name), Value: jsii.String(h.Value), Override: jsii.Bool(h.Override)}
		}
		props.CustomHeadersBehavior = &awscloudfront.ResponseCustomHeadersBehavior{CustomHeaders: &custom}
	}
	return awscloudfront.NewResponseHeadersPolicy(scope, jsii.String(hp.Name), props)
}

func frameOption(o string) awscloudfront.HeadersFrameOption {
	switch o {
	case "DENY":
		return awscloudfront.HeadersFrameOption_DENY
	case "SAMEORIGIN":
		return awscloudfront.HeadersFrameOption_SAMEORIGIN
	}
	panic(fmt.Sprintf("edge: frame option %q", o))
}

func referrerPolicy(p string) awscloudfront.HeadersReferrerPolicy {
	switch p {
	case "no-referrer":
		return awscloudfront.HeadersReferrerPolicy_NO_REFERRER
	case "no-referrer-when-downgrade":
		return awscloudfront.HeadersReferrerPolicy_NO_REFERRER_WHEN_DOWNGRADE
	case "origin":
		return awscloudfront.HeadersReferrerPolicy_ORIGIN
	case "origin-when-cross-origin":
		return awscloudfront.HeadersReferrerPolicy_ORIGIN_WHEN_CROSS_ORIGIN
	case "same-origin":
		return awscloudfront.HeadersReferrerPolicy_SAME_ORIGIN
	case "strict-origin":
		return awscloudfront.HeadersReferrerPolicy_STRICT_ORIGIN
	case "strict-origin-when-cross-origin":
		return awscloudfront.HeadersReferrerPolicy_STRICT_ORIGIN_WHEN_CROSS_ORIGIN
	case "unsafe-url":
		return awscloudfront.HeadersReferrerPolicy_UNSAFE_URL
	}
	panic(fmt.Sprintf("edge: referrer policy %q", p))
}

// function is the CloudFront Function name, made here unless the console
// brought it.
func (b *builder) function(name string) awscloudfront.IFunction {
	if f, ok := b.functions[name]; ok {
		return f
	}
	var f awscloudfront.IFunction
	switch name {
	case edgespec.CanonicalPathFunction:
		f = newCanonicalPathFunction(b.scope)
	case edgespec.QueryForwardFunction:
		f = newQueryForwardFunction(b.scope)
	case edgespec.VersionKeyFunction:
		f = newVersionKeyFunction(b.scope, b.versionStore)
	default:
		panic(fmt.Sprintf("edge: no CloudFront Function %q", name))
	}
	b.functions[name] = f
	return f
}

// target is the origin or origin group with id; a group is made once.
func (b *builder) target(id string) awscloudfront.IOrigin {
	if o, ok := b.origins[id]; ok {
		return o
	}
	var o awscloudfront.IOrigin
	if g, ok := b.spec.Group(id); ok {
		statuses := make([]*float64, len(g.FailoverStatusCodes))
		for i, s := range g.FailoverStatusCodes {
			statuses[i] = jsii.Number(float64(s))
		}
		o = awscloudfrontorigins.NewOriginGroup(&awscloudfrontorigins.OriginGroupProps{
			PrimaryOrigin:       b.origin(g.Primary),
			FallbackOrigin:      b.origin(g.Fallback),
			FallbackStatusCodes: &statuses,
		})
		b.origins[id] = o // groups only
		return o
	}
	return b.origin(id)
}

// origin makes the origin with id. Each use gets its own: CDK hands a
// behaviour whose origin object is also an origin group's member the
// group's ID, and the unlock behaviour must reach the primary redirect API
// alone (CloudFront refuses POST on an origin group).
func (b *builder) origin(id string) awscloudfront.IOrigin {
	so, ok := b.spec.Origin(id)
	if !ok {
		panic(fmt.Sprintf("edge: no origin %q", id))
	}
	var o awscloudfront.IOrigin
	switch so.Kind {
	case edgespec.RedirectOrigin:
		if b.secret == nil {
			b.secret = originSecretValue(b.p.OriginSecretARN, b.p.OriginSecretVersion)
		}
		headers := map[string]*string{}
		for _, h := range so.CustomHeaders {
			if h != OriginVerifyHeader {
				panic(fmt.Sprintf("edge: no value for the redirect origin's header %q", h))
			}
			headers[h] = b.secret
		}
		o = awscloudfrontorigins.NewHttpOrigin(b.p.RedirectOrigins[so.Region], &awscloudfrontorigins.HttpOriginProps{
			CustomHeaders:      &headers,
			ProtocolPolicy:     originProtocol(so),
			OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
			ConnectionAttempts: jsii.Number(float64(so.ConnectionAttempts)),
			ConnectionTimeout:  seconds(so.ConnectionTimeoutSeconds),
			ReadTimeout:        seconds(so.ReadTimeoutSeconds),
		})
	case edgespec.ManagementOrigin:
		var originPath *string // none: the API's stage is mapped at a custom domain's root
		if b.p.ManagementOriginPath != "" {
			originPath = jsii.String(b.p.ManagementOriginPath)
		}
		o = awscloudfrontorigins.NewHttpOrigin(b.p.ManagementOrigin, &awscloudfrontorigins.HttpOriginProps{
			OriginPath:         originPath,
			ProtocolPolicy:     originProtocol(so),
			OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
			ConnectionAttempts: jsii.Number(float64(so.ConnectionAttempts)),
			ConnectionTimeout:  seconds(so.ConnectionTimeoutSeconds),
			ReadTimeout:        seconds(so.ReadTimeoutSeconds),
		})
	case edgespec.ConsoleBucket:
		if b.p.Console == nil || b.p.Console.Origin == nil {
			panic("edge: the description has the console's bucket and Props.Console has no origin")
		}
		o = b.p.Console.Origin
	default:
		panic(fmt.Sprintf("edge: origin kind %q", so.Kind))
	}
	if so.MinTLS != "" && so.MinTLS != "TLSv1.2" {
		panic(fmt.Sprintf("edge: origin %q: TLS %q", id, so.MinTLS))
	}
	return o
}

func originProtocol(o edgespec.Origin) awscloudfront.OriginProtocolPolicy {
	if o.HTTPSOnly {
		return awscloudfront.OriginProtocolPolicy_HTTPS_ONLY
	}
	return awscloudfront.OriginProtocolPolicy_MATCH_VIEWER
}

func errorResponses(rs []edgespec.ErrorResponse) *[]*awscloudfront.ErrorResponse {
	if len(rs) == 0 {
		return nil
	}
	out := make([]*awscloudfront.ErrorResponse, len(rs))
	for i, r := range rs {
		out[i] = &awscloudfront.ErrorResponse{HttpStatus: jsii.Number(float64(r.Status)), Ttl: seconds(r.CachingMinTTLSeconds)}
	}
	return &out
}

// realtimeLog is the real-time log configuration: every edge request, hit
// or miss, so clicks served from the cache are counted too.
func (b *builder) realtimeLog() awscloudfront.RealtimeLogConfig {
	rl := b.spec.RealtimeLog
	logRole := awsiam.NewRole(b.scope, jsii.String("RealtimeLogRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("cloudfront.amazonaws.com"), nil),
		Description: jsii.String("Lets CloudFront write real-time log records to the click stream"),
	})
	stream := awskinesis.Stream_FromStreamArn(b.scope, jsii.String("ClickStream"), b.p.ClickStreamARN)
	return awscloudfront.NewRealtimeLogConfig(b.scope, jsii.String(rl.Name), &awscloudfront.RealtimeLogConfigProps{
		EndPoints:    &[]awscloudfront.Endpoint{awscloudfront.Endpoint_FromKinesisStream(stream, logRole)},
		Fields:       jsii.Strings(rl.Fields...),
		SamplingRate: jsii.Number(float64(rl.SamplingRate)),
	})
}

// WAFRateRuleName is the rate-based rule against code enumeration.
const WAFRateRuleName = edgespec.WAFRateRuleName

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
	WAFCanonicalPathRuleName = edgespec.WAFCanonicalPathRuleName
	NonCanonicalPathBody     = edgespec.NonCanonicalPathBody
	nonCanonicalPathBodyKey  = "NonCanonicalPath"
)

// newWebACL blocks an IP that asks for more than limit redirect paths in
// five minutes: enumerating codes takes many requests per hit
// (docs/codes.md), a person clicking links does not. /v1 is left to
// the usage plan's per-key throttle. It also answers 400 to a redirect
// path with a "%" in it (see WAFCanonicalPathRuleName).
func newWebACL(scope constructs.Construct, acl edgespec.WebACL) awswafv2.CfnWebACL {
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
			Name:     jsii.String(acl.RateRule),
			Priority: jsii.Number(0),
			Action:   &awswafv2.CfnWebACL_RuleActionProperty{Block: map[string]any{}},
			Statement: &awswafv2.CfnWebACL_StatementProperty{
				RateBasedStatement: &awswafv2.CfnWebACL_RateBasedStatementProperty{
					AggregateKeyType:    jsii.String("IP"),
					Limit:               jsii.Number(float64(acl.RateLimit)),
					EvaluationWindowSec: jsii.Number(300),
					ScopeDownStatement:  notAPI,
				},
			},
			VisibilityConfig: visibility(acl.RateRule),
		}, {
			Name:     jsii.String(acl.CanonicalPathRule),
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
			VisibilityConfig: visibility(acl.CanonicalPathRule),
		}},
	})
}

// ViewerAddressHeader is the header CloudFront adds to the redirect's
// origin requests: the viewer's IP address and source port
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
const ViewerAddressHeader = edgespec.ViewerAddressHeader

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

func newCanonicalPathFunction(scope constructs.Construct) awscloudfront.IFunction {
	return awscloudfront.NewFunction(scope, jsii.String("CanonicalPath"), &awscloudfront.FunctionProps{
		Comment: jsii.String("Refuses percent-encoded spellings of redirect paths (400), which the edge would cache out of reach of invalidations"),
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(CanonicalPathFunctionCode)),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
	})
}

// QueryForwardFunctionCode is the source of the redirect behaviour's
// viewer-response CloudFront Function (shared/edgespec
// functions/query-forward.js) that merges the visitor's query into a
// redirect's Location on every answer, cache hits included, so the cache
// key stays the path alone. The redirect origin says the link's choice in
// edgespec.QueryForwardHeader, which the function removes. Like the
// canonical-path function it is billed per request, $0.10 per million
// (https://aws.amazon.com/cloudfront/pricing/).
var QueryForwardFunctionCode = edgespec.MustFunctionSource(edgespec.QueryForwardFunction)

func newQueryForwardFunction(scope constructs.Construct) awscloudfront.IFunction {
	return awscloudfront.NewFunction(scope, jsii.String("QueryForward"), &awscloudfront.FunctionProps{
		Comment: jsii.String("Merges the visitor's query into a redirect's Location after the cache, whose key stays the path"),
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(QueryForwardFunctionCode)),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
	})
}

// VersionKeyFunctionCode is the source of the redirect behaviour's
// viewer-request CloudFront Function with VersionKeys (shared/edgespec
// functions/version-key.js): canonical-path's refusal, then the path's
// version from the key value store into edgespec.VersionHeader, which the
// redirect cache policy keys on. One function, since a behaviour takes
// one per event type; billed per request as canonical-path is, plus the
// store's reads.
var VersionKeyFunctionCode = edgespec.MustFunctionSource(edgespec.VersionKeyFunction)

// newVersionKeyFunction makes the function with store associated
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/kvs-with-functions-associate.html):
// its code reads it with cf.kvs(), no ID needed.
func newVersionKeyFunction(scope constructs.Construct, store awscloudfront.IKeyValueStore) awscloudfront.IFunction {
	return awscloudfront.NewFunction(scope, jsii.String("VersionKey"), &awscloudfront.FunctionProps{
		Comment:       jsii.String("Refuses percent-encoded redirect paths and keys the cache on the link version the key value store holds"),
		Code:          awscloudfront.FunctionCode_FromInline(jsii.String(VersionKeyFunctionCode)),
		Runtime:       awscloudfront.FunctionRuntime_JS_2_0(),
		KeyValueStore: store,
	})
}
