package apigw_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

func ptr[T any](v T) *T { return &v }

// requireFieldError checks err is a *link.FieldError naming field.
func requireFieldError(t *testing.T, err error, field string) {
	t.Helper()
	require.Error(t, err)
	var fe *link.FieldError
	require.True(t, errors.As(err, &fe), "want *link.FieldError, got %T: %v", err, err)
	assert.Equal(t, field, fe.Field)
	assert.NotEmpty(t, fe.Reason)
	assert.ErrorIs(t, err, link.ErrInvalid)
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		want      linkapi.CreateRequest
		wantField string
	}{
		{name: "url only", body: `{"url":"https://example.com/"}`, want: linkapi.CreateRequest{URL: "https://example.com/"}},
		{
			name: "every field",
			body: `{"url":"https://example.com/","alias":"Sale","expires_at":"2030-01-02T15:04:05Z","ttl_seconds":60,"redirect_status":301}`,
			want: linkapi.CreateRequest{URL: "https://example.com/", Alias: "Sale", ExpiresAt: ptr("2030-01-02T15:04:05Z"), TTLSeconds: ptr[int64](60), RedirectStatus: ptr(301)},
		},
		{name: "surrounding whitespace", body: " \n\t{\"url\":\"u\"}\r\n ", want: linkapi.CreateRequest{URL: "u"}},
		{name: "empty object", body: `{}`, want: linkapi.CreateRequest{}},
		{name: "explicit nulls", body: `{"url":"u","alias":null,"ttl_seconds":null}`, want: linkapi.CreateRequest{URL: "u"}},
		// null decodes to the zero request; validation then refuses the missing url.
		{name: "null", body: `null`, want: linkapi.CreateRequest{}},
		{name: "unknown field", body: `{"url":"u","bogus":1}`, wantField: "bogus"},
		{name: "unknown field, case kept", body: `{"Callback_URL":"x"}`, wantField: "Callback_URL"},
		{name: "unknown field with a quote", body: `{"a\"b":1}`, wantField: `a"b`},
		{name: "unknown field with escaped unicode", body: `{"\u00e9":1}`, wantField: "é"},
		{name: "unknown empty field name", body: `{"":1}`, wantField: "body"},
		{name: "url a number", body: `{"url":5}`, wantField: "url"},
		{name: "url an object", body: `{"url":{}}`, wantField: "url"},
		{name: "ttl a string", body: `{"ttl_seconds":"x"}`, wantField: "ttl_seconds"},
		{name: "ttl a fraction", body: `{"ttl_seconds":1.5}`, wantField: "ttl_seconds"},
		{name: "ttl overflows int64", body: `{"ttl_seconds":1e400}`, wantField: "ttl_seconds"},
		{name: "redirect_status a bool", body: `{"redirect_status":true}`, wantField: "redirect_status"},
		{name: "expires_at a number", body: `{"expires_at":1893456000}`, wantField: "expires_at"},
		{name: "alias an array", body: `{"alias":["a"]}`, wantField: "alias"},
		{name: "array", body: `[]`, wantField: "body"},
		{name: "string", body: `"x"`, wantField: "body"},
		{name: "number", body: `5`, wantField: "body"},
		{name: "bool", body: `true`, wantField: "body"},
		{name: "two objects", body: `{} {}`, wantField: "body"},
		{name: "trailing garbage", body: `{"url":"u"} x`, wantField: "body"},
		{name: "trailing bracket", body: `{"url":"u"}]`, wantField: "body"},
		{name: "empty", body: ``, wantField: "body"},
		{name: "only whitespace", body: " \n\t ", wantField: "body"},
		{name: "truncated", body: `{"url":`, wantField: "body"},
		{name: "truncated string", body: `{"url":"htt`, wantField: "body"},
		{name: "open brace only", body: `{`, wantField: "body"},
		{name: "missing colon", body: `{"url" "x"}`, wantField: "body"},
		{name: "trailing comma", body: `{"url":"x",}`, wantField: "body"},
		{name: "single quotes", body: `{'url':'x'}`, wantField: "body"},
		{name: "bare word", body: `hello`, wantField: "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got linkapi.CreateRequest

			err := apigw.DecodeStrict([]byte(tt.body), &got)

			if tt.wantField != "" {
				requireFieldError(t, err, tt.wantField)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeStrictNullFailsValidation(t *testing.T) {
	var req linkapi.CreateRequest
	require.NoError(t, apigw.DecodeStrict([]byte("null"), &req))
	dom, err := req.Domain()
	require.NoError(t, err)

	_, err = link.Rules{}.Validate(dom, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))

	requireFieldError(t, err, "url")
}

// bodyOfLen returns a valid create request body of exactly n bytes.
func bodyOfLen(t *testing.T, n int) string {
	t.Helper()
	const head, tail = `{"url":"https://example.com/`, `"}`
	require.GreaterOrEqual(t, n, len(head)+len(tail))
	b := head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	require.Len(t, b, n)
	return b
}

func TestDecodeJSON(t *testing.T) {
	valid := `{"url":"https://example.com/"}`
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name         string
		req          events.APIGatewayProxyRequest
		wantURL      string
		wantErr      error // matched with errors.Is
		wantField    string
		wantTooBig   int // TooLargeError.Size
		skipURLCheck bool
	}{
		{name: "no content type", req: events.APIGatewayProxyRequest{Body: valid}, wantURL: "https://example.com/"},
		{name: "application/json", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "application/json"}, Body: valid}, wantURL: "https://example.com/"},
		{name: "with charset", req: events.APIGatewayProxyRequest{Headers: map[string]string{"content-type": "application/json; charset=utf-8"}, Body: valid}, wantURL: "https://example.com/"},
		{name: "upper-case media type", req: events.APIGatewayProxyRequest{Headers: map[string]string{"CONTENT-TYPE": "Application/JSON"}, Body: valid}, wantURL: "https://example.com/"},
		{name: "+json suffix", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "application/merge-patch+json"}, Body: valid}, wantURL: "https://example.com/"},
		{name: "multi-value content type", req: events.APIGatewayProxyRequest{MultiValueHeaders: map[string][]string{"Content-Type": {"application/json"}}, Body: valid}, wantURL: "https://example.com/"},
		{name: "text/plain", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "text/plain"}, Body: valid}, wantErr: apigw.ErrUnsupportedMediaType},
		{name: "form", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, Body: "url=x"}, wantErr: apigw.ErrUnsupportedMediaType},
		{name: "multi-value text/plain", req: events.APIGatewayProxyRequest{MultiValueHeaders: map[string][]string{"content-type": {"text/plain"}}, Body: valid}, wantErr: apigw.ErrUnsupportedMediaType},
		{name: "malformed content type", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "application/json; ;;"}, Body: valid}, wantErr: apigw.ErrUnsupportedMediaType},
		{name: "json lookalike", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "application/jsonp"}, Body: valid}, wantErr: apigw.ErrUnsupportedMediaType},
		{name: "base64 body", req: events.APIGatewayProxyRequest{Body: b64([]byte(valid)), IsBase64Encoded: true}, wantURL: "https://example.com/"},
		{name: "bad base64", req: events.APIGatewayProxyRequest{Body: "!!not base64!!", IsBase64Encoded: true}, wantField: "body"},
		{name: "base64 flag off leaves body alone", req: events.APIGatewayProxyRequest{Body: b64([]byte(valid))}, wantField: "body"},
		{name: "bad JSON", req: events.APIGatewayProxyRequest{Body: `{"url":`}, wantField: "body"},
		{name: "unknown field", req: events.APIGatewayProxyRequest{Body: `{"nope":1}`}, wantField: "nope"},
		{name: "empty body", req: events.APIGatewayProxyRequest{}, wantField: "body"},
		{name: "exactly the max", req: events.APIGatewayProxyRequest{Body: bodyOfLen(t, apigw.MaxBodyBytes)}, skipURLCheck: true},
		{name: "exactly the max, base64", req: events.APIGatewayProxyRequest{Body: b64([]byte(bodyOfLen(t, apigw.MaxBodyBytes))), IsBase64Encoded: true}, skipURLCheck: true},
		{name: "one over the max", req: events.APIGatewayProxyRequest{Body: bodyOfLen(t, apigw.MaxBodyBytes+1)}, wantTooBig: apigw.MaxBodyBytes + 1},
		{name: "one over the max once decoded", req: events.APIGatewayProxyRequest{Body: b64([]byte(bodyOfLen(t, apigw.MaxBodyBytes+1))), IsBase64Encoded: true}, wantTooBig: apigw.MaxBodyBytes + 1},
		{name: "far over the max", req: events.APIGatewayProxyRequest{Body: strings.Repeat(" ", 4*apigw.MaxBodyBytes)}, wantTooBig: 4 * apigw.MaxBodyBytes},
		{name: "media type checked before size", req: events.APIGatewayProxyRequest{Headers: map[string]string{"Content-Type": "text/plain"}, Body: strings.Repeat(" ", 4*apigw.MaxBodyBytes)}, wantErr: apigw.ErrUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got linkapi.CreateRequest

			err := apigw.DecodeJSON(&tt.req, &got)

			switch {
			case tt.wantErr != nil:
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
			case tt.wantField != "":
				requireFieldError(t, err, tt.wantField)
			case tt.wantTooBig != 0:
				var tl *apigw.TooLargeError
				require.True(t, errors.As(err, &tl), "want *TooLargeError, got %T: %v", err, err)
				assert.Equal(t, tt.wantTooBig, tl.Size)
				assert.Equal(t, 413, apigw.ProblemFor(err).Status)
			default:
				require.NoError(t, err)
				if tt.skipURLCheck {
					assert.True(t, strings.HasPrefix(got.URL, "https://example.com/aaa"))
				} else {
					assert.Equal(t, tt.wantURL, got.URL)
				}
			}
		})
	}
}

func TestHeader(t *testing.T) {
	req := events.APIGatewayProxyRequest{
		Headers: map[string]string{
			"Content-Type":    "application/json",
			"idempotency-key": "k-1",
			"X-Empty":         "",
		},
		MultiValueHeaders: map[string][]string{
			"X-Forwarded-For": {"198.51.100.1", "203.0.113.7"},
			"x-none":          {},
			"content-type":    {"text/plain"}, // Headers wins
		},
	}
	tests := []struct {
		name   string
		header string
		want   string
	}{
		{name: "exact spelling", header: "Content-Type", want: "application/json"},
		{name: "lower-case lookup", header: "content-type", want: "application/json"},
		{name: "upper-case lookup", header: "CONTENT-TYPE", want: "application/json"},
		{name: "stored lower-case", header: "Idempotency-Key", want: "k-1"},
		{name: "multi-value only, first value", header: "x-forwarded-for", want: "198.51.100.1"},
		{name: "multi-value with no values", header: "X-None", want: ""},
		{name: "present but empty", header: "x-empty", want: ""},
		{name: "absent", header: "Authorization", want: ""},
		{name: "prefix is not a match", header: "Content", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, apigw.Header(&req, tt.header))
		})
	}
}

func TestHeaderNilMaps(t *testing.T) {
	assert.Empty(t, apigw.Header(&events.APIGatewayProxyRequest{}, "Content-Type"))
}
