package edgespec

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

// Options are the parts of a deployment's configuration that shape the
// distribution.
type Options struct {
	// WAF puts the web ACL in front of the distribution; without it a
	// CloudFront Function refuses non-canonical redirect paths.
	WAF bool
	// WAFRateLimit is the web ACL's per-IP limit of redirect requests in
	// five minutes (with WAF).
	WAFRateLimit int
	// Failover adds a second redirect origin and the origin group that
	// fails over to it.
	Failover bool
	// Console adds the web console's behaviours and bucket origin.
	Console bool
	// VersionKeys keys the redirect cache on each path's version in a
	// CloudFront KeyValueStore (VersionKeyFunction, VersionHeader): a
	// changed link gets a new version instead of an invalidation, and no
	// edge marks are kept (docs/cost-model.md, "Versioned cache keys").
	VersionKeys bool
	// ConsoleTokenOrigin is the origin of the identity provider's token
	// endpoint when it is not the console's own (Cognito's hosted domain):
	// the console's CSP lets it be fetched (console.CSP). Empty when
	// sign-in is off or the endpoint is on the same origin (the local run).
	ConsoleTokenOrigin string
}

// Spec describes a CloudFront distribution: what CloudFront is told, in
// its own terms.
type Spec struct {
	Comment string
	// Behaviors are the cache behaviours in the order CloudFront tries
	// their path patterns; the first that matches serves the request.
	Behaviors []Behavior
	// Default serves what no behaviour's pattern matches (path pattern "*").
	Default      Behavior
	Origins      []Origin
	OriginGroups []OriginGroup
	// ErrorResponses set error caching minimum TTLs per status; a status
	// not listed is kept DefaultErrorCachingMinTTLSeconds.
	ErrorResponses []ErrorResponse
	// RealtimeLog is the real-time log configuration the behaviours with
	// RealtimeLog set feed.
	RealtimeLog RealtimeLog
	// WebACL is the WAF web ACL; nil when WAF is off.
	WebACL *WebACL
}

// DefaultErrorCachingMinTTLSeconds is how long CloudFront keeps a cacheable
// error answer when the distribution sets no error caching minimum for its
// status: "By default, CloudFront caches error responses for 10 seconds"
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/custom-error-pages-expiration.html).
const DefaultErrorCachingMinTTLSeconds = 10

// ErrorResponse is a custom error response that sets only the error
// caching minimum TTL of Status.
type ErrorResponse struct {
	Status               int
	CachingMinTTLSeconds int
}

// ViewerProtocol is a behaviour's ViewerProtocolPolicy
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_CacheBehavior.html).
type ViewerProtocol string

// The viewer protocol policies.
const (
	RedirectToHTTPS ViewerProtocol = "redirect-to-https"
	HTTPSOnly       ViewerProtocol = "https-only"
	AllowAll        ViewerProtocol = "allow-all"
)

// The method sets CloudFront allows on a behaviour (AllowedMethods) and
// caches (CachedMethods); no other set exists.
var (
	MethodsGetHead        = []string{"GET", "HEAD"}
	MethodsGetHeadOptions = []string{"GET", "HEAD", "OPTIONS"}
	MethodsAll            = []string{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}
)

// Behavior is a cache behaviour.
type Behavior struct {
	// PathPattern is CloudFront's pattern: "*" matches any run of
	// characters, "?" one; "*" alone is the default behaviour.
	PathPattern string
	// TargetOrigin is the ID of an Origin or an OriginGroup.
	TargetOrigin   string
	ViewerProtocol ViewerProtocol
	AllowedMethods []string
	CachedMethods  []string
	Compress       bool
	CachePolicy    CachePolicy
	// OriginRequestPolicy is nil when the behaviour has none: the origin
	// then gets only what the cache key holds.
	OriginRequestPolicy *OriginRequestPolicy
	// ResponseHeadersPolicy is nil when the behaviour has none.
	ResponseHeadersPolicy *ResponseHeadersPolicy
	Functions             []FunctionAssociation
	// RealtimeLog attaches the distribution's real-time log configuration.
	RealtimeLog bool
}

// Allows reports whether b allows method.
func (b Behavior) Allows(method string) bool { return slices.Contains(b.AllowedMethods, method) }

// KeyBehavior says which of a kind of request values (headers, cookies,
// query strings) a policy takes.
type KeyBehavior string

// The key behaviours. AllViewerAndCloudFront is an origin request policy's
// allViewerAndWhitelistCloudFront.
const (
	KeyNone                = KeyBehavior("none")
	KeyAll                 = KeyBehavior("all")
	KeyAllowList           = KeyBehavior("whitelist")
	KeyAllExcept           = KeyBehavior("allExcept")
	KeyAllViewer           = KeyBehavior("allViewer")
	KeyAllViewerCloudFront = KeyBehavior("allViewerAndWhitelistCloudFront")
)

// KeyValues are which values of one kind a policy takes: Names with
// KeyAllowList or KeyAllExcept, none otherwise.
type KeyValues struct {
	Behavior KeyBehavior
	Names    []string
}

// None takes nothing of a kind.
var None = KeyValues{Behavior: KeyNone}

// CachePolicy is a cache policy: the TTL bounds and the cache key. Managed
// names one of CloudFront's managed policies, whose ID is ManagedID; the
// other fields then say what that policy is
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/using-managed-cache-policies.html).
type CachePolicy struct {
	// Name is the policy's construct ID in infra (custom policies).
	Name      string
	Comment   string
	Managed   string
	ManagedID string

	MinTTLSeconds, DefaultTTLSeconds, MaxTTLSeconds int

	Headers, Cookies, QueryStrings KeyValues
	// AcceptEncodingGzip and AcceptEncodingBrotli put the normalised
	// Accept-Encoding in the key (and let CloudFront ask for and serve
	// compressed objects).
	AcceptEncodingGzip, AcceptEncodingBrotli bool
}

// Caches reports whether an answer may be kept at all under p.
func (p CachePolicy) Caches() bool { return p.MaxTTLSeconds > 0 || p.DefaultTTLSeconds > 0 }

// CachingDisabled is the managed policy that keeps nothing.
var CachingDisabled = CachePolicy{
	Managed: "CachingDisabled", ManagedID: "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
	Headers: None, Cookies: None, QueryStrings: None,
}

// CachingOptimized is the managed policy for static objects.
var CachingOptimized = CachePolicy{
	Managed: "CachingOptimized", ManagedID: "658327ea-f89d-4fab-a63d-7e88639e58f6",
	MinTTLSeconds: 1, DefaultTTLSeconds: 86400, MaxTTLSeconds: 31536000,
	Headers: None, Cookies: None, QueryStrings: None,
	AcceptEncodingGzip: true, AcceptEncodingBrotli: true,
}

// OriginRequestPolicy is an origin request policy: what of the viewer's
// request CloudFront sends the origin besides the cache key, and which of
// the headers CloudFront adds itself
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
type OriginRequestPolicy struct {
	Name    string
	Comment string
	// Managed names one of CloudFront's managed policies, whose ID is
	// ManagedID; the other fields then say what that policy is
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/using-managed-origin-request-policies.html).
	Managed   string
	ManagedID string
	// Headers are the viewer's headers, CloudFrontHeaders those CloudFront
	// adds; CloudFront takes both in one allow list.
	Headers           KeyValues
	CloudFrontHeaders []string
	Cookies           KeyValues
	QueryStrings      KeyValues
}

// AllViewerExceptHostHeader is CloudFront's managed origin request
// policy of that name: every viewer header but Host, every cookie, the
// whole query string, and CloudFront's own headers (device type, viewer
// location and address, protocol and TLS: of them, the ones the local
// edge writes are listed)
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/using-managed-origin-request-policies.html).
// With the CachingDisabled cache policy it is how a behaviour passes the
// viewer's Authorization to its origin: a policy of our own cannot list
// Authorization (CloudFront refuses it with a 400,
// https://repost.aws/knowledge-center/cloudfront-authorization-header).
func AllViewerExceptHostHeader() *OriginRequestPolicy {
	return &OriginRequestPolicy{
		Managed: "AllViewerExceptHostHeader", ManagedID: "b689b0a8-53d0-40ab-baf2-68738e2966ac",
		Headers:           KeyValues{Behavior: KeyAllExcept, Names: []string{"Host"}},
		CloudFrontHeaders: RedirectCloudFrontHeaders(),
		Cookies:           KeyValues{Behavior: KeyAll},
		QueryStrings:      KeyValues{Behavior: KeyAll},
	}
}

// AuthorizationHeader is the header an origin request policy of our own
// may not list (AllViewerExceptHostHeader says why).
const AuthorizationHeader = "Authorization"

// ListsAuthorization reports whether p is a policy of our own whose
// header allow list names Authorization, which CloudFront refuses.
func (p OriginRequestPolicy) ListsAuthorization() bool {
	return p.Managed == "" && slices.ContainsFunc(p.HeaderNames(), func(h string) bool { return strings.EqualFold(h, AuthorizationHeader) })
}

// HeaderNames is the policy's header allow list as CloudFront takes it:
// the viewer headers, then the CloudFront headers.
func (p OriginRequestPolicy) HeaderNames() []string {
	return append(slices.Clone(p.Headers.Names), p.CloudFrontHeaders...)
}

// ResponseHeadersPolicy is a response headers policy. Override on a header
// replaces the origin's header of that name; without it CloudFront adds
// the header only to answers that lack it
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/understanding-response-headers-policies.html).
type ResponseHeadersPolicy struct {
	Name     string
	Comment  string
	Security SecurityHeaders
	Custom   []Header
}

// Header is a response header a policy sets.
type Header struct {
	Name     string
	Value    string
	Override bool
}

// SecurityHeaders are a policy's security headers; a nil one is not set.
type SecurityHeaders struct {
	StrictTransportSecurity *StrictTransportSecurity
	ContentTypeOptions      *ContentTypeOptions
	FrameOptions            *FrameOptions
	ReferrerPolicy          *ReferrerPolicy
	ContentSecurityPolicy   *ContentSecurityPolicy
	XSSProtection           *XSSProtection
}

// StrictTransportSecurity is Strict-Transport-Security.
type StrictTransportSecurity struct {
	MaxAgeSeconds     int
	IncludeSubdomains bool
	Preload           bool
	Override          bool
}

// ContentTypeOptions is X-Content-Type-Options: nosniff.
type ContentTypeOptions struct{ Override bool }

// FrameOptions is X-Frame-Options: DENY or SAMEORIGIN.
type FrameOptions struct {
	Option   string
	Override bool
}

// ReferrerPolicy is Referrer-Policy.
type ReferrerPolicy struct {
	Policy   string
	Override bool
}

// ContentSecurityPolicy is Content-Security-Policy.
type ContentSecurityPolicy struct {
	Policy   string
	Override bool
}

// XSSProtection is X-XSS-Protection.
type XSSProtection struct {
	Protection bool
	ModeBlock  bool
	ReportURI  string
	Override   bool
}

// Headers are the headers p sets, as CloudFront writes them: the security
// headers, then the custom ones.
func (p ResponseHeadersPolicy) Headers() []Header {
	var out []Header
	s := p.Security
	if h := s.StrictTransportSecurity; h != nil {
		v := "max-age=" + strconv.Itoa(h.MaxAgeSeconds)
		if h.IncludeSubdomains {
			v += "; includeSubDomains"
		}
		if h.Preload {
			v += "; preload"
		}
		out = append(out, Header{"Strict-Transport-Security", v, h.Override})
	}
	if h := s.ContentTypeOptions; h != nil {
		out = append(out, Header{"X-Content-Type-Options", "nosniff", h.Override})
	}
	if h := s.FrameOptions; h != nil {
		out = append(out, Header{"X-Frame-Options", h.Option, h.Override})
	}
	if h := s.ReferrerPolicy; h != nil {
		out = append(out, Header{"Referrer-Policy", h.Policy, h.Override})
	}
	if h := s.ContentSecurityPolicy; h != nil {
		out = append(out, Header{"Content-Security-Policy", h.Policy, h.Override})
	}
	if h := s.XSSProtection; h != nil {
		v := "0"
		if h.Protection {
			v = "1"
			if h.ModeBlock {
				v += "; mode=block"
			}
			if h.ReportURI != "" {
				v += "; report=" + h.ReportURI
			}
		}
		out = append(out, Header{"X-XSS-Protection", v, h.Override})
	}
	return append(out, p.Custom...)
}

// FunctionEventType is when a CloudFront Function runs.
type FunctionEventType string

// The CloudFront Functions event types.
const (
	ViewerRequest  FunctionEventType = "viewer-request"
	ViewerResponse FunctionEventType = "viewer-response"
)

// FunctionAssociation runs the CloudFront Function Function (its name;
// FunctionSource gives its JavaScript) on EventType.
type FunctionAssociation struct {
	EventType FunctionEventType
	Function  string
	// KeyValueStore associates the distribution's key value store (of
	// link versions) with the function.
	KeyValueStore bool
}

// OriginKind is what an origin is.
type OriginKind string

// The origins the distribution has.
const (
	RedirectOrigin   OriginKind = "redirect-api"
	ManagementOrigin OriginKind = "management-api"
	ConsoleBucket    OriginKind = "console-bucket"
)

// Origin is an origin. The custom origins' timeouts are CloudFront's
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/DownloadDistValuesOrigin.html);
// the bucket's are CloudFront's defaults.
type Origin struct {
	ID   string
	Kind OriginKind
	// Region is which redirect API: 0 the primary Region's, 1 the one the
	// origin group fails over to.
	Region int
	// CustomHeaders are the names of the headers CloudFront adds to every
	// request to the origin; their values are the deployment's (a secret).
	CustomHeaders []string
	// HTTPSOnly and MinTLS are the custom origin's protocol policy and
	// SSL protocols.
	HTTPSOnly                bool
	MinTLS                   string
	ConnectionAttempts       int
	ConnectionTimeoutSeconds int
	ReadTimeoutSeconds       int
	// OriginAccessControl signs the requests to a bucket (read only).
	OriginAccessControl bool
}

// OriginGroup fails over from Primary to Fallback on FailoverStatusCodes
// (and a connection failure or time-out), for GET, HEAD and OPTIONS only
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/high_availability_origin_failover.html).
type OriginGroup struct {
	ID                  string
	Primary, Fallback   string
	FailoverStatusCodes []int
}

// RealtimeLog is the real-time log configuration: every request (100 %
// sampling) with Fields, into the click stream.
type RealtimeLog struct {
	Name         string
	SamplingRate int
	Fields       []string
}

// WebACL is the WAF web ACL in front of the distribution.
type WebACL struct {
	// RateLimit blocks an IP past this many redirect requests in five
	// minutes; RateRule and CanonicalPathRule are the rules' names.
	RateLimit         int
	RateRule          string
	CanonicalPathRule string
}

// The path patterns of the behaviours.
const (
	DefaultPathPattern    = "*"
	ManagementPathPattern = "/v1/*"
	ConsoleRootPattern    = "/console"
	ConsoleHTMLPattern    = "/console/*"
	ConsoleAssetsPattern  = "/console/assets/*"
)

// UnlockPathPattern is the behaviour of the password forms' POSTs
// (link.UnlockPath).
var UnlockPathPattern = link.UnlockPath("*")

// The origins' and the group's IDs.
const (
	RedirectOriginID         = "redirect"
	FallbackRedirectOriginID = "redirect-fallback"
	RedirectGroupID          = "redirects"
	ManagementOriginID       = "management"
	ConsoleOriginID          = "console"
)

// OriginVerifyHeader is the custom header CloudFront adds to every request
// it sends to a redirect origin, holding the origin secret; the redirect
// APIs' authorizer (functions/originauth) lets nothing else through
// ("Identifying requests from CloudFront",
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/add-origin-custom-headers.html).
const OriginVerifyHeader = "X-Origin-Verify"

// ViewerAddressHeader is the header CloudFront adds to the redirect's
// origin requests: the viewer's IP address and source port, which the
// redirect origin's budget of unknown codes is kept by (shared/missbudget).
const ViewerAddressHeader = "CloudFront-Viewer-Address"

// Redirect cache TTL bounds. The origin's Cache-Control (s-maxage) decides
// within them: MinTTL 0 so a short or zero s-maxage for a young or
// expiring link is honoured, MaxTTL one year for immutable links, the
// default only when the origin sends no Cache-Control.
const (
	RedirectMinTTLSeconds     = 0
	RedirectDefaultTTLSeconds = 60
	RedirectMaxTTLSeconds     = 365 * 24 * 60 * 60
)

// FailoverStatusCodes send a redirect to the fallback Region.
var FailoverStatusCodes = []int{500, 502, 503, 504}

// ConsoleRewriteFunctionName is the console's viewer-request function,
// as CanonicalPathFunction is the redirects'. Its source is still
// infra/webconsole's.
const ConsoleRewriteFunctionName = "console-rewrite"

// ForwardedAPIHeaders are the viewer headers /v1 needs at the origin:
// the API key or the signed-in user's token, the idempotency and
// precondition headers, the content type and Accept (the REST API picks
// binary answers, the QR code's PNG, by the request's Accept). The /v1
// behaviour's policy, AllViewerExceptHostHeader, passes them all and the
// viewer's Host never: API Gateway routes on its own host name. The
// console's X-Shortener-Client (audit.ClientHeader) tells its changes
// from the API's on the audit log.
var ForwardedAPIHeaders = []string{"x-api-key", AuthorizationHeader, "Idempotency-Key", "If-Match", "Content-Type", "Accept", "X-Shortener-Client"}

// RedirectViewerHeaders are the viewer headers the redirect and unlock
// behaviours forward to their origin: Accept-Language the redirect rules
// read, User-Agent (bots never use up a click limit; the desktop OS), and
// Content-Type, which a protected link's password form POSTs with. They are
// in the origin request policy, not the cache key, so links without rules
// keep one cache entry per path; the answers that depend on them are
// no-store.
func RedirectViewerHeaders() []string {
	var out []string
	for _, h := range viewer.OriginHeaders {
		if !isCloudFrontHeader(h) {
			out = append(out, h)
		}
	}
	return append(out, "Content-Type")
}

// RedirectCloudFrontHeaders are the headers CloudFront adds to the redirect
// and unlock behaviours' origin requests: the viewer's country and device
// type the rules read, and the viewer's address for the miss budget.
func RedirectCloudFrontHeaders() []string {
	var out []string
	for _, h := range viewer.OriginHeaders {
		if isCloudFrontHeader(h) {
			out = append(out, h)
		}
	}
	return append(out, ViewerAddressHeader)
}

func isCloudFrontHeader(h string) bool { return strings.HasPrefix(strings.ToLower(h), "cloudfront-") }

// The web ACL's rules.
const (
	WAFRateRuleName          = "RedirectRatePerIP"
	WAFCanonicalPathRuleName = "CanonicalRedirectPath"
)

// RedirectCache is the redirect behaviour's cache policy: nothing but the
// path in the key, one cached answer per code, so query strings, cookies
// and headers cannot split (or bust) it; and no Accept-Encoding, since a
// redirect's body is a few bytes.
func RedirectCache() CachePolicy {
	return CachePolicy{
		Name:              "RedirectCache",
		Comment:           "Redirects: cached by path only, for as long as the origin's s-maxage says",
		MinTTLSeconds:     RedirectMinTTLSeconds,
		DefaultTTLSeconds: RedirectDefaultTTLSeconds,
		MaxTTLSeconds:     RedirectMaxTTLSeconds,
		Headers:           None, Cookies: None, QueryStrings: None,
	}
}

// VersionedRedirectCache is RedirectCache keyed on VersionHeader too,
// which VersionKeyFunction sets on every request, overwriting a viewer's:
// still one cached answer per code and version, never split by the
// viewer. An answer kept under an old version is never asked for again
// once the store holds a new one.
func VersionedRedirectCache() CachePolicy {
	p := RedirectCache()
	p.Comment = "Redirects: cached by path and link version only, for as long as the origin's s-maxage says"
	p.Headers = KeyValues{Behavior: KeyAllowList, Names: []string{VersionHeader}}
	return p
}

// RedirectRequests is the redirect and unlock behaviours' origin request
// policy: the viewer headers the redirect rules and the click limit read
// and the viewer's address for the budget of unknown codes, all outside the
// cache key; never Host or cookies. The query goes to the origin, outside
// the cache key too, for one answer only: a protected link's password form
// posts it back (its 303 is merged by the query-forward function from the
// request it answers). A cached redirect never reads it, so one cache entry
// still serves every query.
func RedirectRequests() *OriginRequestPolicy {
	return &OriginRequestPolicy{
		Name:              "RedirectRequests",
		Comment:           "Redirects: the viewer headers the redirect rules read, the viewer's address for the miss budget and the query for the password form; never Host or cookies",
		Headers:           KeyValues{Behavior: KeyAllowList, Names: RedirectViewerHeaders()},
		CloudFrontHeaders: RedirectCloudFrontHeaders(),
		Cookies:           None,
		QueryStrings:      KeyValues{Behavior: KeyAll},
	}
}

// HSTSMaxAgeSeconds is two years of Strict-Transport-Security.
const HSTSMaxAgeSeconds = 730 * 24 * 60 * 60

// StrictCSP is the Content-Security-Policy of the service's own answers:
// JSON and a tiny "link expired" page with inline style; nothing else may
// load, nothing may frame it, and no form may be sent from it.
const StrictCSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// SecurityHeadersPolicy is the response headers policy of the /v1
// behaviour: every security header overrides whatever the API sent.
func SecurityHeadersPolicy() *ResponseHeadersPolicy {
	return &ResponseHeadersPolicy{
		Name:    "SecurityHeaders",
		Comment: "Security headers on every response",
		Security: SecurityHeaders{
			StrictTransportSecurity: &StrictTransportSecurity{MaxAgeSeconds: HSTSMaxAgeSeconds, IncludeSubdomains: true, Override: true},
			ContentTypeOptions:      &ContentTypeOptions{Override: true},
			FrameOptions:            &FrameOptions{Option: "DENY", Override: true},
			ReferrerPolicy:          &ReferrerPolicy{Policy: "strict-origin-when-cross-origin", Override: true},
			ContentSecurityPolicy:   &ContentSecurityPolicy{Policy: StrictCSP, Override: true},
			XSSProtection:           &XSSProtection{Protection: true, ModeBlock: true, Override: true},
		},
	}
}

// RedirectSecurityHeadersPolicy is the response headers policy of the
// redirect and unlock behaviours: the security headers of
// SecurityHeadersPolicy, but Content-Security-Policy and Referrer-Policy
// without override, so a page of the redirect origin that sets its own
// keeps them and every other answer still gets the strict ones. CloudFront
// adds a header without override only when the origin's answer lacks it
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/understanding-response-headers-policies.html).
//
// The password form needs both. Its CSP must let the form be sent: with
// form-action 'none' Chromium refuses to submit it, and Chromium checks
// form-action again on the 303 that answers the right password with the
// destination, which the form's page may not name before the password is
// given. So the form sets its own, with form-action open to 'self' and to
// http(s) URLs (functions/redirect/redirectfn formPage). And its
// Referrer-Policy, no-referrer, keeps the short link out of the
// destination's Referer.
func RedirectSecurityHeadersPolicy() *ResponseHeadersPolicy {
	p := SecurityHeadersPolicy()
	p.Name = "RedirectSecurityHeaders"
	p.Comment = "Security headers on every redirect answer; the redirect origin's own CSP and Referrer-Policy are kept"
	p.Security.ContentSecurityPolicy.Override = false
	p.Security.ReferrerPolicy.Override = false
	return p
}

// ConsoleHeadersPolicy is a console behaviour's response headers policy:
// the console's CSP and security headers, and cacheControl, all
// overriding what the bucket sent. A Cache-Control a response headers
// policy adds reaches viewers only; the cache policy decides how
// CloudFront caches
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/modifying-response-headers.html).
func ConsoleHeadersPolicy(name, comment, cacheControl string) *ResponseHeadersPolicy {
	return consoleHeadersPolicy(name, comment, cacheControl, "")
}

func consoleHeadersPolicy(name, comment, cacheControl, tokenOrigin string) *ResponseHeadersPolicy {
	return &ResponseHeadersPolicy{
		Name:    name,
		Comment: comment,
		Security: SecurityHeaders{
			ContentSecurityPolicy:   &ContentSecurityPolicy{Policy: console.CSP(tokenOrigin), Override: true},
			StrictTransportSecurity: &StrictTransportSecurity{MaxAgeSeconds: HSTSMaxAgeSeconds, IncludeSubdomains: true, Override: true},
			ContentTypeOptions:      &ContentTypeOptions{Override: true},
			FrameOptions:            &FrameOptions{Option: "DENY", Override: true},
			ReferrerPolicy:          &ReferrerPolicy{Policy: "no-referrer", Override: true},
		},
		Custom: []Header{{Name: "Cache-Control", Value: cacheControl, Override: true}},
	}
}

// ConsoleHTMLHeaders is the console HTML's policy.
func ConsoleHTMLHeaders() *ResponseHeadersPolicy { return ConsoleHTMLHeadersFor("") }

// ConsoleAssetHeaders is the console assets' policy.
func ConsoleAssetHeaders() *ResponseHeadersPolicy { return ConsoleAssetHeadersFor("") }

// ConsoleHTMLHeadersFor is the console HTML's policy with sign-in whose
// token endpoint is at tokenOrigin (Options.ConsoleTokenOrigin).
func ConsoleHTMLHeadersFor(tokenOrigin string) *ResponseHeadersPolicy {
	return consoleHeadersPolicy("HTMLHeaders", "Console HTML: strict CSP, never cached", console.HTMLCacheControl, tokenOrigin)
}

// ConsoleAssetHeadersFor is the console assets' policy with sign-in
// whose token endpoint is at tokenOrigin.
func ConsoleAssetHeadersFor(tokenOrigin string) *ResponseHeadersPolicy {
	return consoleHeadersPolicy("AssetHeaders", "Console assets: strict CSP, content-hashed so immutable", console.AssetCacheControl, tokenOrigin)
}

// Distribution describes the distribution a deployment configured by o
// has.
func Distribution(o Options) Spec {
	redirectTarget := RedirectOriginID
	origins := []Origin{redirectOrigin(RedirectOriginID, 0)}
	var groups []OriginGroup
	if o.Failover {
		origins = append(origins, redirectOrigin(FallbackRedirectOriginID, 1))
		groups = append(groups, OriginGroup{
			ID: RedirectGroupID, Primary: RedirectOriginID, Fallback: FallbackRedirectOriginID,
			FailoverStatusCodes: slices.Clone(FailoverStatusCodes),
		})
		redirectTarget = RedirectGroupID
	}
	origins = append(origins, Origin{
		ID: ManagementOriginID, Kind: ManagementOrigin, HTTPSOnly: true, MinTLS: "TLSv1.2",
		ConnectionAttempts: 3, ConnectionTimeoutSeconds: 10, ReadTimeoutSeconds: 30,
	})

	redirectHeaders := RedirectSecurityHeadersPolicy()
	redirects := RedirectRequests()
	d := Spec{
		Comment: "URL shortener: redirects, the /v1 API and the /console web console",
		Default: Behavior{
			PathPattern:           DefaultPathPattern,
			TargetOrigin:          redirectTarget,
			ViewerProtocol:        RedirectToHTTPS,
			AllowedMethods:        MethodsGetHead,
			CachedMethods:         MethodsGetHead,
			CachePolicy:           RedirectCache(),
			OriginRequestPolicy:   redirects,
			ResponseHeadersPolicy: redirectHeaders,
			RealtimeLog:           true,
		},
		Behaviors: []Behavior{{
			// A protected link's password form posts here. CloudFront
			// refuses POST on a behaviour whose target is an origin
			// group, so this one goes to the primary Region's redirect API
			// alone, uncached, logged like the redirects (the 303
			// answering the right password is a click).
			PathPattern:           UnlockPathPattern,
			TargetOrigin:          RedirectOriginID,
			ViewerProtocol:        HTTPSOnly,
			AllowedMethods:        MethodsAll,
			CachedMethods:         MethodsGetHead,
			CachePolicy:           CachingDisabled,
			OriginRequestPolicy:   redirects,
			ResponseHeadersPolicy: redirectHeaders,
			RealtimeLog:           true,
			// The 303 of the right password merges the query the form
			// posted back, as a redirect merges the viewer's.
			Functions: []FunctionAssociation{{EventType: ViewerResponse, Function: QueryForwardFunction}},
		}, {
			PathPattern:  ManagementPathPattern,
			TargetOrigin: ManagementOriginID,
			// HTTPS only rather than a redirect to it: a 301 answered to
			// a POST turns into a GET in many clients.
			ViewerProtocol: HTTPSOnly,
			AllowedMethods: MethodsAll,
			CachedMethods:  MethodsGetHead,
			// JSON compresses well; CloudFront compresses only for a
			// viewer that asks (Accept-Encoding).
			Compress:    true,
			CachePolicy: CachingDisabled,
			// The managed AllViewerExceptHostHeader: the only kind of
			// origin request policy that passes Authorization, which a
			// signed-in user's token travels in.
			OriginRequestPolicy:   AllViewerExceptHostHeader(),
			ResponseHeadersPolicy: SecurityHeadersPolicy(),
		}},
		RealtimeLog: RealtimeLog{Name: "ClickLog", SamplingRate: 100, Fields: slices.Clone(clicklog.Fields)},
	}
	if o.WAF {
		d.WebACL = &WebACL{RateLimit: o.WAFRateLimit, RateRule: WAFRateRuleName, CanonicalPathRule: WAFCanonicalPathRuleName}
	}
	switch {
	case o.VersionKeys:
		// One viewer-request function per behaviour: the version read
		// and the canonical-path check in one (with WAF the check is the
		// web ACL's too, and refuses nothing the ACL let through).
		d.Default.CachePolicy = VersionedRedirectCache()
		d.Default.Functions = []FunctionAssociation{{EventType: ViewerRequest, Function: VersionKeyFunction, KeyValueStore: true}}
	case !o.WAF:
		// Without the web ACL's canonical-path rule, this function refuses
		// percent-encoded redirect paths, before the cache.
		d.Default.Functions = []FunctionAssociation{{EventType: ViewerRequest, Function: CanonicalPathFunction}}
	}
	// The visitor's query goes on to the destination at the edge, after
	// the cache, whose key keeps the path alone.
	d.Default.Functions = append(d.Default.Functions, FunctionAssociation{EventType: ViewerResponse, Function: QueryForwardFunction})
	if o.Console {
		origins = append(origins, Origin{ID: ConsoleOriginID, Kind: ConsoleBucket, OriginAccessControl: true})
		html := Behavior{
			TargetOrigin:          ConsoleOriginID,
			ViewerProtocol:        RedirectToHTTPS,
			AllowedMethods:        MethodsGetHead,
			CachedMethods:         MethodsGetHead,
			Compress:              true,
			CachePolicy:           CachingDisabled,
			ResponseHeadersPolicy: ConsoleHTMLHeadersFor(o.ConsoleTokenOrigin),
			Functions:             []FunctionAssociation{{EventType: ViewerRequest, Function: ConsoleRewriteFunctionName}},
		}
		assets := Behavior{
			PathPattern:           ConsoleAssetsPattern,
			TargetOrigin:          ConsoleOriginID,
			ViewerProtocol:        RedirectToHTTPS,
			AllowedMethods:        MethodsGetHead,
			CachedMethods:         MethodsGetHead,
			Compress:              true,
			CachePolicy:           CachingOptimized,
			ResponseHeadersPolicy: ConsoleAssetHeadersFor(o.ConsoleTokenOrigin),
		}
		// The assets' pattern before /console/*, which would match them
		// too; "/console" alone is its own behaviour so that a short link
		// such as /consolation stays a redirect.
		root := html
		root.PathPattern = ConsoleRootPattern
		html.PathPattern = ConsoleHTMLPattern
		d.Behaviors = append(d.Behaviors, assets, html, root)
	}
	d.Origins, d.OriginGroups = origins, groups
	return d
}

// redirectOrigin is one Region's redirect HTTP API. Short timeouts: a
// Region that does not answer should fail over in seconds, not the default
// 3 x 10 s. Every request carries the origin secret, without which the API
// answers 401 or 403.
func redirectOrigin(id string, region int) Origin {
	return Origin{
		ID: id, Kind: RedirectOrigin, Region: region,
		CustomHeaders: []string{OriginVerifyHeader},
		HTTPSOnly:     true, MinTLS: "TLSv1.2",
		ConnectionAttempts: 2, ConnectionTimeoutSeconds: 3, ReadTimeoutSeconds: 10,
	}
}

// Match is the behaviour CloudFront picks for path (as the viewer sent
// it): the first whose pattern matches, else the default.
func (d Spec) Match(path string) Behavior {
	for _, b := range d.Behaviors {
		if MatchPattern(b.PathPattern, path) {
			return b
		}
	}
	return d.Default
}

// MatchPattern reports whether path matches a CloudFront path pattern:
// "*" any run of characters (none included), "?" exactly one, everything
// else itself, case-sensitively
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/distribution-web-values-specify.html#DownloadDistValuesPathPattern).
// A pattern without a leading "/" matches as though it had one.
func MatchPattern(pattern, path string) bool {
	if pattern != "" && pattern[0] != '/' && pattern[0] != '*' {
		pattern = "/" + pattern
	}
	// Iterative glob with one backtrack point: linear in practice.
	p, s := 0, 0
	star, mark := -1, 0
	for s < len(path) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, s
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == path[s]):
			p++
			s++
		case star >= 0:
			p = star + 1
			mark++
			s = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// Origin returns the origin with id.
func (d Spec) Origin(id string) (Origin, bool) {
	for _, o := range d.Origins {
		if o.ID == id {
			return o, true
		}
	}
	return Origin{}, false
}

// Group returns the origin group with id.
func (d Spec) Group(id string) (OriginGroup, bool) {
	for _, g := range d.OriginGroups {
		if g.ID == id {
			return g, true
		}
	}
	return OriginGroup{}, false
}

// AllBehaviors are the behaviours in CloudFront's order, the default last.
func (d Spec) AllBehaviors() []Behavior {
	return append(slices.Clone(d.Behaviors), d.Default)
}
