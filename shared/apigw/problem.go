package apigw

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
)

// ProblemsPath is where the API answers the page of problem types
// (ProblemsPage, the text of docs/problems.md), without an API key.
const ProblemsPath = "/v1/problems"

// ProblemBase prefixes every problem type: a relative reference (RFC 9457
// section 3.1.1 allows one) that resolves, against the URL of the request
// that got the problem, to the section of this deployment's own problems
// page that explains it, wherever the deployment runs.
const ProblemBase = ProblemsPath + "#"

// ContentTypeProblem is the media type of RFC 9457 problem details.
const ContentTypeProblem = "application/problem+json"

// Problem is an RFC 9457 problem details body. Field names the request
// field at fault, when there is one.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Field    string `json:"field,omitempty"`
}

// Problems the API answers, by slug.
var (
	ProblemInvalid         = Problem{Type: ProblemBase + "invalid-request", Title: "Invalid request", Status: http.StatusBadRequest}
	ProblemUnauthenticated = Problem{Type: ProblemBase + "unauthenticated", Title: "Missing API key", Status: http.StatusUnauthorized}
	ProblemForbidden       = Problem{Type: ProblemBase + "forbidden", Title: "Unknown API key", Status: http.StatusForbidden}
	ProblemNotFound        = Problem{Type: ProblemBase + "not-found", Title: "Not found", Status: http.StatusNotFound}
	ProblemMethod          = Problem{Type: ProblemBase + "method-not-allowed", Title: "Method not allowed", Status: http.StatusMethodNotAllowed}
	ProblemConflict        = Problem{Type: ProblemBase + "conflict", Title: "Already taken", Status: http.StatusConflict}
	ProblemGone            = Problem{Type: ProblemBase + "gone", Title: "Gone", Status: http.StatusGone}
	ProblemPrecondition    = Problem{Type: ProblemBase + "precondition-failed", Title: "Precondition failed", Status: http.StatusPreconditionFailed}
	ProblemTooLarge        = Problem{Type: ProblemBase + "too-large", Title: "Request body too large", Status: http.StatusRequestEntityTooLarge}
	ProblemMediaType       = Problem{Type: ProblemBase + "unsupported-media-type", Title: "Unsupported media type", Status: http.StatusUnsupportedMediaType}
	ProblemIdempotency     = Problem{Type: ProblemBase + "idempotency-key-reused", Title: "Idempotency-Key reused with a different request", Status: http.StatusUnprocessableEntity}
	ProblemUnavailable     = Problem{Type: ProblemBase + "unavailable", Title: "Temporarily unavailable", Status: http.StatusServiceUnavailable}
	ProblemInternal        = Problem{Type: ProblemBase + "internal", Title: "Internal error", Status: http.StatusInternalServerError}
)

// RetryAfter is the Retry-After (seconds) of every 503: DynamoDB's
// throttling and conflicts clear within about a second, and a retry under
// the same Idempotency-Key is safe.
const RetryAfter = "1"

// ProblemRateLimited is API Gateway's own answer when a key's usage plan
// is spent (infra/api's gateway responses); no function answers it.
var ProblemRateLimited = Problem{Type: ProblemBase + "rate-limited", Title: "Too many requests", Status: http.StatusTooManyRequests}

// AllProblems lists every problem the API can answer, for the checks that
// each type is explained where it points.
var AllProblems = []Problem{
	ProblemInvalid, ProblemUnauthenticated, ProblemForbidden, ProblemNotFound, ProblemMethod,
	ProblemConflict, ProblemGone, ProblemPrecondition, ProblemTooLarge, ProblemMediaType,
	ProblemIdempotency, ProblemUnavailable, ProblemInternal, ProblemRateLimited,
	ProblemMissingRole, ProblemLastAdmin,
}

// With returns a copy of p with a detail.
func (p Problem) With(detail string) Problem {
	p.Detail = detail
	return p
}

// Response renders p as an API Gateway response.
func (p Problem) Response() events.APIGatewayProxyResponse {
	body, _ := json.Marshal(p) // a struct of strings and an int always marshals
	h := map[string]string{"Content-Type": ContentTypeProblem, "Cache-Control": "no-store"}
	if p.Status == http.StatusServiceUnavailable {
		h["Retry-After"] = RetryAfter
	}
	return events.APIGatewayProxyResponse{StatusCode: p.Status, Headers: h, Body: string(body)}
}

// ErrUnauthenticated: the request carried no API key.
var ErrUnauthenticated = errors.New("missing api key")

// ErrForbidden: the API key is not one we know.
var ErrForbidden = errors.New("unknown api key")

// ErrIdempotencyMismatch: an Idempotency-Key came back with another body.
var ErrIdempotencyMismatch = errors.New("idempotency key reused with a different request")

// MethodError: the resource does not answer the request's method. Allow,
// when set, lists the methods it answers, for the Allow header.
type MethodError struct {
	Allow  string
	Detail string
}

func (e *MethodError) Error() string { return "method not allowed: " + e.Detail }

// ProblemFor maps an error to the problem the client sees. This is the one
// place statuses are chosen for domain errors.
func ProblemFor(err error) Problem {
	var fe *link.FieldError
	var de *link.DetailError
	var tooLarge *TooLargeError
	var method *MethodError
	if p, ok := roleProblem(err); ok {
		return p
	}
	switch {
	case errors.As(err, &de):
		return ProblemFor(de.Kind).With(de.Detail)
	case errors.As(err, &method):
		return ProblemMethod.With(method.Detail)
	case errors.As(err, &fe):
		p := ProblemInvalid.With(fe.Error())
		p.Field = fe.Field
		return p
	case errors.As(err, &tooLarge):
		return ProblemTooLarge.With(tooLarge.Error())
	case errors.Is(err, ErrUnsupportedMediaType):
		return ProblemMediaType.With("send the body as application/json")
	case errors.Is(err, ErrUnauthenticated):
		return ProblemUnauthenticated.With("send your API key in the x-api-key header")
	case errors.Is(err, ErrForbidden):
		return ProblemForbidden.With("the API key is not valid")
	case errors.Is(err, ErrIdempotencyMismatch):
		return ProblemIdempotency.With("this Idempotency-Key was first used with a different request body")
	case errors.Is(err, link.ErrInvalid):
		return ProblemInvalid
	case errors.Is(err, link.ErrNotFound):
		return ProblemNotFound
	case errors.Is(err, link.ErrConflict):
		return ProblemConflict
	case errors.Is(err, link.ErrGone):
		return ProblemGone
	case errors.Is(err, link.ErrPrecondition):
		return ProblemPrecondition
	case errors.Is(err, link.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return ProblemUnavailable.With("a dependency is slow or unavailable; retry with the same Idempotency-Key")
	}
	return ProblemInternal
}

// Report is the problem err answers req with: ProblemFor's, its instance
// the request's path. Errors that are ours (500) or a dependency's (503)
// are logged here, once, with the request id. Error answers with it; a
// batch reports each item's error with it.
func Report(ctx context.Context, log *slog.Logger, req *events.APIGatewayProxyRequest, err error) Problem {
	p := ProblemFor(err)
	if p.Status >= 500 {
		log.ErrorContext(ctx, "request failed", "status", p.Status, "error", err.Error(),
			"request_id", req.RequestContext.RequestID, "path", req.Path)
	}
	if p.Instance == "" {
		p.Instance = req.Path
	}
	return p
}

// Error answers err as a problem (see Report), with an Allow header for a
// MethodError that names the methods.
func Error(ctx context.Context, log *slog.Logger, req *events.APIGatewayProxyRequest, err error) events.APIGatewayProxyResponse {
	resp := Report(ctx, log, req, err).Response()
	var method *MethodError
	if errors.As(err, &method) && method.Allow != "" {
		resp.Headers["Allow"] = method.Allow
	}
	return resp
}

// Flusher writes out what a request recorded: *metrics.Emitter's EMF line.
type Flusher interface {
	Flush() error
}

// Serve answers req with route, the one ending every API function shares:
// an error route returns is answered with Error (so mapped once, and
// logged once if it is a 5xx), then the request's metrics are flushed.
// API Gateway gets an answer for every request, never a function error.
func Serve(ctx context.Context, log *slog.Logger, m Flusher, req *events.APIGatewayProxyRequest,
	route func(context.Context, *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)) events.APIGatewayProxyResponse {
	resp, err := route(ctx, req)
	if err != nil {
		resp = Error(ctx, log, req, err)
	}
	if ferr := m.Flush(); ferr != nil {
		log.WarnContext(ctx, "flush metrics", "error", ferr.Error())
	}
	return resp
}

// JSON answers v as application/json with the given status.
func JSON(status int, v any, headers map[string]string) events.APIGatewayProxyResponse {
	body, err := json.Marshal(v)
	if err != nil {
		return ProblemInternal.Response()
	}
	h := map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store"}
	for k, val := range headers {
		h[k] = val
	}
	return events.APIGatewayProxyResponse{StatusCode: status, Headers: h, Body: string(body)}
}

// Raw answers a body already encoded as JSON.
func Raw(status int, body []byte, headers map[string]string) events.APIGatewayProxyResponse {
	h := map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store"}
	for k, val := range headers {
		h[k] = val
	}
	return events.APIGatewayProxyResponse{StatusCode: status, Headers: h, Body: string(body)}
}
