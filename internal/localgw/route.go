package localgw

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Handler is a Lambda proxy handler, the signature every function's
// Handle method has.
type Handler func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Route is one API Gateway method on one resource.
type Route struct {
	// Methods are the HTTP methods the route answers, such as GET and HEAD.
	Methods []string
	// Pattern is the path with {name} segments for path parameters, such
	// as "/v1/links/{code}". A parameter is always one whole segment.
	Pattern string
	// Resource is the API Gateway resource the event names; Pattern when
	// empty.
	Resource string
	// NeedsKey makes the route require a valid x-api-key, as a method with
	// apiKeyRequired does; the key and its ID go to identity.apiKey and
	// identity.apiKeyId.
	NeedsKey bool
	// API is the flavour of API Gateway the route is deployed on: REST
	// (the zero value) or HTTP. It decides how the path and binary bodies
	// reach the handler.
	API APIKind
	// Handler answers the route's events.
	Handler Handler
	// Authorizer, when set, must allow a request before Handler sees it.
	Authorizer *Authorizer
	// RESTAuthorizer, when set, is the REST API's Lambda authorizer: it
	// must allow a request before Handler sees it, and gives it its
	// context (and, with key source AUTHORIZER, its usage-plan key).
	RESTAuthorizer *RESTAuthorizer
	// Timeout is the route's integration timeout; the gateway's
	// (Options.Timeout) when zero.
	Timeout time.Duration
	// Throttles are the token buckets a request must find a token in,
	// the method's and then the stage's, or be refused with 429; a
	// stage's bucket is shared by its routes.
	Throttles []*Throttle

	// ungated routes answer before the gateway is ready (/healthz).
	ungated bool
}

// resource is the name the event carries.
func (rt *Route) resource() string {
	if rt.Resource != "" {
		return rt.Resource
	}
	return rt.Pattern
}

// params matches an escaped path against the route's pattern and returns
// its path parameters, nil when the pattern has none, and whether it matched.
func (rt *Route) params(escapedPath string) (map[string]string, bool) {
	want := segments(rt.Pattern)
	got := segments(escapedPath)
	if len(want) != len(got) {
		return nil, false
	}
	var params map[string]string
	for i, w := range want {
		if name, ok := paramName(w); ok {
			if got[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[name] = got[i]
			continue
		}
		if w != got[i] {
			return nil, false
		}
	}
	return params, true
}

// segments splits a path on slashes; "/" has none, "/a/" has "a" and "".
func segments(path string) []string {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// paramName returns name for a "{name}" segment.
func paramName(seg string) (string, bool) {
	if len(seg) < 3 || seg[0] != '{' || seg[len(seg)-1] != '}' {
		return "", false
	}
	return seg[1 : len(seg)-1], true
}

// node is one resource in API Gateway's resource tree.
type node struct {
	static  map[string]*node
	param   *node
	name    string            // the parameter's name, on a param node
	methods map[string]*Route // nil on a resource without methods
}

// add puts rt into the tree rooted at n.
func (n *node) add(rt *Route) error {
	if !strings.HasPrefix(rt.Pattern, "/") {
		return fmt.Errorf("route %q: the pattern must start with /", rt.Pattern)
	}
	if rt.Handler == nil {
		return fmt.Errorf("route %q: no handler", rt.Pattern)
	}
	if len(rt.Methods) == 0 {
		return fmt.Errorf("route %q: no methods", rt.Pattern)
	}
	for _, seg := range segments(rt.Pattern) {
		if name, ok := paramName(seg); ok {
			if !validParamName(name) {
				return fmt.Errorf("route %q: %q is not a valid parameter name", rt.Pattern, name)
			}
			if n.param == nil {
				n.param = &node{name: name}
			} else if n.param.name != name {
				// API Gateway refuses sibling resources {a} and {b} too.
				return fmt.Errorf("route %q: {%s} conflicts with {%s} at the same level", rt.Pattern, name, n.param.name)
			}
			n = n.param
			continue
		}
		if seg == "" || strings.ContainsAny(seg, "{}") {
			return fmt.Errorf("route %q: segment %q is neither a name nor a {param}", rt.Pattern, seg)
		}
		n.reserve(seg)
		n = n.static[seg]
	}
	if n.methods == nil {
		n.methods = map[string]*Route{}
	}
	for _, m := range rt.Methods {
		if m == "" || m != strings.ToUpper(m) {
			return fmt.Errorf("route %q: method %q must be upper case", rt.Pattern, m)
		}
		if _, dup := n.methods[m]; dup {
			return fmt.Errorf("route %s %q: defined twice", m, rt.Pattern)
		}
		n.methods[m] = rt
	}
	return nil
}

// reserve makes seg a static child of n, a resource without methods unless
// a route gives it some, so that seg never matches n's parameter child.
func (n *node) reserve(seg string) {
	if n.static == nil {
		n.static = map[string]*node{}
	}
	if n.static[seg] == nil {
		n.static[seg] = &node{}
	}
}

func validParamName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// find walks the tree as API Gateway does: a static child wins over the
// parameter sibling and there is no backtracking, so "/v1" never reaches
// "/{code}" even though /v1 itself has no methods. It returns the resource
// the path names, or nil.
func (n *node) find(escapedPath string) *node {
	for _, seg := range segments(escapedPath) {
		if seg == "" {
			return nil
		}
		if child, ok := n.static[seg]; ok {
			n = child
			continue
		}
		if n.param == nil {
			return nil
		}
		n = n.param
	}
	return n
}

// match finds the route for method and path. With no resource at the
// path it returns status 404; with a resource that lacks the method, 405
// and the API the resource is on, whose answer that is.
func (n *node) match(method, escapedPath string) (rt *Route, status int, api APIKind) {
	res := n.find(escapedPath)
	if res == nil || len(res.methods) == 0 {
		return nil, http.StatusNotFound, RESTAPI
	}
	if rt, ok := res.methods[method]; ok {
		return rt, http.StatusOK, rt.API
	}
	for _, rt := range res.methods {
		api = rt.API // a resource is on one API
	}
	return nil, http.StatusMethodNotAllowed, api
}
