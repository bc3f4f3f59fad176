package edgespec

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
)

// APIKind is the flavour of API Gateway an API is deployed as. The two
// hand a function different paths and bodies, and only REST APIs have API
// keys and usage plans
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-vs-rest.html).
type APIKind string

const (
	// HTTPAPI is an API Gateway v2 HTTP API.
	HTTPAPI APIKind = "HTTP API"
	// RESTAPI is an API Gateway v1 REST API.
	RESTAPI APIKind = "REST API"
)

// Lambda names a function of the service: its directory under functions/.
type Lambda string

// The functions behind the APIs' routes and authorizers.
const (
	LambdaCreate     Lambda = "create"
	LambdaRedirect   Lambda = "redirect"
	LambdaManage     Lambda = "manage"
	LambdaStats      Lambda = "stats"
	LambdaWebhooks   Lambda = "webhooks"
	LambdaOriginAuth Lambda = "originauth"
	LambdaAPIAuth    Lambda = "apiauth"
)

// IntegrationKind is what answers a route, as CloudFormation's
// Integration Type spells it.
type IntegrationKind string

const (
	// LambdaProxy hands the request to a function (AWS_PROXY).
	LambdaProxy IntegrationKind = "AWS_PROXY"
	// MockIntegration answers from API Gateway itself (MOCK): the
	// problems page, ProblemsPage.
	MockIntegration IntegrationKind = "MOCK"
	// ServiceIntegration calls an AWS service action (AWS): the health
	// check's DynamoDB GetItem.
	ServiceIntegration IntegrationKind = "AWS"
)

// Integration says what answers a route.
type Integration struct {
	Kind IntegrationKind
	// Function is the LambdaProxy integration's function.
	Function Lambda
	// Action is the ServiceIntegration's service and action, as IAM
	// spells it: "dynamodb:GetItem".
	Action string
	// Page names the MockIntegration's static answer: ProblemsPage.
	Page string
}

// ProblemsPage is the mock integration's page: apigw.ProblemsPage, every
// problem type's explanation.
const ProblemsPage = "problems"

// HealthAction is what the health route's service integration does: one
// eventually consistent GetItem of a reserved item of the links table.
const HealthAction = "dynamodb:GetItem"

// Route is one method on one path of an API.
type Route struct {
	// Method is the HTTP method, upper case.
	Method string
	// Path is the path template, {name} segments for path parameters:
	// "/v1/links/{code}". A parameter is one whole segment.
	Path        string
	Integration Integration
	// APIKeyRequired makes API Gateway refuse the request, before any
	// function runs, without a key of the API's usage plan (REST only).
	APIKeyRequired bool
	// Authorizer names the API's authorizer (Authorizer.Name) that must
	// allow the request first; "" is none.
	Authorizer string
	// Throttle is the method's own throttle in the stage, below the
	// stage's; nil is the stage's (REST only).
	Throttle *Throttle
}

// Key is the route as an HTTP API's route key: "GET /{code}".
func (r Route) Key() string { return r.Method + " " + r.Path }

// PathParameters are the names of the route's {name} segments, in order.
func (r Route) PathParameters() []string {
	var names []string
	for _, seg := range strings.Split(r.Path, "/") {
		if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			names = append(names, seg[1:len(seg)-1])
		}
	}
	return names
}

// AuthorizerType is how an authorizer decides, as CloudFormation spells
// it.
type AuthorizerType string

// RequestAuthorizer is a Lambda authorizer given the request's identity
// sources (REQUEST).
const RequestAuthorizer AuthorizerType = "REQUEST"

// AuthorizerResponse is the shape of a Lambda authorizer's answer.
type AuthorizerResponse string

const (
	// SimpleResponse is an HTTP API authorizer's {"isAuthorized": bool}
	// (EnableSimpleResponses).
	SimpleResponse AuthorizerResponse = "SIMPLE"
	// IAMPolicyResponse is an IAM policy document.
	IAMPolicyResponse AuthorizerResponse = "IAM"
)

// Authorizer is a Lambda authorizer of an API
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-lambda-authorizer.html).
type Authorizer struct {
	// Name is what routes refer to, and the construct's ID.
	Name     string
	Type     AuthorizerType
	Function Lambda
	// IdentitySources are selection expressions such as
	// "$request.header.X-Origin-Verify". A request without one of them is
	// refused with 401 and invokes nothing
	// (https://docs.aws.amazon.com/apigatewayv2/latest/api-reference/apis-apiid-authorizers.html).
	// A REST API's REQUEST authorizer may have none when it caches
	// nothing (ResultTTL 0): it then runs on every request
	// (https://docs.aws.amazon.com/apigateway/latest/api/API_CreateAuthorizer.html,
	// identitySource).
	IdentitySources []string
	// ResultTTL caches an answer, allow or deny, per identity value.
	ResultTTL time.Duration
	Response  AuthorizerResponse
	// PayloadFormatVersion is the event an HTTP API's authorizer gets:
	// "2.0". A REST API's has none: its REQUEST event is
	// events.APIGatewayCustomAuthorizerRequestTypeRequest.
	PayloadFormatVersion string
}

// Throttle is a token bucket: RateLimit requests per second on average,
// BurstLimit at once
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html).
type Throttle struct {
	RateLimit  float64
	BurstLimit int
}

// UsagePlan is the throttle and quota every API key of a REST API gets
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-api-usage-plans.html).
type UsagePlan struct {
	Description string
	Throttle    Throttle
	// Quota is the requests a key may make per QuotaPeriod.
	Quota       int
	QuotaPeriod QuotaPeriod
}

// QuotaPeriod is a usage plan's quota period, as CloudFormation spells it.
type QuotaPeriod string

// QuotaPerDay counts a key's requests per UTC day.
const QuotaPerDay QuotaPeriod = "DAY"

// GatewayResponse is a REST API's own answer of one kind, in the
// problem+json shape (RFC 9457) the functions answer errors in
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
type GatewayResponse struct {
	// Type is the response type: "THROTTLED", "QUOTA_EXCEEDED".
	Type   string
	Status int
	// Title and Detail are the problem's; Slug its type's anchor in the
	// problems page (apigw.ProblemBase + Slug).
	Title, Slug, Detail string
}

// The gateway response types the management API sets.
const (
	ResponseMissingAuthenticationToken = "MISSING_AUTHENTICATION_TOKEN"
	ResponseInvalidAPIKey              = "INVALID_API_KEY"
	ResponseQuotaExceeded              = "QUOTA_EXCEEDED"
	ResponseThrottled                  = "THROTTLED"
	// ResponseUnauthorized is the authorizer's 401 (its error
	// "Unauthorized"), ResponseAccessDenied its Deny (403) and
	// ResponseAuthorizerFailure an authorizer that failed (500).
	ResponseUnauthorized      = "UNAUTHORIZED"
	ResponseAccessDenied      = "ACCESS_DENIED"
	ResponseAuthorizerFailure = "AUTHORIZER_FAILURE"
)

// Problem is the response as the problem it answers, for path.
func (g GatewayResponse) Problem(path string) apigw.Problem {
	return apigw.Problem{Type: apigw.ProblemBase + g.Slug, Title: g.Title, Status: g.Status, Detail: g.Detail, Instance: path}
}

// CORS is an API's cross-origin resource sharing. No API of the service
// has one: the console calls /v1 on its own origin, through CloudFront.
type CORS struct {
	AllowOrigins []string
	AllowMethods []string
	AllowHeaders []string
	MaxAge       time.Duration
}

// API is one API Gateway API.
type API struct {
	// Name is the API's name in this description: RedirectAPI or
	// ManagementAPI.
	Name        string
	Kind        APIKind
	Description string
	// Stage is the stage the API is deployed to and CloudFront calls:
	// "$default" (an HTTP API's, served without a path prefix) or "prod".
	Stage       string
	Routes      []Route
	Authorizers []Authorizer
	// BinaryMediaTypes are a REST API's binaryMediaTypes: a base64
	// response is decoded only for a request whose first Accept media type
	// matches one, and a request body whose Content-Type matches reaches
	// the function base64-encoded
	// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html).
	// An HTTP API has none and always decodes.
	BinaryMediaTypes []string
	// PayloadFormatVersion is the Lambda proxy event: "1.0" is
	// events.APIGatewayProxyRequest, what every handler takes. A REST
	// API's is always 1.0.
	PayloadFormatVersion string
	// IntegrationTimeout is how long API Gateway waits for a function;
	// 0 is API Gateway's default, 29 s
	// (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html).
	IntegrationTimeout time.Duration
	// Throttle is the stage's, for every method (REST only); nil leaves
	// the account's.
	Throttle *Throttle
	// APIKeySource is where a REST API reads the usage-plan key: "HEADER"
	// (x-api-key) or "AUTHORIZER" (the Lambda authorizer's
	// usageIdentifierKey,
	// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-api-key-source.html).
	APIKeySource string
	// UsagePlan throttles each API key (REST only); nil is none.
	UsagePlan *UsagePlan
	// GatewayResponses are the REST API's own answers, by type.
	GatewayResponses []GatewayResponse
	// CORS is nil: none.
	CORS *CORS
	// HealthPath is the route health checks ask, "" for none.
	HealthPath string
}

// RedirectAPI and ManagementAPI are the APIs' names.
const (
	RedirectAPI   = "redirect"
	ManagementAPI = "management"
)

// OriginAuthorizer is the redirect API's authorizer.
const OriginAuthorizer = "OriginSecret"

// APIAuthorizer is the management API's authorizer (functions/apiauth):
// an API key or a signed-in user's token.
const APIAuthorizer = "Caller"

// API key sources of a REST API.
const (
	KeySourceHeader     = "HEADER"
	KeySourceAuthorizer = "AUTHORIZER"
)

// OriginAuthHeader is the header CloudFront adds to every redirect origin
// request and OriginAuthorizer reads (functions/originauth).
const OriginAuthHeader = "X-Origin-Verify"

// OriginAuthorizerTTL is how long API Gateway caches the authorizer's
// answer per header value: CloudFront sends one value, so the authorizer
// runs about once per TTL; a rotation keeps the old value accepted longer
// than this (docs/deploy.md).
const OriginAuthorizerTTL = 5 * time.Minute

// RedirectTimeout is the redirect integration's timeout: past this
// CloudFront has long failed the request over.
const RedirectTimeout = 10 * time.Second

// ManagementStage is the management API's stage; CloudFront prefixes it.
const ManagementStage = "prod"

// HealthPath is the management API's health route: what Route 53 health
// checks ask each Region (infra/failover), and what the local edge asks
// each local Region.
const HealthPath = "/v1/health"

// ManagementThrottle is the /v1 stage's: the create path is provisioned
// for 1,000/s (the sizing in docs/cost-model.md).
var ManagementThrottle = Throttle{RateLimit: 1000, BurstLimit: 2000}

// DefaultUsagePlan is the /v1 usage plan a deployment gets unless its
// context sets apiRateLimit, apiBurstLimit or apiQuotaPerDay (infra
// config), and the one the local run plays.
var DefaultUsagePlan = UsagePlan{
	Description: "Throttle and daily quota of /v1 in this Region, metered on the deployment's usage-plan key",
	Throttle:    Throttle{RateLimit: 100, BurstLimit: 200},
	Quota:       1_000_000,
	QuotaPeriod: QuotaPerDay,
}

// APIs is the service's API Gateway surface with plan as the management
// API's usage plan: the redirect origin's HTTP API and the /v1 REST API.
// Every call returns a fresh value, so a caller may change its copy.
func APIs(plan UsagePlan) []API {
	return []API{Redirect(), Management(plan)}
}

// Redirect is the HTTP API CloudFront sends redirect misses to.
//
// An HTTP API, not REST: it costs $1.00 per million requests against
// REST's $3.50 (docs/sources.md S34) and every edge miss pays it; the
// redirect path needs none of REST's extras (keys, usage plans,
// validation). Payload format 1.0 keeps the event REST-shaped
// (events.APIGatewayProxyRequest), so the same handler serves both APIs
// and the local gateway.
//
// Only CloudFront may get an answer: the secret header is the
// authorizer's identity source, so API Gateway refuses a request without
// it with 401 and invokes nothing, neither the authorizer nor the redirect
// function; a wrong value is 403. Both answers are cached per header
// value, so a caller cycling guesses pays an authorizer run per guess and
// the redirect function's concurrency is never spent on it.
func Redirect() API {
	redirect := Integration{Kind: LambdaProxy, Function: LambdaRedirect}
	return API{
		Name:        RedirectAPI,
		Kind:        HTTPAPI,
		Description: "Short link redirects (CloudFront origin)",
		Stage:       "$default",
		Routes: []Route{
			{Method: http.MethodGet, Path: "/{code}", Integration: redirect, Authorizer: OriginAuthorizer},
			{Method: http.MethodHead, Path: "/{code}", Integration: redirect, Authorizer: OriginAuthorizer},
			// A protected link's password form, on the same function
			// behind the same authorizer.
			{Method: http.MethodPost, Path: link.UnlockPath("{code}"), Integration: redirect, Authorizer: OriginAuthorizer},
		},
		Authorizers: []Authorizer{{
			Name:                 OriginAuthorizer,
			Type:                 RequestAuthorizer,
			Function:             LambdaOriginAuth,
			IdentitySources:      []string{"$request.header." + OriginAuthHeader},
			ResultTTL:            OriginAuthorizerTTL,
			Response:             SimpleResponse,
			PayloadFormatVersion: "2.0",
		}},
		PayloadFormatVersion: "1.0",
		IntegrationTimeout:   RedirectTimeout,
	}
}

// Management is the /v1 REST API. Every method with a function behind it
// runs the Lambda authorizer APIAuthorizer first (functions/apiauth): it
// takes an API key (x-api-key, looked up in the keys table, shared/apikey)
// or a signed-in user's token (Authorization: Bearer) and hands the
// functions the caller's owner and role in requestContext.authorizer. It
// has no identity sources and caches nothing, so it also runs for a
// request with neither header, which then gets the API's problem+json
// 401 (UNAUTHORIZED) rather than API Gateway's bare one.
//
// The API key source is AUTHORIZER: the authorizer returns one
// usage-plan key per Region (infra/api creates it and attaches it to the
// usage plan) as usageIdentifierKey, so the usage plan's throttle and
// quota hold without an operator adding each key to each Region's plan.
// The price: they count the whole deployment's /v1 traffic in a Region,
// not each key's (docs/deploy.md). Only REST APIs have usage plans
// (docs/sources.md S33), and /v1 carries 1 % of the traffic, so REST's
// higher price is small here (docs/cost-model.md).
//
// GET /v1/problems and GET /v1/health need no key and run no function:
// API Gateway answers the first from a mock integration (the page every
// problem type refers to) and the second from one DynamoDB GetItem
// (Route 53's checkers carry no key).
func Management(plan UsagePlan) API {
	fn := func(l Lambda) Integration { return Integration{Kind: LambdaProxy, Function: l} }
	keyed := func(method, path string, l Lambda) Route {
		return Route{Method: method, Path: path, Integration: fn(l), APIKeyRequired: true, Authorizer: APIAuthorizer}
	}
	throttle := ManagementThrottle
	return API{
		Name:        ManagementAPI,
		Kind:        RESTAPI,
		Description: "Short link management API (/v1), behind CloudFront",
		Stage:       ManagementStage,
		Routes: []Route{
			keyed(http.MethodPost, "/v1/links", LambdaCreate),
			keyed(http.MethodGet, "/v1/links", LambdaManage),
			// The static resource wins over {code}; "batch" is a
			// reserved alias.
			keyed(http.MethodPost, "/v1/links/batch", LambdaCreate),
			keyed(http.MethodGet, "/v1/links/{code}", LambdaManage),
			keyed(http.MethodPatch, "/v1/links/{code}", LambdaManage),
			keyed(http.MethodDelete, "/v1/links/{code}", LambdaManage),
			keyed(http.MethodGet, "/v1/links/{code}/qr", LambdaManage),
			keyed(http.MethodGet, "/v1/links/{code}/stats", LambdaStats),
			// The account's stats (the owner's newest links, summed).
			keyed(http.MethodGet, "/v1/stats", LambdaStats),
			keyed(http.MethodGet, "/v1/tags", LambdaManage),
			{Method: http.MethodGet, Path: apigw.ProblemsPath, Integration: Integration{Kind: MockIntegration, Page: ProblemsPage}},
			{Method: http.MethodGet, Path: HealthPath, Integration: Integration{Kind: ServiceIntegration, Action: HealthAction}},
			keyed(http.MethodPost, "/v1/webhooks", LambdaWebhooks),
			keyed(http.MethodGet, "/v1/webhooks", LambdaWebhooks),
			keyed(http.MethodDelete, "/v1/webhooks/{id}", LambdaWebhooks),
			keyed(http.MethodGet, "/v1/webhooks/{id}/deliveries", LambdaWebhooks),
			// A workspace's members, for its admins (docs/teams.md).
			keyed(http.MethodGet, "/v1/members", LambdaManage),
			keyed(http.MethodPut, "/v1/members/{user}", LambdaManage),
			keyed(http.MethodDelete, "/v1/members/{user}", LambdaManage),
			// A workspace's API keys, for its admins (docs/api.md, "Keys").
			keyed(http.MethodPost, "/v1/keys", LambdaManage),
			keyed(http.MethodGet, "/v1/keys", LambdaManage),
			keyed(http.MethodDelete, "/v1/keys/{id}", LambdaManage),
			keyed(http.MethodPost, "/v1/keys/{id}/rotate", LambdaManage),
			// The audit log, read-only: no route changes or deletes an entry.
			keyed(http.MethodGet, "/v1/audit", LambdaManage),
		},
		// QR codes leave the manage function base64-encoded; "*/*"
		// matches every request (apigw.BinaryMediaTypes says why and what
		// it costs).
		BinaryMediaTypes:     slices.Clone(apigw.BinaryMediaTypes),
		PayloadFormatVersion: "1.0",
		Throttle:             &throttle,
		Authorizers: []Authorizer{{
			Name:     APIAuthorizer,
			Type:     RequestAuthorizer,
			Function: LambdaAPIAuth,
			Response: IAMPolicyResponse,
			// No identity sources and no cache: it runs for every
			// request, and a revoked key stops at once (within the keys
			// cache's TTL) rather than after an authorizer cache's.
		}},
		APIKeySource: KeySourceAuthorizer,
		UsagePlan:    &plan,
		// API Gateway's own refusals, answered as the rest of the API
		// answers errors. The authorizer decides 401 (no credential, or
		// a token that fails its checks) and 403 (an unknown or revoked
		// key); INVALID_API_KEY is an allowed request whose usage-plan key
		// is not in the plan, a deployment fault.
		GatewayResponses: []GatewayResponse{
			{Type: ResponseMissingAuthenticationToken, Status: http.StatusNotFound, Title: "Not found", Slug: "not-found", Detail: "no such resource"},
			{Type: ResponseInvalidAPIKey, Status: http.StatusForbidden, Title: "Missing or unknown API key", Slug: "forbidden", Detail: "send a valid API key in the x-api-key header"},
			{Type: ResponseUnauthorized, Status: http.StatusUnauthorized, Title: "Missing or invalid credentials", Slug: "unauthenticated", Detail: "send an API key in the x-api-key header or a token in Authorization: Bearer"},
			{Type: ResponseAccessDenied, Status: http.StatusForbidden, Title: "Forbidden", Slug: "forbidden", Detail: "the API key is not valid, or X-Workspace names a workspace the caller is not a member of"},
			{Type: ResponseAuthorizerFailure, Status: http.StatusInternalServerError, Title: "Internal error", Slug: "internal", Detail: "the credentials could not be checked; retry"},
			{Type: ResponseQuotaExceeded, Status: http.StatusTooManyRequests, Title: "Quota exceeded", Slug: "rate-limited", Detail: "the /v1 quota for today is used up"},
			{Type: ResponseThrottled, Status: http.StatusTooManyRequests, Title: "Too many requests", Slug: "rate-limited", Detail: "slow down and retry"},
		},
		HealthPath: HealthPath,
	}
}

// Find returns the API named name in apis.
func Find(apis []API, name string) (API, bool) {
	i := slices.IndexFunc(apis, func(a API) bool { return a.Name == name })
	if i < 0 {
		return API{}, false
	}
	return apis[i], true
}

// Authorizer returns the API's authorizer named name.
func (a API) Authorizer(name string) (Authorizer, bool) {
	i := slices.IndexFunc(a.Authorizers, func(z Authorizer) bool { return z.Name == name })
	if i < 0 {
		return Authorizer{}, false
	}
	return a.Authorizers[i], true
}

// GatewayResponse returns the API's gateway response of type typ.
func (a API) GatewayResponse(typ string) (GatewayResponse, bool) {
	i := slices.IndexFunc(a.GatewayResponses, func(g GatewayResponse) bool { return g.Type == typ })
	if i < 0 {
		return GatewayResponse{}, false
	}
	return a.GatewayResponses[i], true
}

// ErrInvalidAPI is returned by Validate for a description API Gateway
// would refuse, or that contradicts itself.
var ErrInvalidAPI = errors.New("invalid API description")

// Validate checks what holds for every API whatever builds it: routes
// with an upper-case method and a path template of whole segments, each
// method once per path, an integration that names what it calls,
// authorizers that exist, and REST-only settings only on a REST API.
func (a API) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: API %q: %s", ErrInvalidAPI, a.Name, fmt.Sprintf(format, args...)))
	}
	if a.Name == "" {
		bad("no name")
	}
	if a.Kind != HTTPAPI && a.Kind != RESTAPI {
		bad("kind %q is neither %q nor %q", a.Kind, HTTPAPI, RESTAPI)
	}
	if a.Kind == HTTPAPI {
		if a.UsagePlan != nil || a.APIKeySource != "" || len(a.BinaryMediaTypes) > 0 || len(a.GatewayResponses) > 0 {
			bad("usage plans, API keys, binary media types and gateway responses are REST API features")
		}
	}
	seen := map[string]bool{}
	for _, r := range a.Routes {
		switch {
		case r.Method == "" || r.Method != strings.ToUpper(r.Method):
			bad("route %s: the method must be upper case", r.Key())
		case !validPath(r.Path):
			bad("route %s: the path must be / and whole segments, names or {param}", r.Key())
		case seen[r.Key()]:
			bad("route %s: defined twice", r.Key())
		}
		seen[r.Key()] = true
		if r.APIKeyRequired && a.Kind != RESTAPI {
			bad("route %s: API keys are a REST API feature", r.Key())
		}
		if r.Authorizer != "" {
			if _, ok := a.Authorizer(r.Authorizer); !ok {
				bad("route %s: no authorizer %q", r.Key(), r.Authorizer)
			}
		}
		switch in := r.Integration; in.Kind {
		case LambdaProxy:
			if in.Function == "" {
				bad("route %s: a Lambda proxy integration names its function", r.Key())
			}
		case MockIntegration:
			if in.Page == "" {
				bad("route %s: a mock integration names its page", r.Key())
			}
		case ServiceIntegration:
			if in.Action == "" {
				bad("route %s: a service integration names its action", r.Key())
			}
		default:
			bad("route %s: integration kind %q", r.Key(), in.Kind)
		}
	}
	for _, z := range a.Authorizers {
		switch {
		case len(z.IdentitySources) == 0 && z.ResultTTL > 0:
			bad("authorizer %s: caching needs identity sources to key its answers by", z.Name)
		case a.Kind == HTTPAPI && len(z.IdentitySources) == 0:
			bad("authorizer %s: an HTTP API's authorizer has identity sources", z.Name)
		}
	}
	if a.APIKeySource == KeySourceAuthorizer {
		for _, r := range a.Routes {
			if r.APIKeyRequired && r.Authorizer == "" {
				bad("route %s: the usage-plan key comes from an authorizer, and the route has none", r.Key())
			}
		}
	}
	if a.HealthPath != "" && !slices.ContainsFunc(a.Routes, func(r Route) bool { return r.Method == http.MethodGet && r.Path == a.HealthPath }) {
		bad("health path %s has no GET route", a.HealthPath)
	}
	return errors.Join(errs...)
}

// validPath reports whether p is "/" followed by non-empty segments, each
// a name or a whole {param}.
func validPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	if p == "/" {
		return true
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" {
			return false
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}")
		param := len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}'
		if strings.ContainsAny(inner, "{}") || (!param && strings.ContainsAny(seg, "{}")) {
			return false
		}
	}
	return true
}
