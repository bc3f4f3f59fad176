package apigw_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
)

// secret is text an error may carry that must never reach a client.
const secret = "arn:aws:dynamodb:eu-west-1:123456789012:table/links-prod"

func TestProblemFor(t *testing.T) {
	fe := &link.FieldError{Field: "url", Reason: "is required"}
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantSlug   string
		wantField  string
		wantDetail string // exact, when set
	}{
		{name: "field error", err: fe, wantStatus: 400, wantSlug: "invalid-request", wantField: "url", wantDetail: "url: is required"},
		{name: "wrapped field error", err: fmt.Errorf("create %s: %w", secret, fe), wantStatus: 400, wantSlug: "invalid-request", wantField: "url", wantDetail: "url: is required"},
		{name: "joined field error", err: errors.Join(errors.New(secret), &link.FieldError{Field: "alias", Reason: "is reserved"}), wantStatus: 400, wantSlug: "invalid-request", wantField: "alias", wantDetail: "alias: is reserved"},
		{name: "too large", err: &apigw.TooLargeError{Size: 70000}, wantStatus: 413, wantSlug: "too-large", wantDetail: "the body is 70000 bytes; at most 65536 are accepted"},
		{name: "wrapped too large", err: fmt.Errorf("read: %w", &apigw.TooLargeError{Size: 70000}), wantStatus: 413, wantSlug: "too-large"},
		{name: "too large for its own cap", err: &apigw.TooLargeError{Size: 2 << 20, Limit: 1 << 20}, wantStatus: 413, wantSlug: "too-large", wantDetail: "the body is 2097152 bytes; at most 1048576 are accepted"},
		{name: "conflict with a detail", err: fmt.Errorf("create: %w", &link.DetailError{Kind: link.ErrConflict, Detail: `the alias "Promo" is already taken`}), wantStatus: 409, wantSlug: "conflict", wantDetail: `the alias "Promo" is already taken`},
		{name: "gone with a detail", err: &link.DetailError{Kind: link.ErrGone, Detail: "the link has expired"}, wantStatus: 410, wantSlug: "gone", wantDetail: "the link has expired"},
		{name: "precondition with a detail", err: &link.DetailError{Kind: link.ErrPrecondition, Detail: "GET it and retry"}, wantStatus: 412, wantSlug: "precondition-failed", wantDetail: "GET it and retry"},
		{name: "method", err: &apigw.MethodError{Allow: "GET", Detail: "use GET"}, wantStatus: 405, wantSlug: "method-not-allowed", wantDetail: "use GET"},
		{name: "media type", err: apigw.ErrUnsupportedMediaType, wantStatus: 415, wantSlug: "unsupported-media-type"},
		{name: "unauthenticated", err: apigw.ErrUnauthenticated, wantStatus: 401, wantSlug: "unauthenticated"},
		{name: "forbidden", err: apigw.ErrForbidden, wantStatus: 403, wantSlug: "forbidden"},
		{name: "idempotency mismatch", err: apigw.ErrIdempotencyMismatch, wantStatus: 422, wantSlug: "idempotency-key-reused"},
		{name: "bare invalid", err: link.ErrInvalid, wantStatus: 400, wantSlug: "invalid-request"},
		{name: "not found", err: link.ErrNotFound, wantStatus: 404, wantSlug: "not-found"},
		{name: "wrapped not found", err: fmt.Errorf("get %s: %w", secret, link.ErrNotFound), wantStatus: 404, wantSlug: "not-found"},
		{name: "conflict", err: link.ErrConflict, wantStatus: 409, wantSlug: "conflict"},
		{name: "wrapped conflict", err: fmt.Errorf("put %s: %w", secret, link.ErrConflict), wantStatus: 409, wantSlug: "conflict"},
		{name: "gone", err: link.ErrGone, wantStatus: 410, wantSlug: "gone"},
		{name: "precondition", err: link.ErrPrecondition, wantStatus: 412, wantSlug: "precondition-failed"},
		{name: "unavailable", err: link.ErrUnavailable, wantStatus: 503, wantSlug: "unavailable"},
		{name: "wrapped unavailable", err: fmt.Errorf("query %s: %w", secret, link.ErrUnavailable), wantStatus: 503, wantSlug: "unavailable"},
		{name: "deadline", err: context.DeadlineExceeded, wantStatus: 503, wantSlug: "unavailable"},
		{name: "wrapped deadline", err: fmt.Errorf("query %s: %w", secret, context.DeadlineExceeded), wantStatus: 503, wantSlug: "unavailable"},
		{name: "double-wrapped forbidden", err: fmt.Errorf("a: %w", fmt.Errorf("b: %w", apigw.ErrForbidden)), wantStatus: 403, wantSlug: "forbidden"},
		{name: "unknown", err: errors.New(secret), wantStatus: 500, wantSlug: "internal", wantDetail: ""},
		{name: "unknown wrapped", err: fmt.Errorf("marshal: %w", errors.New(secret)), wantStatus: 500, wantSlug: "internal", wantDetail: ""},
		{name: "canceled is not a dependency failure", err: context.Canceled, wantStatus: 500, wantSlug: "internal", wantDetail: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := apigw.ProblemFor(tt.err)

			assert.Equal(t, tt.wantStatus, got.Status)
			assert.Equal(t, apigw.ProblemBase+tt.wantSlug, got.Type)
			assert.NotEmpty(t, got.Title)
			assert.Equal(t, tt.wantField, got.Field)
			if tt.wantDetail != "" || tt.wantStatus == 500 {
				assert.Equal(t, tt.wantDetail, got.Detail)
			}
			assert.NotContains(t, got.Detail, secret)
			assert.NotContains(t, got.Title, secret)
		})
	}
}

func TestProblemResponse(t *testing.T) {
	tests := []struct {
		name           string
		problem        apigw.Problem
		wantRetryAfter string
	}{
		{name: "invalid with field", problem: func() apigw.Problem {
			p := apigw.ProblemInvalid.With("url: is required")
			p.Field = "url"
			return p
		}()},
		{name: "not found, no detail", problem: apigw.ProblemNotFound},
		{name: "unavailable", problem: apigw.ProblemUnavailable.With("retry"), wantRetryAfter: "1"},
		{name: "internal", problem: apigw.ProblemInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := tt.problem.Response()

			assert.Equal(t, tt.problem.Status, resp.StatusCode)
			assert.Equal(t, "application/problem+json", resp.Headers["Content-Type"])
			assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
			retry, ok := resp.Headers["Retry-After"]
			assert.Equal(t, tt.wantRetryAfter != "", ok)
			assert.Equal(t, tt.wantRetryAfter, retry)

			var body map[string]any
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
			assert.Equal(t, tt.problem.Type, body["type"])
			assert.Equal(t, tt.problem.Title, body["title"])
			assert.Equal(t, float64(tt.problem.Status), body["status"])
			assertOptional(t, body, "detail", tt.problem.Detail)
			assertOptional(t, body, "field", tt.problem.Field)
			assertOptional(t, body, "instance", tt.problem.Instance)
		})
	}
}

// assertOptional checks an omitempty member: absent when want is empty.
func assertOptional(t *testing.T, body map[string]any, key, want string) {
	t.Helper()
	got, ok := body[key]
	if want == "" {
		assert.False(t, ok, "%s should be omitted, got %v", key, got)
		return
	}
	assert.Equal(t, want, got)
}

func TestProblemWithCopies(t *testing.T) {
	p := apigw.ProblemNotFound.With("no such link")
	assert.Equal(t, "no such link", p.Detail)
	assert.Empty(t, apigw.ProblemNotFound.Detail, "With must not change the shared problem")
}

func TestError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantLogged bool
	}{
		{name: "client error not logged", err: link.ErrNotFound, wantStatus: 404},
		{name: "field error not logged", err: &link.FieldError{Field: "alias", Reason: "is reserved"}, wantStatus: 400},
		{name: "internal error logged", err: fmt.Errorf("boom %s", secret), wantStatus: 500, wantLogged: true},
		{name: "dependency error logged", err: fmt.Errorf("boom %s: %w", secret, link.ErrUnavailable), wantStatus: 503, wantLogged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, nil))
			req := events.APIGatewayProxyRequest{Path: "/v1/links/abc"}
			req.RequestContext.RequestID = "req-42"

			resp := apigw.Error(context.Background(), log, &req, tt.err)

			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.NotContains(t, resp.Body, secret, "error text leaked to the client")
			var body map[string]any
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
			assert.Equal(t, "/v1/links/abc", body["instance"])
			if !tt.wantLogged {
				assert.Empty(t, logs.String())
				return
			}
			require.Equal(t, 1, strings.Count(logs.String(), "\n"), "logged once")
			var rec map[string]any
			require.NoError(t, json.Unmarshal(logs.Bytes(), &rec))
			assert.Equal(t, tt.err.Error(), rec["error"])
			assert.Equal(t, "req-42", rec["request_id"])
			assert.Equal(t, float64(tt.wantStatus), rec["status"])
		})
	}
}

func TestErrorAllow(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantAllow string
		wantSet   bool
	}{
		{name: "methods named", err: fmt.Errorf("route: %w", &apigw.MethodError{Allow: "GET, PATCH", Detail: "this resource answers GET, PATCH"}), wantAllow: "GET, PATCH", wantSet: true},
		{name: "methods not named", err: &apigw.MethodError{Detail: "use POST"}},
		{name: "not a method error", err: link.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := events.APIGatewayProxyRequest{Path: "/v1/links/abc"}
			resp := apigw.Error(context.Background(), slog.New(slog.DiscardHandler), &req, tt.err)
			allow, ok := resp.Headers["Allow"]
			assert.Equal(t, tt.wantSet, ok)
			assert.Equal(t, tt.wantAllow, allow)
		})
	}
}

func TestReportIsErrorsProblem(t *testing.T) {
	// A batch answers each item with Report's problem: the same mapping,
	// instance and single log line as Error's response.
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	req := events.APIGatewayProxyRequest{Path: "/v1/links/batch"}
	err := fmt.Errorf("put %s: %w", secret, link.ErrUnavailable)

	p := apigw.Report(context.Background(), log, &req, err)

	assert.Equal(t, 503, p.Status)
	assert.Equal(t, "/v1/links/batch", p.Instance)
	assert.NotContains(t, p.Detail, secret)
	assert.Equal(t, 1, strings.Count(logs.String(), "\n"), "logged once")
	assert.JSONEq(t, p.Response().Body, apigw.Error(context.Background(), slog.New(slog.DiscardHandler), &req, err).Body)
}

// flushCount counts Flush calls, failing them with err.
type flushCount struct {
	n   int
	err error
}

func (f *flushCount) Flush() error {
	f.n++
	return f.err
}

func TestServe(t *testing.T) {
	ok := events.APIGatewayProxyResponse{StatusCode: 200, Body: `{"ok":true}`}
	tests := []struct {
		name       string
		routeErr   error
		flushErr   error
		wantStatus int
		wantLog    string // a line of the log, when one is expected
	}{
		{name: "answered", wantStatus: 200},
		{name: "client error mapped, not logged", routeErr: link.ErrNotFound, wantStatus: 404},
		{name: "our error mapped and logged once", routeErr: errors.New(secret), wantStatus: 500, wantLog: "request failed"},
		{name: "a failed flush is only logged", flushErr: errors.New("stdout closed"), wantStatus: 200, wantLog: "flush metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, nil))
			flush := &flushCount{err: tt.flushErr}
			req := events.APIGatewayProxyRequest{Path: "/v1/links/abc"}
			route := func(context.Context, *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				if tt.routeErr != nil {
					return events.APIGatewayProxyResponse{}, tt.routeErr
				}
				return ok, nil
			}

			resp := apigw.Serve(context.Background(), log, flush, &req, route)

			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.NotContains(t, resp.Body, secret)
			assert.Equal(t, 1, flush.n, "the request's metrics are flushed once, whatever the answer")
			if tt.wantLog == "" {
				assert.Empty(t, logs.String())
				return
			}
			assert.Equal(t, 1, strings.Count(logs.String(), "\n"), "logged once")
			assert.Contains(t, logs.String(), tt.wantLog)
		})
	}
}

func TestJSONAndRaw(t *testing.T) {
	tests := []struct {
		name     string
		resp     events.APIGatewayProxyResponse
		wantCode int
		wantBody string
		wantHdr  map[string]string
	}{
		{
			name:     "JSON",
			resp:     apigw.JSON(201, map[string]string{"code": "aB3dE5f"}, map[string]string{"Location": "/v1/links/aB3dE5f"}),
			wantCode: 201, wantBody: `{"code":"aB3dE5f"}`,
			wantHdr: map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store", "Location": "/v1/links/aB3dE5f"},
		},
		{
			name:     "JSON that cannot marshal",
			resp:     apigw.JSON(200, map[string]any{"f": func() {}}, nil),
			wantCode: 500,
			wantHdr:  map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store"},
		},
		{
			name:     "Raw with header override",
			resp:     apigw.Raw(200, []byte(`{"a":1}`), map[string]string{"Cache-Control": "max-age=60"}),
			wantCode: 200, wantBody: `{"a":1}`,
			wantHdr: map[string]string{"Content-Type": "application/json", "Cache-Control": "max-age=60"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantCode, tt.resp.StatusCode)
			assert.Equal(t, tt.wantHdr, tt.resp.Headers)
			if tt.wantBody != "" {
				assert.JSONEq(t, tt.wantBody, tt.resp.Body)
			}
		})
	}
}
