package localgw

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

const (
	// DefaultMaxBodyBytes caps a request body when Options leave it zero.
	DefaultMaxBodyBytes = 1 << 20

	// DefaultTimeout is API Gateway's default integration timeout: a
	// handler still running after it gets the caller a 504.
	DefaultTimeout = 29 * time.Second

	// RequestIDHeader carries the request id on every response, as API
	// Gateway's x-amzn-RequestId does; it is spelt as AWS spells it.
	RequestIDHeader = "x-amzn-RequestId"
)

// reservedRoots are first path segments that never reach a {param} route,
// whether or not a route below them exists yet: the versioned API, the
// local gateway's own endpoints and its health check. So /v1 and /_local
// are a 404 from the gateway rather than a lookup of code "v1".
var reservedRoots = []string{"v1", "_local", "healthz"}

// Options configure a Gateway. Configure makes them from the APIs'
// description (shared/edgespec); a test may write them by hand.
type Options struct {
	// Routes are the API's methods; /healthz is added to them.
	Routes []Route
	// APIKeys are the keys the gateway accepts, as API Gateway accepts
	// the keys of its usage plan; nil accepts none. The key's owner is the
	// functions' business (shared/apikey), not the gateway's.
	APIKeys APIKeys
	// Ready reports whether the backends are up: until it returns nil,
	// /healthz answers 503 and so does every other route. Nil means ready.
	Ready func() error
	// Log receives handler errors and panics; slog.Default() when nil.
	Log *slog.Logger
	// RequestID makes request ids; random UUIDs when nil.
	RequestID func() string
	// MaxBodyBytes caps request bodies (413 beyond); DefaultMaxBodyBytes
	// when zero.
	MaxBodyBytes int64
	// Timeout is the integration timeout; DefaultTimeout when zero.
	Timeout time.Duration
	// BinaryMediaTypes are the REST API's binaryMediaTypes (binary.go).
	// None when nil, as on an API configured with none: a base64 response
	// then reaches the client as base64 text, as it would on AWS.
	BinaryMediaTypes []string
	// UsagePlan gives every API key its throttle and quota on the routes
	// that need a key, as the REST API's usage plan does; nil is none.
	UsagePlan *edgespec.UsagePlan
	// GatewayResponses answer a throttled (THROTTLED) or over-quota
	// (QUOTA_EXCEEDED) request, and a method a resource does not list
	// (MISSING_AUTHENTICATION_TOKEN), as the REST API's gateway responses do;
	// without one, with API Gateway's default 429 {"message": ...}.
	GatewayResponses []edgespec.GatewayResponse
	// Now reads the clock for throttles and quotas; time.Now when nil.
	Now func() time.Time
	// APIKeySource is where a route that needs a key finds it:
	// edgespec.KeySourceAuthorizer takes the usageIdentifierKey of the
	// route's REST authorizer; anything else, or a route without a REST
	// authorizer, the x-api-key header.
	APIKeySource string
}

// Gateway is an http.Handler that plays API Gateway in front of in-process
// Lambda handlers.
type Gateway struct {
	root      *node
	keys      APIKeys
	ready     func() error
	log       *slog.Logger
	requestID func() string
	maxBody   int64
	timeout   time.Duration
	binary    []string
	plan      *usagePlan
	responses []edgespec.GatewayResponse
	now       func() time.Time
	keySource string
}

// New builds a gateway. It fails on a route table API Gateway would not
// accept either: a bad pattern, sibling parameters with different names,
// a method defined twice on one resource, a route without a handler.
func New(o Options) (*Gateway, error) {
	g := &Gateway{
		root:      &node{},
		keys:      o.APIKeys,
		ready:     o.Ready,
		log:       o.Log,
		requestID: o.RequestID,
		maxBody:   o.MaxBodyBytes,
		timeout:   o.Timeout,
		binary:    o.BinaryMediaTypes,
		responses: o.GatewayResponses,
		now:       o.Now,
		keySource: o.APIKeySource,
	}
	if o.UsagePlan != nil {
		g.plan = newUsagePlan(*o.UsagePlan)
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.keys == nil {
		g.keys = StaticKeys()
	}
	if g.ready == nil {
		g.ready = func() error { return nil }
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	if g.requestID == nil {
		g.requestID = newUUID
	}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBodyBytes
	}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	routes := append([]Route{{
		Methods: []string{http.MethodGet, http.MethodHead},
		Pattern: "/healthz",
		Handler: g.health,
		ungated: true,
	}, {
		// The problem types' page, which every problem's type refers to.
		// A deployed REST API answers it itself (a mock integration, no
		// API key, no function), so this gateway always does too.
		Methods: []string{http.MethodGet},
		Pattern: apigw.ProblemsPath,
		Handler: func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			return apigw.ProblemsResponse(), nil
		},
	}}, o.Routes...)
	for i := range routes {
		if err := g.root.add(&routes[i]); err != nil {
			return nil, err
		}
	}
	for _, seg := range reservedRoots {
		g.root.reserve(seg)
	}
	return g, nil
}

// ServeHTTP routes one request and answers it.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := g.requestID()
	w.Header()[RequestIDHeader] = []string{id}
	path := r.URL.EscapedPath()
	problem := func(p apigw.Problem) {
		p.Instance = path
		Write(w, p.Response())
	}

	rt, status, api := g.root.match(r.Method, path)
	switch status {
	case http.StatusNotFound:
		problem(apigw.ProblemNotFound.With("no route for " + r.Method + " " + path))
		return
	case http.StatusMethodNotAllowed:
		g.unrouted(w, api, path)
		return
	}

	if rt.API == HTTPAPI {
		// An HTTP API routes the decoded path: /a%2Fb is /a/b, which
		// /{code} does not match.
		decoded, ok := httpAPIPath(path)
		if !ok {
			writeMessage(w, http.StatusBadRequest, "Bad Request")
			return
		}
		if _, ok := rt.params(decoded); !ok {
			problem(apigw.ProblemNotFound.With("no route for " + r.Method + " " + path))
			return
		}
	}

	if rt.Authorizer != nil {
		if status, message := rt.Authorizer.authorize(context.WithoutCancel(r.Context()), r, rt, path, id); status != 0 {
			writeMessage(w, status, message)
			return
		}
	}
	var granted grant
	if rt.RESTAuthorizer != nil {
		// Locally the authorizer reads a keys table that may not exist
		// yet: until then the route answers as every other does, 503.
		if err := g.ready(); err != nil {
			problem(apigw.ProblemUnavailable.With("the local gateway is starting: " + err.Error()))
			return
		}
		var refused string
		if granted, refused = rt.RESTAuthorizer.authorize(context.WithoutCancel(r.Context()), r, rt, path, id); refused != "" {
			g.refuse(w, refused, path)
			return
		}
	}
	fromAuthorizer := g.keySource == edgespec.KeySourceAuthorizer && rt.RESTAuthorizer != nil
	var keyID, key string
	if rt.NeedsKey && fromAuthorizer {
		// The authorizer's usageIdentifierKey is the request's key: one
		// the usage plan lacks (or none) is INVALID_API_KEY's 403.
		key = granted.usageKey
		var err error
		if keyID, err = g.keys.KeyID(r.Context(), key); err != nil {
			problem(apigw.ProblemUnavailable.With("the API keys could not be read: " + err.Error()))
			return
		}
		if key == "" || keyID == "" {
			g.refuse(w, edgespec.ResponseInvalidAPIKey, path)
			return
		}
		if g.plan != nil {
			if refused := g.plan.admit(keyID, g.now()); refused != "" {
				g.tooMany(w, refused, path)
				return
			}
		}
	} else if rt.NeedsKey {
		key = lastValue(r.Header, "X-Api-Key")
		if key == "" {
			problem(apigw.ProblemFor(apigw.ErrUnauthenticated))
			return
		}
		id, err := g.keys.KeyID(r.Context(), key)
		if err != nil {
			problem(apigw.ProblemUnavailable.With("the API keys could not be read: " + err.Error()))
			return
		}
		if keyID = id; keyID == "" {
			problem(apigw.ProblemFor(apigw.ErrForbidden))
			return
		}
		// The usage plan's throttle and quota first, then the method's
		// and the stage's: the order API Gateway applies them in.
		if g.plan != nil {
			if refused := g.plan.admit(keyID, g.now()); refused != "" {
				g.tooMany(w, refused, path)
				return
			}
		}
	}
	for _, t := range rt.Throttles {
		if !t.take(g.now()) {
			g.tooMany(w, edgespec.ResponseThrottled, path)
			return
		}
	}
	if !rt.ungated {
		if err := g.ready(); err != nil {
			problem(apigw.ProblemUnavailable.With("the local gateway is starting: " + err.Error()))
			return
		}
	}

	body, err := g.readBody(w, r)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		problem(apigw.ProblemTooLarge.With(fmt.Sprintf("the body is over %d bytes", tooLarge.Limit)))
		return
	case err != nil:
		problem(apigw.ProblemInvalid.With("the request body could not be read"))
		return
	}

	ev := Event(r, body, *rt, keyID, id)
	if keyID != "" {
		ev.RequestContext.Identity.APIKey = key
	}
	if granted.context != nil {
		ev.RequestContext.Authorizer = granted.context
	}
	if rt.API == RESTAPI && len(body) > 0 && mediaTypeMatches(r.Header.Get("Content-Type"), g.binary) {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	// A client that goes away does not stop a Lambda invocation in AWS:
	// the function runs on to its answer or its timeout, and its writes
	// happen. Cancelling it here would cut them off where AWS does not.
	resp, failed := g.invoke(context.WithoutCancel(r.Context()), rt, ev)
	if failed != 0 {
		message := "Internal server error"
		if failed == http.StatusGatewayTimeout {
			message = "Endpoint request timed out"
		}
		writeMessage(w, failed, message)
		return
	}
	if resp.IsBase64Encoded && rt.API == RESTAPI && !mediaTypeMatches(r.Header.Get("Accept"), g.binary) {
		// The REST API passes the base64 text through undecoded.
		resp.IsBase64Encoded = false
	}
	Write(w, resp)
}

// tooMany answers a request a throttle or quota refused: with the API's
// gateway response of that type, else as API Gateway does by default
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
// unrouted answers a method the resource at path does not list, which
// API Gateway never routes. A REST API answers its
// MISSING_AUTHENTICATION_TOKEN gateway response, "including the cases
// when the client attempts to invoke an unsupported API method or
// resource", by default 403 {"message":"Missing Authentication Token"}
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html);
// an HTTP API 404 {"message":"Not Found"}, as for any route it lacks.
func (g *Gateway) unrouted(w http.ResponseWriter, api APIKind, path string) {
	if api == HTTPAPI {
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	for _, r := range g.responses {
		if r.Type == edgespec.ResponseMissingAuthenticationToken {
			Write(w, r.Problem(path).Response())
			return
		}
	}
	writeMessage(w, http.StatusForbidden, "Missing Authentication Token")
}

// refuse answers a request the REST authorizer or the usage-plan key
// check refused: with the API's gateway response of that type, else as
// API Gateway does by default
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
func (g *Gateway) refuse(w http.ResponseWriter, typ, path string) {
	for _, r := range g.responses {
		if r.Type == typ {
			Write(w, r.Problem(path).Response())
			return
		}
	}
	switch typ {
	case edgespec.ResponseUnauthorized:
		writeMessage(w, http.StatusUnauthorized, "Unauthorized")
	case edgespec.ResponseAccessDenied:
		writeMessage(w, http.StatusForbidden, "User is not authorized to access this resource")
	case edgespec.ResponseInvalidAPIKey:
		writeMessage(w, http.StatusForbidden, "Forbidden")
	default:
		writeMessage(w, http.StatusInternalServerError, "Internal server error")
	}
}

func (g *Gateway) tooMany(w http.ResponseWriter, typ, path string) {
	for _, r := range g.responses {
		if r.Type == typ {
			Write(w, r.Problem(path).Response())
			return
		}
	}
	message := "Too Many Requests"
	if typ == edgespec.ResponseQuotaExceeded {
		message = "Limit Exceeded"
	}
	writeMessage(w, http.StatusTooManyRequests, message)
}

// readBody reads the whole body, at most maxBody bytes of it.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > g.maxBody {
		return nil, &http.MaxBytesError{Limit: g.maxBody}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
}

// invoke runs the handler as Lambda would: with a deadline, and with a
// crash (a panic) or an error turning into API Gateway's 502 rather than
// taking the server down. failed is 0 when resp is the handler's answer,
// otherwise the status to answer instead.
func (g *Gateway) invoke(ctx context.Context, rt *Route, ev events.APIGatewayProxyRequest) (resp events.APIGatewayProxyResponse, failed int) {
	// The route's own timeout (its API's), unless the gateway's is
	// shorter: tests shorten it for every route.
	timeout := g.timeout
	if rt.Timeout > 0 {
		timeout = min(rt.Timeout, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		resp  events.APIGatewayProxyResponse
		err   error
		panic any
		stack []byte
	}
	done := make(chan result, 1) // buffered: a timed-out handler must not block forever
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res = result{panic: p, stack: debug.Stack()}
			}
			done <- res
		}()
		res.resp, res.err = rt.Handler(ctx, ev)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	attrs := []any{"request_id", ev.RequestContext.RequestID, "method", ev.HTTPMethod, "resource", ev.Resource, "path", ev.Path}
	select {
	case res := <-done:
		switch {
		case res.panic != nil:
			g.log.ErrorContext(ctx, "handler panicked", append(attrs, "panic", fmt.Sprint(res.panic), "stack", string(res.stack))...)
			return resp, http.StatusBadGateway
		case res.err != nil:
			g.log.ErrorContext(ctx, "handler failed", append(attrs, "error", res.err.Error())...)
			return resp, http.StatusBadGateway
		}
		return res.resp, 0
	case <-timer.C:
		g.log.ErrorContext(ctx, "handler timed out", append(attrs, "timeout", timeout.String())...)
		return resp, http.StatusGatewayTimeout
	}
}

// health answers /healthz: ok once the gateway is ready.
func (g *Gateway) health(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	if err := g.ready(); err != nil {
		return apigw.ProblemUnavailable.With("not ready: " + err.Error()).Response(), nil
	}
	return apigw.JSON(http.StatusOK, map[string]string{"status": "ok"}, nil), nil
}

// newUUID returns a random (version 4) UUID, the form of API Gateway's
// request ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
