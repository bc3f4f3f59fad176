// Package apispec checks HTTP traffic against the API's OpenAPI document,
// api/openapi.yaml, so the document cannot drift from the handlers: its
// test drives every endpoint through the local gateway in front of the
// real handlers and validates each request and each response, error
// answers included.
//
// Checker adds to kin-openapi's validation what it leaves out: a status
// the operation does not list is an error (no default response exists in
// the document), responses kin-openapi does not look at (HEAD, and the
// 301, 307 and 308 redirects) still have their headers checked, a
// response the document gives no content must have no body, a path the
// document does not have must be answered with its 404 problem, and a
// method a path does not list as API Gateway answers a route it lacks.
package apispec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// DocumentPath is the OpenAPI document's path from the repository root.
const DocumentPath = "api/openapi.yaml"

// Path returns the document's path on this machine, found from this
// source file, for tests run anywhere in the module.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", filepath.FromSlash(DocumentPath))
}

// Load reads the document, resolves its references and validates it.
func Load(ctx context.Context, path string) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	return doc, nil
}

// registerDecoders gives kin-openapi (once, in its process-wide
// registry) decoders for the bodies it has none for, read as strings so
// their content type and schema are still checked.
var registerDecoders = sync.OnceFunc(func() {
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
})

// Checker validates requests and responses against a document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
	opts   *openapi3filter.Options
}

// New returns a checker of traffic to serverURL, which stands in for the
// document's servers.
func New(doc *openapi3.T, serverURL string) (*Checker, error) {
	registerDecoders()
	local := *doc
	local.Servers = openapi3.Servers{{URL: strings.TrimSuffix(serverURL, "/")}}
	router, err := gorillamux.NewRouter(&local)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	return &Checker{doc: &local, router: router, opts: &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		// Check the request as sent: defaults filled in would hide a
		// body the schema refuses (an empty PATCH, say).
		SkipSettingDefaults: true,
		AuthenticationFunc:  authenticate,
	}}, nil
}

// authenticate accepts any request that carries the scheme's header: which
// keys are valid is the gateway's to say (403), not the document's.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s.Type == "apiKey" && s.In == "header" && in.RequestValidationInput.Request.Header.Get(s.Name) != "" {
		return nil
	}
	return fmt.Errorf("no %s header", s.Name)
}

// Exchange is one request and its answer.
type Exchange struct {
	Request *http.Request // its Body is not read; RequestBody holds it
	// RequestBody is the body sent.
	RequestBody []byte
	Status      int
	Header      http.Header
	Body        []byte
}

// Result is what Check found.
type Result struct {
	// Operation is "METHOD /path" of the document, or "" when the
	// document has no operation for the request.
	Operation string
	// RequestErr says why the request does not conform; nil when it does.
	RequestErr error
	// ResponseErr says why the response does not conform; nil when it does.
	ResponseErr error
}

// Check validates the request and the response of x.
func (c *Checker) Check(ctx context.Context, x Exchange) Result {
	req := x.Request.Clone(ctx)
	route, params, err := c.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrMethodNotAllowed):
		return Result{RequestErr: err, ResponseErr: c.checkMethodNotAllowed(ctx, req, x)}
	case errors.Is(err, routers.ErrPathNotFound):
		return Result{RequestErr: err, ResponseErr: c.checkComponent(ctx, req, x, "NotFound", http.StatusNotFound)}
	case err != nil:
		return Result{RequestErr: err, ResponseErr: fmt.Errorf("no route: %w", err)}
	}
	res := Result{Operation: req.Method + " " + route.Path}
	in := &openapi3filter.RequestValidationInput{Request: withBody(req, x.RequestBody), PathParams: params, Route: route, Options: c.opts}
	res.RequestErr = openapi3filter.ValidateRequest(ctx, in)
	in.Request = withBody(req, x.RequestBody) // validation may have read it
	res.ResponseErr = c.checkResponse(ctx, in, route.Operation, x)
	return res
}

// checkResponse validates x's answer to an operation of the document.
func (c *Checker) checkResponse(ctx context.Context, in *openapi3filter.RequestValidationInput, op *openapi3.Operation, x Exchange) error {
	ref := op.Responses.Status(x.Status)
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("status %d is not one the document lists for %s %s", x.Status, in.Request.Method, in.Route.Path)
	}
	var errs []error
	if err := checkHeaders(ref.Value, x.Header); err != nil {
		errs = append(errs, err)
	}
	if len(ref.Value.Content) == 0 && len(x.Body) > 0 {
		errs = append(errs, fmt.Errorf("status %d has no content in the document, but the body is %d bytes", x.Status, len(x.Body)))
	}
	if in.Request.Method == http.MethodHead && len(x.Body) > 0 {
		errs = append(errs, fmt.Errorf("a HEAD answer has a %d-byte body", len(x.Body)))
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.Status, Header: x.Header, Options: c.opts}
	out.SetBodyBytes(x.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkMethodNotAllowed: a method the document does not list for a path
// is one API Gateway never routes, and must be answered as it answers
// one: a /v1 path with the REST API's MISSING_AUTHENTICATION_TOKEN
// gateway response, the not-found problem (infra/api); a redirect path
// with the HTTP API's 404 {"message":"Not Found"}
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
// Neither sends Allow.
func (c *Checker) checkMethodNotAllowed(ctx context.Context, req *http.Request, x Exchange) error {
	var errs []error
	if got := x.Header.Get("Allow"); got != "" {
		errs = append(errs, fmt.Errorf("header Allow is %q on a method API Gateway does not route", got))
	}
	if strings.HasPrefix(req.URL.Path, "/v1/") {
		return errors.Join(append(errs, c.checkComponent(ctx, req, x, "NotFound", http.StatusNotFound))...)
	}
	if x.Status != http.StatusNotFound || strings.TrimSpace(string(x.Body)) != `{"message":"Not Found"}` {
		errs = append(errs, fmt.Errorf("%d %s where the HTTP API answers an unmatched route 404 {\"message\":\"Not Found\"}", x.Status, x.Body))
	}
	return errors.Join(errs...)
}

// checkComponent validates x's answer against one of the document's
// component responses, for answers outside any operation.
func (c *Checker) checkComponent(ctx context.Context, req *http.Request, x Exchange, name string, status int) error {
	ref := c.doc.Components.Responses[name]
	if ref == nil {
		return fmt.Errorf("the document has no components.responses.%s", name)
	}
	if x.Status != status {
		return fmt.Errorf("status %d where the document has %d (%s)", x.Status, status, name)
	}
	op := &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, ref))}
	route := &routers.Route{Spec: c.doc, Path: req.URL.Path, Method: req.Method, Operation: op}
	in := &openapi3filter.RequestValidationInput{Request: withBody(req, x.RequestBody), Route: route, Options: c.opts}
	return c.checkResponse(ctx, in, op, x)
}

// checkHeaders checks the response headers the document defines: present
// when required, and matching their schemas. kin-openapi does the same for
// most answers; this also covers the ones it skips (HEAD, 301, 307, 308).
func checkHeaders(resp *openapi3.Response, h http.Header) error {
	var errs []error
	for name, ref := range resp.Headers {
		hdr := ref.Value
		v, ok := h[http.CanonicalHeaderKey(name)]
		if !ok {
			if hdr.Required {
				errs = append(errs, fmt.Errorf("header %s is required", name))
			}
			continue
		}
		if hdr.Schema == nil || hdr.Schema.Value == nil {
			continue
		}
		var value any = v[0]
		if hdr.Schema.Value.Type.Is("integer") {
			n, err := strconv.ParseInt(v[0], 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("header %s: %q is not an integer", name, v[0]))
				continue
			}
			value = float64(n) // as a JSON number decodes
		}
		if err := hdr.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
			errs = append(errs, fmt.Errorf("header %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func withBody(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r
}

// Transport is an http.RoundTripper that checks every exchange it carries,
// so a client's tests (the CLI's) can hold its traffic to the document.
type Transport struct {
	Base    http.RoundTripper // http.DefaultTransport when nil
	Checker *Checker

	mu      sync.Mutex
	results []Result
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(withBody(req, body))
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	res := t.Checker.Check(req.Context(), Exchange{Request: req, RequestBody: body, Status: resp.StatusCode, Header: resp.Header, Body: respBody})
	t.mu.Lock()
	t.results = append(t.results, res)
	t.mu.Unlock()
	return resp, nil
}

// Results returns what every exchange so far found, in order.
func (t *Transport) Results() []Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.results)
}
