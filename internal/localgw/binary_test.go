package localgw

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
)

// pngBytes stands in for a QR code: the start of a PNG, not valid UTF-8.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func TestGatewayBinaryResponsesFollowAccept(t *testing.T) {
	png64 := base64.StdEncoding.EncodeToString(pngBytes)
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	tests := []struct {
		name     string
		types    []string
		accept   []string // nil: no Accept header
		wantBody string
	}{
		{name: "no binary media types: base64 text", types: nil, accept: []string{"image/png"}, wantBody: png64},
		{name: "image/png asked first", types: []string{"image/png"}, accept: []string{"image/png"}, wantBody: string(pngBytes)},
		{name: "image/png with parameters", types: []string{"image/png"}, accept: []string{"image/png;q=0.8"}, wantBody: string(pngBytes)},
		{name: "curl's */* does not match image/png", types: []string{"image/png"}, accept: []string{"*/*"}, wantBody: png64},
		{name: "a browser's Accept does not match image/png", types: []string{"image/png"}, accept: []string{browser}, wantBody: png64},
		{name: "image/png second does not count", types: []string{"image/png"}, accept: []string{"text/html, image/png"}, wantBody: png64},
		{name: "no Accept does not match image/png", types: []string{"image/png"}, wantBody: png64},
		{name: "image/* matches image/png", types: []string{"application/octet-stream", "image/*"}, accept: []string{"image/png"}, wantBody: string(pngBytes)},
		{name: "first Accept header only", types: []string{"image/png"}, accept: []string{"text/plain", "image/png"}, wantBody: png64},
		{name: "deployed */*: curl", types: apigw.BinaryMediaTypes, accept: []string{"*/*"}, wantBody: string(pngBytes)},
		{name: "deployed */*: a browser", types: apigw.BinaryMediaTypes, accept: []string{browser}, wantBody: string(pngBytes)},
		{name: "deployed */*: JSON first", types: apigw.BinaryMediaTypes, accept: []string{"application/json"}, wantBody: string(pngBytes)},
		{name: "deployed */*: no Accept (CloudFront forwarding none)", types: apigw.BinaryMediaTypes, wantBody: string(pngBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qr := &recorder{resp: events.APIGatewayProxyResponse{StatusCode: 200,
				Headers: map[string]string{"Content-Type": "image/png"}, Body: png64, IsBase64Encoded: true}}
			f := newFixture(t, Options{BinaryMediaTypes: tt.types, Routes: Routes(Handlers{QR: qr.handle})})
			h := http.Header{"X-Api-Key": {"dev-key"}}
			if tt.accept != nil {
				h["Accept"] = tt.accept
			}

			rec := f.do(http.MethodGet, "/v1/links/abc1234/qr", "", h)

			require.Equal(t, 200, rec.Code)
			assert.Equal(t, "image/png", rec.Header().Get("Content-Type"))
			assert.Equal(t, tt.wantBody, rec.Body.String())
		})
	}
}

func TestGatewayBinaryTypesLeaveTextAnswersAlone(t *testing.T) {
	// "*/*" decodes only what says isBase64Encoded: JSON passes as sent.
	f := newFixture(t, Options{BinaryMediaTypes: apigw.BinaryMediaTypes})
	rec := f.do(http.MethodPost, "/v1/links", `{"url":"https://example.com"}`, http.Header{"X-Api-Key": {"dev-key"}, "Accept": {"*/*"}})
	require.Equal(t, 201, rec.Code)
	assert.JSONEq(t, `{"code":"abc1234"}`, rec.Body.String())
}

func TestGatewayBinaryRequestBodies(t *testing.T) {
	const body = `{"url":"https://example.com"}`
	tests := []struct {
		name        string
		types       []string
		contentType string
		wantBase64  bool
	}{
		{name: "no binary media types", contentType: "application/json"},
		{name: "JSON does not match image/png", types: []string{"image/png"}, contentType: "application/json"},
		{name: "a matching Content-Type", types: []string{"application/*"}, contentType: "application/json", wantBase64: true},
		{name: "deployed */*: every body", types: apigw.BinaryMediaTypes, contentType: "application/json", wantBase64: true},
		{name: "deployed */*: no Content-Type", types: apigw.BinaryMediaTypes, wantBase64: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{BinaryMediaTypes: tt.types})
			h := http.Header{"X-Api-Key": {"dev-key"}}
			if tt.contentType != "" {
				h["Content-Type"] = []string{tt.contentType}
			}

			rec := f.do(http.MethodPost, "/v1/links", body, h)

			require.Equal(t, 201, rec.Code, rec.Body.String())
			ev := f.create.last(t)
			assert.Equal(t, tt.wantBase64, ev.IsBase64Encoded)
			got, err := apigw.Body(&ev)
			require.NoError(t, err)
			assert.Equal(t, body, string(got), "the handler reads the same body either way")
		})
	}
}
