package apispec_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/apispec"
)

// TestCheckerCatchesDrift: answers a handler could drift into, each of
// which the conformance run must refuse; and the well-formed one beside
// them that it must accept.
func TestCheckerCatchesDrift(t *testing.T) {
	doc, err := apispec.Load(context.Background(), apispec.Path())
	require.NoError(t, err)
	const server = "http://127.0.0.1:8080"
	c, err := apispec.New(doc, server)
	require.NoError(t, err)

	const link = `{"code":"Ab3dE5g","short_url":"https://sho.rt/Ab3dE5g","url":"https://example.com/","created_at":"2026-11-30T12:00:00Z","expires_at":"2031-11-29T12:00:00Z","redirect_status":302}`
	const problem = `{"type":"/v1/problems#invalid-request","title":"Invalid request","status":400,"field":"url"}`
	created := http.Header{"Content-Type": {"application/json"}, "Location": {"/v1/links/Ab3dE5g"}, "Cache-Control": {"no-store"}}
	with := func(h http.Header, kv ...string) http.Header {
		out := h.Clone()
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				out.Del(kv[i])
				continue
			}
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	detail := http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}, "Etag": {`"3"`}}
	detailBody := strings.TrimSuffix(link, "}") + `,"status":"active","version":3,"updated_at":"2026-11-30T12:00:00Z"}`
	problemHeader := http.Header{"Content-Type": {"application/problem+json"}, "Cache-Control": {"no-store"}}

	tests := []struct {
		name    string
		method  string
		path    string
		body    string
		status  int
		header  http.Header
		resp    string
		wantErr string // in the response error; "" for none
	}{
		{name: "a well-formed create", method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 201, header: created, resp: link},
		{name: "an undocumented field", method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 201, header: created,
			resp: strings.TrimSuffix(link, "}") + `,"clicks":0}`, wantErr: "clicks"},
		{name: "a missing field", method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 201, header: created,
			resp: strings.Replace(link, `"redirect_status":302`, `"alias":"Sale"`, 1), wantErr: "redirect_status"},
		{name: "no Location", method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 201, header: with(created, "Location", ""), resp: link, wantErr: "Location"},
		{name: "an undocumented status", method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 200, header: created, resp: link, wantErr: "status 200"},
		{name: "a problem as plain JSON", method: "POST", path: "/v1/links", body: `{"url":"x"}`, status: 400, header: with(problemHeader, "Content-Type", "application/json"), resp: problem, wantErr: "application/json"},
		{name: "a problem whose type points elsewhere", method: "POST", path: "/v1/links", body: `{"url":"x"}`, status: 400, header: problemHeader,
			resp: strings.Replace(problem, `/v1/problems#`, `https://example.com/problems#`, 1), wantErr: "type"},
		{name: "a problem without title", method: "POST", path: "/v1/links", body: `{"url":"x"}`, status: 400, header: problemHeader, resp: strings.Replace(problem, `"title":"Invalid request",`, "", 1), wantErr: "title"},
		{name: "a cacheable problem", method: "POST", path: "/v1/links", body: `{"url":"x"}`, status: 400, header: with(problemHeader, "Cache-Control", "max-age=60"), resp: problem, wantErr: "Cache-Control"},
		{name: "a batch result both created and failed", method: "POST", path: "/v1/links/batch", body: `{"links":[{"url":"https://example.com/"}]}`, status: 200,
			header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}, resp: `{"results":[{"index":0,"status":201,"link":` + link + `,"problem":` + problem + `}]}`, wantErr: "results"},
		{name: "a weak ETag", method: "GET", path: "/v1/links/Ab3dE5g", status: 200, header: with(detail, "ETag", `W/"3"`), resp: detailBody, wantErr: "ETag"},
		{name: "a well-formed detail", method: "GET", path: "/v1/links/Ab3dE5g", status: 200, header: detail, resp: detailBody},
		{name: "a deleted status shown", method: "GET", path: "/v1/links/Ab3dE5g", status: 200, header: detail, resp: strings.Replace(detailBody, `"active"`, `"deleted"`, 1), wantErr: "status"},
		{name: "a 204 with a body", method: "DELETE", path: "/v1/links/Ab3dE5g", status: 204, header: http.Header{"Cache-Control": {"no-store"}}, resp: `{}`, wantErr: "no content"},
		{name: "a 301 without Location", method: "GET", path: "/Ab3dE5g", status: 301, header: http.Header{"Cache-Control": {"public, max-age=0, s-maxage=60"}}, wantErr: "Location"},
		{name: "a 308 cached by browsers", method: "GET", path: "/Ab3dE5g", status: 308, header: http.Header{"Location": {"https://example.com/"}, "Cache-Control": {"max-age=31536000"}}, wantErr: "Cache-Control"},
		{name: "a HEAD with a body", method: "HEAD", path: "/Ab3dE5g", status: 302, header: http.Header{"Location": {"https://example.com/"}, "Cache-Control": {"public, max-age=0, s-maxage=60"}}, resp: "x", wantErr: "HEAD"},
		{name: "a well-formed HEAD", method: "HEAD", path: "/Ab3dE5g", status: 302, header: http.Header{"Location": {"https://example.com/"}, "Cache-Control": {"public, max-age=0, s-maxage=60"}}},
		{name: "a redirect status the document lacks", method: "GET", path: "/Ab3dE5g", status: 300, header: http.Header{"Location": {"https://example.com/"}, "Cache-Control": {"no-store"}}, wantErr: "status 300"},
		{name: "a 405 where API Gateway routes nothing", method: "PUT", path: "/Ab3dE5g", status: 405,
			header: with(problemHeader, "Allow", "GET, HEAD"), resp: strings.NewReplacer("invalid-request", "method-not-allowed", "400", "405", `,"field":"url"`, "").Replace(problem), wantErr: "Not Found"},
		{name: "an unrouted redirect method", method: "PUT", path: "/Ab3dE5g", status: 404,
			header: http.Header{"Content-Type": {"application/json"}}, resp: `{"message":"Not Found"}`},
		{name: "a 405 where the REST API routes nothing", method: "PUT", path: "/v1/links", status: 405,
			header: with(problemHeader, "Allow", "POST"), resp: strings.NewReplacer("invalid-request", "method-not-allowed", "400", "405", `,"field":"url"`, "").Replace(problem), wantErr: "Allow"},
		{name: "a 200 for a path the document lacks", method: "GET", path: "/v1/other", status: 200, header: detail, resp: detailBody, wantErr: "status 200"},
		{name: "a PNG as JSON", method: "GET", path: "/v1/links/Ab3dE5g/qr", status: 200,
			header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"private, max-age=3600"}, "Content-Disposition": {`inline; filename="Ab3dE5g.png"`}}, resp: `{}`, wantErr: "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, server+tt.path, nil)
			require.NoError(t, err)
			req.Header.Set("x-api-key", "k")
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res := c.Check(context.Background(), apispec.Exchange{Request: req, RequestBody: []byte(tt.body), Status: tt.status, Header: tt.header, Body: []byte(tt.resp)})
			if tt.wantErr == "" {
				assert.NoError(t, res.ResponseErr)
				return
			}
			require.Error(t, res.ResponseErr)
			assert.Contains(t, res.ResponseErr.Error(), tt.wantErr)
		})
	}
}
