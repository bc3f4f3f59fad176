package localgw

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// AuthorizerHandler is an HTTP API Lambda authorizer (payload format 2.0,
// simple responses): the signature of functions/originauth's Handle.
type AuthorizerHandler func(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error)

// Authorizer is a Lambda authorizer on a route, run as an HTTP API runs
// one (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-lambda-authorizer.html):
//
//   - The identity source is one header. A request without it, or with it
//     empty, is refused with 401 {"message":"Unauthorized"} and the
//     authorizer is not invoked (CreateAuthorizer, IdentitySource:
//     https://docs.aws.amazon.com/apigatewayv2/latest/api-reference/apis-apiid-authorizers.html).
//   - isAuthorized false is 403 {"message":"Forbidden"}; an authorizer
//     error or panic is 500 {"message":"Internal Server Error"}. Neither
//     reaches the route's handler.
//   - With a TTL, the answer, allow or deny, is cached per identity value
//     for that long and the authorizer is not invoked again for it; errors
//     are not cached.
//
// The deployed redirect origin has one (infra/api NewRedirect); the local
// run gives it the real authorizer handler and the local edge sends the
// header, so a request that goes around the edge is refused here as it is
// on AWS.
type Authorizer struct {
	// Header is the identity source, such as "X-Origin-Verify".
	Header  string
	Handler AuthorizerHandler
	// TTL caches answers per header value; 0 caches nothing.
	TTL time.Duration
	// Now reads the clock for the cache; time.Now when nil.
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]decision
	calls int
}

type decision struct {
	allow bool
	until time.Time
}

// Invocations counts the authorizer's invocations so far: what the cache
// saved shows against the requests served.
func (a *Authorizer) Invocations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// authorize returns 0 when the request may go on to the route's handler,
// otherwise the status API Gateway answers and its message.
func (a *Authorizer) authorize(ctx context.Context, r *http.Request, rt *Route, path, requestID string) (int, string) {
	value := r.Header.Get(a.Header)
	if value == "" {
		return http.StatusUnauthorized, "Unauthorized"
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	a.mu.Lock()
	if d, ok := a.cache[value]; ok && now().Before(d.until) {
		a.mu.Unlock()
		return verdict(d.allow)
	}
	a.calls++
	a.mu.Unlock()

	resp, err := a.invoke(ctx, authorizerEvent(r, rt, path, value, requestID))
	if err != nil {
		return http.StatusInternalServerError, "Internal Server Error"
	}
	if a.TTL > 0 {
		a.mu.Lock()
		if a.cache == nil {
			a.cache = map[string]decision{}
		}
		a.cache[value] = decision{allow: resp.IsAuthorized, until: now().Add(a.TTL)}
		a.mu.Unlock()
	}
	return verdict(resp.IsAuthorized)
}

// invoke runs the authorizer, turning a panic into an error as Lambda
// turns a crash into a failed invocation.
func (a *Authorizer) invoke(ctx context.Context, ev events.APIGatewayV2CustomAuthorizerV2Request) (resp events.APIGatewayV2CustomAuthorizerSimpleResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("authorizer panicked: %v", p)
		}
	}()
	return a.Handler(ctx, ev)
}

func verdict(allow bool) (int, string) {
	if allow {
		return 0, ""
	}
	return http.StatusForbidden, "Forbidden"
}

// authorizerEvent is the payload format 2.0 request an HTTP API sends its
// Lambda authorizer: header names lower-cased, repeated values joined with
// commas.
func authorizerEvent(r *http.Request, rt *Route, path, identity, requestID string) events.APIGatewayV2CustomAuthorizerV2Request {
	headers := make(map[string]string, len(r.Header)+1)
	for k, vs := range r.Header {
		headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	headers["host"] = r.Host
	routeKey := r.Method + " " + rt.resource()
	params, _ := rt.params(path)
	sourceIP, _, _ := net.SplitHostPort(r.RemoteAddr)
	return events.APIGatewayV2CustomAuthorizerV2Request{
		Version:        "2.0",
		Type:           "REQUEST",
		RouteArn:       "arn:aws:execute-api:local:000000000000:local/$default/" + r.Method + path,
		IdentitySource: []string{identity},
		RouteKey:       routeKey,
		RawPath:        path,
		RawQueryString: r.URL.RawQuery,
		Headers:        headers,
		PathParameters: params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:  routeKey,
			Stage:     "$default",
			RequestID: requestID,
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: path, Protocol: r.Proto, SourceIP: sourceIP, UserAgent: r.UserAgent(),
			},
		},
	}
}
