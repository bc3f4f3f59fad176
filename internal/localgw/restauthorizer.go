package localgw

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// RESTAuthorizerHandler is a REST API REQUEST Lambda authorizer: the
// signature of functions/apiauth's Handle.
type RESTAuthorizerHandler func(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// RESTAuthorizer is a REST API's REQUEST Lambda authorizer on a route, run
// as API Gateway runs the /v1 one
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-use-lambda-authorizer.html):
//
//   - No identity sources and no result cache: it is invoked for every
//     request, whatever headers it carries.
//   - The error "Unauthorized" is 401 (the UNAUTHORIZED gateway
//     response); any other error, a panic, a response without a policy or
//     a context value that is an object or an array is 500
//     (AUTHORIZER_FAILURE; API Gateway calls the last
//     AUTHORIZER_CONFIGURATION_ERROR, also a 500).
//   - A policy that does not allow execute-api:Invoke on the method's ARN,
//     or denies it, is 403 (ACCESS_DENIED).
//   - An allow hands the route's function its principalId and context in
//     requestContext.authorizer, each context value as a string
//     (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-output.html),
//     and, with the API's key source AUTHORIZER, its usageIdentifierKey
//     is the request's API key for the usage plan.
type RESTAuthorizer struct {
	Handler RESTAuthorizerHandler

	mu    sync.Mutex
	calls int
}

// Invocations counts the authorizer's invocations so far.
func (a *RESTAuthorizer) Invocations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// grant is what an allowing authorizer gives the request.
type grant struct {
	context  map[string]any
	usageKey string
}

// authorize returns the grant, or the gateway response type that refuses
// the request.
func (a *RESTAuthorizer) authorize(ctx context.Context, r *http.Request, rt *Route, escapedPath, requestID string) (grant, string) {
	a.mu.Lock()
	a.calls++
	a.mu.Unlock()
	ev := restAuthorizerEvent(r, rt, escapedPath, requestID)
	resp, err := a.invoke(ctx, ev)
	switch {
	case err != nil && err.Error() == "Unauthorized":
		return grant{}, edgespec.ResponseUnauthorized
	case err != nil:
		return grant{}, edgespec.ResponseAuthorizerFailure
	case len(resp.PolicyDocument.Statement) == 0:
		return grant{}, edgespec.ResponseAuthorizerFailure
	}
	if !allows(resp.PolicyDocument, ev.MethodArn) {
		return grant{}, edgespec.ResponseAccessDenied
	}
	out := map[string]any{"principalId": resp.PrincipalID}
	for k, v := range resp.Context {
		s, ok := contextString(v)
		if !ok {
			return grant{}, edgespec.ResponseAuthorizerFailure
		}
		out[k] = s
	}
	return grant{context: out, usageKey: resp.UsageIdentifierKey}, ""
}

// invoke runs the authorizer, turning a panic into an error as Lambda
// turns a crash into a failed invocation.
func (a *RESTAuthorizer) invoke(ctx context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (resp events.APIGatewayCustomAuthorizerResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("authorizer panicked: %v", p)
		}
	}()
	return a.Handler(ctx, ev)
}

// contextString is an authorizer context value as the function receives
// it; objects and arrays are not allowed.
func contextString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case nil:
		return "", true
	case float64, float32, int, int64, int32, json.Number:
		return fmt.Sprint(v), true
	}
	return "", false
}

// allows evaluates the policy for execute-api:Invoke on arn: an explicit
// Deny wins, then an Allow; nothing is a deny. Resources and actions
// match with IAM's wildcards, * and ?.
func allows(doc events.APIGatewayCustomAuthorizerPolicy, arn string) bool {
	allowed := false
	for _, s := range doc.Statement {
		if !anyMatch(s.Action, "execute-api:Invoke") || !anyMatch(s.Resource, arn) {
			continue
		}
		switch s.Effect {
		case "Deny":
			return false
		case "Allow":
			allowed = true
		}
	}
	return allowed
}

func anyMatch(patterns []string, s string) bool {
	for _, p := range patterns {
		if wildcard(p, s) {
			return true
		}
	}
	return false
}

// wildcard matches IAM's * (any run of characters, "/" included) and ?
// (one character).
func wildcard(pattern, s string) bool {
	// path.Match's * stops at "/"; IAM's does not, so match segment
	// separators as ordinary characters.
	p := strings.ReplaceAll(pattern, "/", "\x00")
	ok, err := path.Match(escapeClasses(p), strings.ReplaceAll(s, "/", "\x00"))
	return err == nil && ok
}

// escapeClasses keeps path.Match from reading [ and \ as syntax.
func escapeClasses(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `[`, `\[`)
	return r.Replace(p)
}

// restAuthorizerEvent is the REQUEST event a REST API sends its Lambda
// authorizer: the method's ARN, the request's headers (as the proxy
// event has them), query string and path parameters.
func restAuthorizerEvent(r *http.Request, rt *Route, escapedPath, requestID string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	headers, multi := eventHeaders(r)
	params, _ := rt.params(escapedPath)
	ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:              "REQUEST",
		MethodArn:         "arn:aws:execute-api:" + Region + ":" + AccountID + ":" + APIID + "/" + Stage + "/" + r.Method + escapedPath,
		Resource:          rt.resource(),
		Path:              escapedPath,
		HTTPMethod:        r.Method,
		Headers:           headers,
		MultiValueHeaders: multi,
		PathParameters:    params,
		RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
			AccountID:    AccountID,
			ResourceID:   resourceID(rt.resource()),
			Stage:        Stage,
			RequestID:    requestID,
			ResourcePath: rt.resource(),
			HTTPMethod:   r.Method,
			APIID:        APIID,
			Path:         escapedPath,
			Identity: events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{
				SourceIP: hostOnly(r.RemoteAddr),
			},
		},
	}
	if q := r.URL.Query(); len(q) > 0 {
		ev.QueryStringParameters = make(map[string]string, len(q))
		ev.MultiValueQueryStringParameters = make(map[string][]string, len(q))
		for k, vs := range q {
			ev.QueryStringParameters[k] = vs[len(vs)-1]
			ev.MultiValueQueryStringParameters[k] = vs
		}
	}
	return ev
}

// Region is the local run's stand-in Region in the ARNs the gateway makes.
const Region = "local"
