package localgw

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadGolden reads a REST proxy event fixture strictly: every field name in
// it must be one aws-lambda-go decodes, so a misspelt name fails the test
// instead of silently reading as empty. principalOrgId is the one field
// real events carry that aws-lambda-go does not model.
func loadGolden(t *testing.T, name string) events.APIGatewayProxyRequest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var generic map[string]any
	require.NoError(t, json.Unmarshal(raw, &generic))
	identity := generic["requestContext"].(map[string]any)["identity"].(map[string]any)
	require.Contains(t, identity, "principalOrgId", "the fixture should look like a real event")
	delete(identity, "principalOrgId")
	stripped, err := json.Marshal(generic)
	require.NoError(t, err)

	dec := json.NewDecoder(bytes.NewReader(stripped))
	dec.DisallowUnknownFields()
	var ev events.APIGatewayProxyRequest
	require.NoError(t, dec.Decode(&ev))
	return ev
}

func TestEventMatchesRealEventShape(t *testing.T) {
	tests := []struct {
		name     string
		golden   string
		request  func() *http.Request
		route    Route
		apiKeyID string
		id       string
	}{
		{
			name:   "redirect GET with repeated headers and query parameters",
			golden: "apigw-rest-get.json",
			request: func() *http.Request {
				r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/abc1234?utm_source=newsletter&tag=first&tag=second&q=a+b", nil)
				r.RemoteAddr = "192.0.2.10:53412"
				r.Header.Set("Accept", "*/*")
				r.Header.Set("Accept-Language", "en-GB,en;q=0.8")
				r.Header.Set("User-Agent", "curl/8.5.0")
				r.Header.Add("Via", "1.1 first.example")
				r.Header.Add("Via", "1.1 second.example")
				r.Header.Set("X-Forwarded-For", "203.0.113.7")
				return r
			},
			route: Route{Methods: []string{"GET", "HEAD"}, Pattern: "/{code}"},
			id:    "c6f1a3e2-5b7d-4e0a-9f3c-2d8e1b4a7c90",
		},
		{
			name:   "create POST with an API key",
			golden: "apigw-rest-post.json",
			request: func() *http.Request {
				body := `{"url":"https://example.com"}`
				r := httptest.NewRequest(http.MethodPost, "http://localhost:8080/v1/links", strings.NewReader(body))
				r.RemoteAddr = "127.0.0.1:40000"
				r.Header.Set("Accept", "application/json")
				r.Header.Set("Content-Length", "29") // net/http's server keeps it in Header
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Idempotency-Key", "k-1")
				r.Header.Set("User-Agent", "curl/8.5.0")
				r.Header.Set("X-Api-Key", "dev-key")
				return r
			},
			route:    Route{Methods: []string{"POST"}, Pattern: "/v1/links", NeedsKey: true},
			apiKeyID: "dev",
			id:       "7d2e9b41-0c3f-4a8e-b5d6-e1f2a3b4c5d6",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := loadGolden(t, tt.golden)
			r := tt.request()
			body := []byte(want.Body)

			before := time.Now()
			got := Event(r, body, tt.route, tt.apiKeyID, tt.id)
			after := time.Now()

			// The request time is the one field that cannot be golden.
			epoch := got.RequestContext.RequestTimeEpoch
			assert.True(t, epoch >= before.UnixMilli() && epoch <= after.UnixMilli(), "requestTimeEpoch %d is not now", epoch)
			parsed, err := time.Parse(requestTimeLayout, got.RequestContext.RequestTime)
			require.NoError(t, err)
			assert.Equal(t, epoch/1000, parsed.Unix())
			got.RequestContext.RequestTime = want.RequestContext.RequestTime
			got.RequestContext.RequestTimeEpoch = want.RequestContext.RequestTimeEpoch

			assert.Equal(t, want, got)
		})
	}
}

func TestEventBody(t *testing.T) {
	tests := []struct {
		name       string
		body       []byte
		wantBody   string
		wantBase64 bool
	}{
		{name: "none", body: nil, wantBody: ""},
		{name: "JSON", body: []byte(`{"url":"https://example.com"}`), wantBody: `{"url":"https://example.com"}`},
		{name: "UTF-8 text", body: []byte("héllo ✓"), wantBody: "héllo ✓"},
		{name: "binary", body: []byte{0xff, 0xd8, 0xff, 0x00, 0x10}, wantBody: "/9j/ABA=", wantBase64: true},
		{name: "text cut inside a rune", body: []byte("é")[:1], wantBody: "ww==", wantBase64: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1/links", bytes.NewReader(tt.body))
			ev := Event(r, tt.body, Route{Pattern: "/v1/links"}, "", "id")
			assert.Equal(t, tt.wantBody, ev.Body)
			assert.Equal(t, tt.wantBase64, ev.IsBase64Encoded)
		})
	}
}

func TestEventPathAndParameters(t *testing.T) {
	tests := []struct {
		name       string
		target     string
		pattern    string
		wantPath   string
		wantParams map[string]string
		wantQuery  map[string]string
	}{
		{name: "no parameters", target: "/v1/links", pattern: "/v1/links", wantPath: "/v1/links"},
		{name: "one parameter", target: "/Abc123x", pattern: "/{code}", wantPath: "/Abc123x", wantParams: map[string]string{"code": "Abc123x"}},
		{
			// API Gateway leaves the path percent-encoded and decodes the query.
			name: "encoded path stays encoded", target: "/a%2Fb%20c?next=%2Fhome", pattern: "/{code}",
			wantPath: "/a%2Fb%20c", wantParams: map[string]string{"code": "a%2Fb%20c"}, wantQuery: map[string]string{"next": "/home"},
		},
		{
			name: "nested parameter", target: "/v1/links/xyz/stats", pattern: "/v1/links/{code}/stats",
			wantPath: "/v1/links/xyz/stats", wantParams: map[string]string{"code": "xyz"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			ev := Event(r, nil, Route{Pattern: tt.pattern}, "", "id")
			assert.Equal(t, tt.wantPath, ev.Path)
			assert.Equal(t, tt.wantPath, ev.RequestContext.Path)
			assert.Equal(t, tt.pattern, ev.Resource)
			assert.Equal(t, tt.pattern, ev.RequestContext.ResourcePath)
			assert.Equal(t, tt.wantParams, ev.PathParameters)
			assert.Equal(t, tt.wantQuery, ev.QueryStringParameters)
		})
	}
}

func TestEventIdentityWithoutKey(t *testing.T) {
	// A key sent to a route that does not need one is not checked, and API
	// Gateway does not put it in the identity.
	r := httptest.NewRequest(http.MethodGet, "/abc1234", nil)
	r.Header.Set("X-Api-Key", "dev-key")
	ev := Event(r, nil, Route{Pattern: "/{code}"}, "", "id")
	assert.Empty(t, ev.RequestContext.Identity.APIKeyID)
	assert.Empty(t, ev.RequestContext.Identity.APIKey)
	assert.Equal(t, "dev-key", ev.Headers["X-Api-Key"])
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name       string
		resp       events.APIGatewayProxyResponse
		wantStatus int
		wantHeader http.Header
		wantBody   string
	}{
		{
			name: "headers from both maps, a shared value once",
			resp: events.APIGatewayProxyResponse{
				StatusCode:        http.StatusFound,
				Headers:           map[string]string{"Location": "https://example.com", "Cache-Control": "no-store", "Vary": "Accept"},
				MultiValueHeaders: map[string][]string{"Set-Cookie": {"a=1", "b=2"}, "Vary": {"Accept", "Origin"}},
			},
			wantStatus: http.StatusFound,
			wantHeader: http.Header{
				"Location":       {"https://example.com"},
				"Cache-Control":  {"no-store"},
				"Set-Cookie":     {"a=1", "b=2"},
				"Vary":           {"Accept", "Origin"},
				"Content-Length": {"0"},
			},
		},
		{
			name:       "base64 body is decoded",
			resp:       events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "image/png"}, Body: "iVBORw==", IsBase64Encoded: true},
			wantStatus: 200,
			wantHeader: http.Header{"Content-Type": {"image/png"}, "Content-Length": {"4"}},
			wantBody:   "\x89PNG",
		},
		{
			name:       "text body",
			resp:       events.APIGatewayProxyResponse{StatusCode: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: `{"ok":true}`},
			wantStatus: 201,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"11"}},
			wantBody:   `{"ok":true}`,
		},
		{
			name:       "no content",
			resp:       events.APIGatewayProxyResponse{StatusCode: 204},
			wantStatus: 204,
			wantHeader: http.Header{},
		},
		{
			name:       "missing status is a malformed response",
			resp:       events.APIGatewayProxyResponse{Body: "hello"},
			wantStatus: http.StatusBadGateway,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"35"}, "x-amzn-ErrorType": {"InternalServerErrorException"}},
			wantBody:   `{"message":"Internal server error"}`,
		},
		{
			name:       "body that is not base64",
			resp:       events.APIGatewayProxyResponse{StatusCode: 200, Body: "not base64!", IsBase64Encoded: true},
			wantStatus: http.StatusBadGateway,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"35"}, "x-amzn-ErrorType": {"InternalServerErrorException"}},
			wantBody:   `{"message":"Internal server error"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, tt.resp)
			assert.Equal(t, tt.wantStatus, rec.Code)
			assert.Equal(t, tt.wantHeader, rec.Header())
			assert.Equal(t, tt.wantBody, rec.Body.String())
		})
	}
}
