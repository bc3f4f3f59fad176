package localgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// recorder is a fake Lambda handler that keeps the events it was sent.
type recorder struct {
	mu     sync.Mutex
	events []events.APIGatewayProxyRequest
	resp   events.APIGatewayProxyResponse
}

func (f *recorder) handle(_ context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, req)
	return f.resp, nil
}

func (f *recorder) last(t *testing.T) events.APIGatewayProxyRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.events, "the handler was not called")
	return f.events[len(f.events)-1]
}

func (f *recorder) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events)
}

type fixture struct {
	gw       *Gateway
	create   *recorder
	redirect *recorder
	logs     *bytes.Buffer
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	f := &fixture{
		create:   &recorder{resp: apigw.JSON(http.StatusCreated, map[string]string{"code": "abc1234"}, nil)},
		redirect: &recorder{resp: events.APIGatewayProxyResponse{StatusCode: http.StatusFound, Headers: map[string]string{"Location": "https://example.com", "Cache-Control": "no-store"}, Body: "redirecting"}},
		logs:     &bytes.Buffer{},
	}
	if o.Routes == nil {
		o.Routes = Routes(Handlers{Create: f.create.handle, Redirect: f.redirect.handle})
	}
	if o.APIKeys == nil {
		o.APIKeys = StaticKeys("dev-key", "other-key")
	}
	o.Log = slog.New(slog.NewJSONHandler(f.logs, nil))
	gw, err := New(o)
	require.NoError(t, err)
	f.gw = gw
	return f
}

func (f *fixture) do(method, target, body string, header http.Header) *httptest.ResponseRecorder {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	}
	for k, vs := range header {
		r.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	f.gw.ServeHTTP(rec, r)
	return rec
}

// requestIDOf reads the request id header, which the gateway stores spelt
// as AWS spells it rather than in Go's canonical form.
func requestIDOf(h http.Header) string {
	//lint:ignore SA1008 stored spelt as AWS spells it, not in Go's canonical form
	if v := h[RequestIDHeader]; len(v) > 0 {
		return v[0]
	}
	return h.Get(RequestIDHeader)
}

func problemOf(t *testing.T, rec *httptest.ResponseRecorder) apigw.Problem {
	t.Helper()
	require.Equal(t, apigw.ContentTypeProblem, rec.Header().Get("Content-Type"), "body: %s", rec.Body.String())
	var p apigw.Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	return p
}

func TestGatewayAPIKeys(t *testing.T) {
	tests := []struct {
		name       string
		header     http.Header
		wantStatus int
		wantType   string
		wantKeyID  string
	}{
		{name: "missing", wantStatus: http.StatusUnauthorized, wantType: apigw.ProblemUnauthenticated.Type},
		{name: "empty", header: http.Header{"X-Api-Key": {""}}, wantStatus: http.StatusUnauthorized, wantType: apigw.ProblemUnauthenticated.Type},
		{name: "unknown", header: http.Header{"X-Api-Key": {"guess"}}, wantStatus: http.StatusForbidden, wantType: apigw.ProblemForbidden.Type},
		{name: "prefix of a key", header: http.Header{"X-Api-Key": {"dev-ke"}}, wantStatus: http.StatusForbidden, wantType: apigw.ProblemForbidden.Type},
		{name: "valid", header: http.Header{"X-Api-Key": {"dev-key"}}, wantStatus: http.StatusCreated, wantKeyID: KeyID("dev-key")},
		{name: "another key", header: http.Header{"X-Api-Key": {"other-key"}}, wantStatus: http.StatusCreated, wantKeyID: KeyID("other-key")},
		{name: "last of repeated keys counts", header: http.Header{"X-Api-Key": {"guess", "dev-key"}}, wantStatus: http.StatusCreated, wantKeyID: KeyID("dev-key")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			rec := f.do(http.MethodPost, "/v1/links", `{"url":"https://example.com"}`, tt.header)
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			if tt.wantType != "" {
				p := problemOf(t, rec)
				assert.Equal(t, tt.wantType, p.Type)
				assert.Equal(t, "/v1/links", p.Instance)
				assert.Zero(t, f.create.calls(), "the handler must not see unauthenticated requests")
				return
			}
			ev := f.create.last(t)
			assert.Equal(t, tt.wantKeyID, ev.RequestContext.Identity.APIKeyID)
			sent := tt.header.Values("X-Api-Key")
			assert.Equal(t, sent[len(sent)-1], ev.RequestContext.Identity.APIKey)
		})
	}
}

// failingKeys cannot read its keys.
type failingKeys struct{}

func (failingKeys) KeyID(context.Context, string) (string, error) {
	return "", errors.New("keys table unreachable")
}

func TestGatewayKeysUnreadable(t *testing.T) {
	f := newFixture(t, Options{APIKeys: failingKeys{}})
	rec := f.do(http.MethodPost, "/v1/links", `{"url":"https://example.com"}`, http.Header{"X-Api-Key": {"dev-key"}})
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, apigw.ProblemUnavailable.Type, problemOf(t, rec).Type)
	assert.Zero(t, f.create.calls())
}

func TestKeyID(t *testing.T) {
	id := KeyID("dev-key")
	assert.Regexp(t, "^[0-9a-z]{10}$", id, "shaped like API Gateway's key IDs")
	assert.Equal(t, id, KeyID("dev-key"), "stable")
	assert.NotEqual(t, id, KeyID("dev-key2"))
	assert.NotContains(t, id, "dev")
}

func TestGatewayRedirectNeedsNoKey(t *testing.T) {
	f := newFixture(t, Options{})
	rec := f.do(http.MethodGet, "/abc1234", "", nil)
	assert.Equal(t, http.StatusFound, rec.Code)
	assert.Equal(t, "https://example.com", rec.Header().Get("Location"))
	ev := f.redirect.last(t)
	assert.Empty(t, ev.RequestContext.Identity.APIKeyID)
}

func TestGatewayRouting(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		target      string
		wantStatus  int
		wantMessage string // the {"message": ...} of API Gateway's own answer; "" for a problem
		wantRoute   string // "create", "redirect" or "" for an answer from the gateway
		wantParams  map[string]string
	}{
		{name: "create", method: "POST", target: "/v1/links", wantStatus: 201, wantRoute: "create"},
		{name: "redirect GET", method: "GET", target: "/abc1234", wantStatus: 302, wantRoute: "redirect", wantParams: map[string]string{"code": "abc1234"}},
		{name: "redirect HEAD", method: "HEAD", target: "/abc1234", wantStatus: 302, wantRoute: "redirect", wantParams: map[string]string{"code": "abc1234"}},
		{name: "redirect with query", method: "GET", target: "/my-alias?x=1", wantStatus: 302, wantRoute: "redirect", wantParams: map[string]string{"code": "my-alias"}},
		{name: "v1 is not a code", method: "GET", target: "/v1", wantStatus: 404},
		{name: "a code may start with v1", method: "GET", target: "/v1abc", wantStatus: 302, wantRoute: "redirect", wantParams: map[string]string{"code": "v1abc"}},
		{name: "healthz is not a code", method: "DELETE", target: "/healthz", wantStatus: 403, wantMessage: "Missing Authentication Token"},
		{name: "_local is not a code", method: "GET", target: "/_local", wantStatus: 404},
		{name: "root", method: "GET", target: "/", wantStatus: 404},
		{name: "two segments", method: "GET", target: "/abc/def", wantStatus: 404},
		{name: "trailing slash", method: "GET", target: "/abc1234/", wantStatus: 404},
		{name: "empty segment", method: "GET", target: "//abc", wantStatus: 404},
		{name: "unknown under v1", method: "GET", target: "/v1/other", wantStatus: 404},
		{name: "below a link", method: "GET", target: "/v1/links/abc", wantStatus: 404},
		{name: "below healthz", method: "GET", target: "/healthz/x", wantStatus: 404},
		{name: "GET the collection", method: "GET", target: "/v1/links", wantStatus: 403, wantMessage: "Missing Authentication Token"},
		{name: "POST a code", method: "POST", target: "/abc1234", wantStatus: 404, wantMessage: "Not Found"},
		{name: "POST a password form", method: "POST", target: "/unlock/abc1234", wantStatus: 302, wantRoute: "redirect", wantParams: map[string]string{"code": "abc1234"}},
		{name: "GET a password form's path", method: "GET", target: "/unlock/abc1234", wantStatus: 404, wantMessage: "Not Found"},
		{name: "DELETE a code", method: "DELETE", target: "/abc1234", wantStatus: 404, wantMessage: "Not Found"},
		{name: "POST healthz", method: "POST", target: "/healthz", wantStatus: 403, wantMessage: "Missing Authentication Token"},
		{name: "lower-case method", method: "get", target: "/abc1234", wantStatus: 404, wantMessage: "Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			body := ""
			if tt.method == "POST" {
				body = `{"url":"https://example.com"}`
			}
			rec := f.do(tt.method, tt.target, body, http.Header{"X-Api-Key": {"dev-key"}})
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			assert.NotEmpty(t, requestIDOf(rec.Header()))
			switch tt.wantRoute {
			case "create":
				assert.Equal(t, 1, f.create.calls())
				assert.Zero(t, f.redirect.calls())
				assert.Equal(t, "/v1/links", f.create.last(t).Resource)
			case "redirect":
				assert.Equal(t, 1, f.redirect.calls())
				assert.Zero(t, f.create.calls())
				ev := f.redirect.last(t)
				wantResource := "/{code}"
				if strings.HasPrefix(tt.target, "/unlock/") {
					wantResource = "/unlock/{code}"
				}
				assert.Equal(t, wantResource, ev.Resource)
				assert.Equal(t, tt.method, ev.HTTPMethod)
				assert.Equal(t, tt.wantParams, ev.PathParameters)
				assert.Equal(t, requestIDOf(rec.Header()), ev.RequestContext.RequestID)
			default:
				assert.Zero(t, f.create.calls()+f.redirect.calls())
				assert.Empty(t, rec.Header().Get("Allow"), "API Gateway sends no Allow")
				if tt.wantMessage != "" {
					assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
					assert.JSONEq(t, `{"message":"`+tt.wantMessage+`"}`, rec.Body.String())
					return
				}
				p := problemOf(t, rec)
				assert.Equal(t, tt.wantStatus, p.Status)
				assert.Equal(t, apigw.ProblemNotFound.Type, p.Type)
			}
		})
	}
}

func TestGatewayHead(t *testing.T) {
	// Over a real connection: net/http must send the headers and no body.
	f := newFixture(t, Options{})
	srv := httptest.NewServer(f.gw)
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := client.Head(srv.URL + "/abc1234")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "https://example.com", resp.Header.Get("Location"))
	assert.Empty(t, body)
	assert.Equal(t, http.MethodHead, f.redirect.last(t).HTTPMethod)
}

func TestGatewayHealthz(t *testing.T) {
	var mu sync.Mutex
	state := errors.New("creating tables")
	ready := func() error {
		mu.Lock()
		defer mu.Unlock()
		return state
	}
	f := newFixture(t, Options{Ready: ready})

	rec := f.do(http.MethodGet, "/healthz", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	p := problemOf(t, rec)
	assert.Contains(t, p.Detail, "creating tables")
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))

	// The backends are not up: their routes wait too, after routing and keys.
	rec = f.do(http.MethodGet, "/abc1234", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	rec = f.do(http.MethodPost, "/v1/links", `{}`, nil)
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	rec = f.do(http.MethodGet, "/nope/nope", "", nil)
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Zero(t, f.redirect.calls()+f.create.calls())

	mu.Lock()
	state = nil
	mu.Unlock()

	rec = f.do(http.MethodGet, "/healthz", "", nil)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"status":"ok"}`, rec.Body.String())
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	rec = f.do(http.MethodGet, "/abc1234", "", nil)
	assert.Equal(t, http.StatusFound, rec.Code)
}

func TestGatewayBodies(t *testing.T) {
	tests := []struct {
		name       string
		body       []byte
		wantStatus int
		wantBase64 bool
	}{
		{name: "JSON", body: []byte(`{"url":"https://example.com"}`), wantStatus: 201},
		{name: "binary", body: []byte{0x00, 0xff, 0xfe, 0x01}, wantStatus: 201, wantBase64: true},
		{name: "exactly the limit", body: bytes.Repeat([]byte("a"), DefaultMaxBodyBytes), wantStatus: 201},
		{name: "over the limit", body: bytes.Repeat([]byte("a"), DefaultMaxBodyBytes+1), wantStatus: 413},
	}
	for _, tt := range tests {
		for _, chunked := range []bool{false, true} {
			name := tt.name
			if chunked {
				name += " chunked"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, Options{})
				srv := httptest.NewServer(f.gw)
				defer srv.Close()
				var body io.Reader = bytes.NewReader(tt.body)
				if chunked {
					body = io.MultiReader(body) // unknown length: no Content-Length
				}
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/links", body)
				require.NoError(t, err)
				req.Header.Set("X-Api-Key", "dev-key")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				require.Equal(t, tt.wantStatus, resp.StatusCode, string(got))
				if tt.wantStatus == 413 {
					assert.Contains(t, string(got), apigw.ProblemTooLarge.Type)
					assert.Zero(t, f.create.calls())
					return
				}
				ev := f.create.last(t)
				assert.Equal(t, tt.wantBase64, ev.IsBase64Encoded)
				decoded, err := apigw.Body(&ev)
				if len(tt.body) <= apigw.MaxBodyBytes {
					require.NoError(t, err)
					assert.Equal(t, tt.body, decoded)
				}
			})
		}
	}
}

func TestGatewayHandlerFailures(t *testing.T) {
	tests := []struct {
		name        string
		handler     Handler
		timeout     time.Duration
		wantStatus  int
		wantMessage string
		wantLog     string
	}{
		{
			name: "error",
			handler: func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				return events.APIGatewayProxyResponse{}, errors.New("boom")
			},
			wantStatus: 502, wantMessage: "Internal server error", wantLog: "boom",
		},
		{
			name: "panic",
			handler: func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				panic("kaboom")
			},
			wantStatus: 502, wantMessage: "Internal server error", wantLog: "kaboom",
		},
		{
			name: "malformed response",
			handler: func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				return events.APIGatewayProxyResponse{Body: "no status"}, nil
			},
			wantStatus: 502, wantMessage: "Internal server error",
		},
		{
			name: "timeout",
			handler: func(ctx context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				<-ctx.Done() // the context's deadline is the integration timeout
				time.Sleep(50 * time.Millisecond)
				return events.APIGatewayProxyResponse{StatusCode: 200}, nil
			},
			timeout:    20 * time.Millisecond,
			wantStatus: 504, wantMessage: "Endpoint request timed out", wantLog: "timed out",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok := &recorder{resp: events.APIGatewayProxyResponse{StatusCode: 200, Body: "fine"}}
			f := newFixture(t, Options{
				Timeout: tt.timeout,
				Routes: []Route{
					{Methods: []string{"GET"}, Pattern: "/fail", Handler: tt.handler},
					{Methods: []string{"GET"}, Pattern: "/ok", Handler: ok.handle},
				},
			})
			srv := httptest.NewServer(f.gw)
			defer srv.Close()

			resp, err := http.Get(srv.URL + "/fail")
			require.NoError(t, err)
			var msg struct{ Message string }
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
			resp.Body.Close()
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.Equal(t, tt.wantMessage, msg.Message)
			assert.NotEmpty(t, resp.Header.Get(RequestIDHeader))
			if tt.wantLog != "" {
				assert.Contains(t, f.logs.String(), tt.wantLog)
				assert.Contains(t, f.logs.String(), resp.Header.Get(RequestIDHeader))
			}

			// The server is still up.
			resp, err = http.Get(srv.URL + "/ok")
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "fine", string(body))
		})
	}
}

func TestNewRejectsBadRoutes(t *testing.T) {
	h := (&recorder{}).handle
	tests := []struct {
		name   string
		routes []Route
	}{
		{name: "no leading slash", routes: []Route{{Methods: []string{"GET"}, Pattern: "x", Handler: h}}},
		{name: "no handler", routes: []Route{{Methods: []string{"GET"}, Pattern: "/x"}}},
		{name: "no methods", routes: []Route{{Pattern: "/x", Handler: h}}},
		{name: "lower-case method", routes: []Route{{Methods: []string{"get"}, Pattern: "/x", Handler: h}}},
		{name: "empty segment", routes: []Route{{Methods: []string{"GET"}, Pattern: "/a//b", Handler: h}}},
		{name: "partial parameter", routes: []Route{{Methods: []string{"GET"}, Pattern: "/a-{id}", Handler: h}}},
		{name: "bad parameter name", routes: []Route{{Methods: []string{"GET"}, Pattern: "/{a b}", Handler: h}}},
		{name: "defined twice", routes: []Route{
			{Methods: []string{"GET"}, Pattern: "/{code}", Handler: h},
			{Methods: []string{"GET", "HEAD"}, Pattern: "/{code}", Handler: h},
		}},
		{name: "healthz taken", routes: []Route{{Methods: []string{"GET"}, Pattern: "/healthz", Handler: h}}},
		{name: "sibling parameters", routes: []Route{
			{Methods: []string{"GET"}, Pattern: "/v1/links/{code}", Handler: h},
			{Methods: []string{"PATCH"}, Pattern: "/v1/links/{id}", Handler: h},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{Routes: tt.routes})
			assert.Error(t, err)
		})
	}
}

func TestGatewayGrowsWithTheAPI(t *testing.T) {
	// The routes later issues add fit the same table; static segments win
	// over {code} at every level.
	okay := func() *recorder { return &recorder{resp: events.APIGatewayProxyResponse{StatusCode: 200}} }
	create, redirect := okay(), &recorder{resp: events.APIGatewayProxyResponse{StatusCode: 302}}
	get, patch, stats, list, reclaim := okay(), okay(), okay(), okay(), okay()
	routes := append(Routes(Handlers{Create: create.handle, Redirect: redirect.handle}),
		Route{Methods: []string{"GET"}, Pattern: "/v1/links", NeedsKey: true, Handler: list.handle},
		Route{Methods: []string{"GET"}, Pattern: "/v1/links/{code}", NeedsKey: true, Handler: get.handle},
		Route{Methods: []string{"PATCH"}, Pattern: "/v1/links/{code}", NeedsKey: true, Handler: patch.handle},
		Route{Methods: []string{"GET"}, Pattern: "/v1/links/{code}/stats", NeedsKey: true, Handler: stats.handle},
		Route{Methods: []string{"POST"}, Pattern: "/_local/reclaim", Handler: reclaim.handle},
	)
	f := newFixture(t, Options{Routes: routes})
	key := http.Header{"X-Api-Key": {"dev-key"}}

	assert.Equal(t, 200, f.do("GET", "/v1/links", "", key).Code)
	assert.Equal(t, 1, list.calls())
	assert.Equal(t, 200, f.do("GET", "/v1/links/abc1234", "", key).Code)
	assert.Equal(t, map[string]string{"code": "abc1234"}, get.last(t).PathParameters)
	assert.Equal(t, 200, f.do("PATCH", "/v1/links/abc1234", `{}`, key).Code)
	assert.Equal(t, "/v1/links/{code}", patch.last(t).Resource)
	assert.Equal(t, 200, f.do("GET", "/v1/links/abc1234/stats", "", key).Code)
	assert.Equal(t, "/v1/links/{code}/stats", stats.last(t).Resource)
	assert.Equal(t, 200, f.do("POST", "/_local/reclaim", "", nil).Code)
	assert.Equal(t, 1, reclaim.calls())

	rec := f.do("DELETE", "/v1/links/abc1234", "", key)
	assert.Equal(t, 403, rec.Code, "a REST API does not route a method the resource lacks")
	assert.Empty(t, rec.Header().Get("Allow"))
	assert.Equal(t, 401, f.do("GET", "/v1/links/abc1234", "", nil).Code)
	assert.Equal(t, 302, f.do("GET", "/abc1234", "", nil).Code)
}

func TestRoutesLeavesOutMissingHandlers(t *testing.T) {
	h := (&recorder{}).handle
	assert.Empty(t, Routes(Handlers{}))
	only := Routes(Handlers{Redirect: h})
	require.Len(t, only, 2, "the redirect and the password form")
	assert.Equal(t, "/{code}", only[0].Pattern)
	assert.Equal(t, "/unlock/{code}", only[1].Pattern)
	assert.Len(t, Routes(Handlers{Create: h, Redirect: h}), 3)
}

func TestParseAPIKeys(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr string
	}{
		{name: "one", in: "dev-key=dev", want: map[string]string{"dev-key": "dev"}},
		{name: "several with spaces", in: " dev-key = dev ,ci-key=ci,  k3=dev ", want: map[string]string{"dev-key": "dev", "ci-key": "ci", "k3": "dev"}},
		{name: "empty string", in: "", wantErr: "none given"},
		{name: "only spaces", in: "   ", wantErr: "none given"},
		{name: "empty entry", in: "a=b,,c=d", wantErr: "entry 2 is empty"},
		{name: "trailing comma", in: "a=b,", wantErr: "entry 2 is empty"},
		{name: "no equals", in: "a=b,c", wantErr: "entry 2 is not key=owner"},
		{name: "two equals", in: "a=b=c", wantErr: "entry 1 is not key=owner"},
		{name: "empty key", in: " =dev", wantErr: "empty key"},
		{name: "empty owner", in: "key= ", wantErr: "empty owner"},
		{name: "space inside key", in: "my key=dev", wantErr: "printable ASCII"},
		{name: "duplicate key", in: "k=a,k=b", wantErr: "entry 2 repeats a key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAPIKeys(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKeyringDoesNotEchoKeys(t *testing.T) {
	// Error messages name the entry, never the key, so a typo in a real key
	// does not end up in a log.
	_, err := ParseAPIKeys("s3cr3t-value=a,s3cr3t-value=b")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t")
}

// TestAHandlerOutlivesItsClient: as in AWS, a client that goes away does
// not cancel the invocation; only the integration timeout bounds it.
func TestAHandlerOutlivesItsClient(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	finished := make(chan error, 1)
	slow := func(ctx context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		close(started)
		<-release
		finished <- ctx.Err()
		return events.APIGatewayProxyResponse{StatusCode: 201}, nil
	}
	f := newFixture(t, Options{Routes: []Route{{Methods: []string{"POST"}, Pattern: "/slow", Handler: slow}}})
	srv := httptest.NewServer(f.gw)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/slow", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("x-api-key", "dev-key")
	gone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gone <- err
	}()
	<-started
	cancel()
	require.Error(t, <-gone, "the client gave up")
	time.Sleep(50 * time.Millisecond) // time for the server to see the connection close
	close(release)
	select {
	case err := <-finished:
		assert.NoError(t, err, "the handler's context outlived the client")
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not finish")
	}
}

// TestGatewayUnlistedMethod: a method a path does not list is never
// routed by AWS. The REST API answers its MISSING_AUTHENTICATION_TOKEN
// gateway response, as described in edgespec; the HTTP API its 404
// {"message":"Not Found"}. Neither sends Allow.
func TestGatewayUnlistedMethod(t *testing.T) {
	mgmt := edgespec.Management(edgespec.DefaultUsagePlan)
	missing, ok := mgmt.GatewayResponse(edgespec.ResponseMissingAuthenticationToken)
	require.True(t, ok)
	f := newFixture(t, Options{GatewayResponses: mgmt.GatewayResponses})

	rec := f.do("PUT", "/v1/links", `{}`, http.Header{"X-Api-Key": {"dev-key"}})
	assert.Equal(t, missing.Status, rec.Code)
	assert.Equal(t, apigw.ContentTypeProblem, rec.Header().Get("Content-Type"))
	want, err := json.Marshal(missing.Problem("/v1/links"))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), rec.Body.String())
	assert.Empty(t, rec.Header().Get("Allow"))

	rec = f.do("PUT", "/abc1234", "", nil)
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"message":"Not Found"}`, rec.Body.String())
	assert.Empty(t, rec.Header().Get("Allow"))
	assert.Zero(t, f.create.calls()+f.redirect.calls())
}

// TestGatewayUnlistedMethodDefault: without the gateway response, a REST
// API answers API Gateway's default, 403 {"message":"Missing
// Authentication Token"}.
func TestGatewayUnlistedMethodDefault(t *testing.T) {
	f := newFixture(t, Options{})
	rec := f.do("PUT", "/v1/links", `{}`, http.Header{"X-Api-Key": {"dev-key"}})
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.JSONEq(t, `{"message":"Missing Authentication Token"}`, rec.Body.String())
}
