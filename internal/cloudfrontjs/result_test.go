package cloudfrontjs

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// returning wraps a statement list that ends in a return into a handler.
func returning(body string) string {
	return "function handler(event) {\nconst r = event.request;\n" + body + "\n}\n"
}

// TestViewerRequestResultValidation: what CloudFront refuses from a
// viewer-request function (a 502, FunctionValidationError), and what it
// takes.
func TestViewerRequestResultValidation(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string // "" for a valid result
	}{
		{"request unchanged", "return r;", ""},
		{"uri changed", "r.uri = '/other'; return r;", ""},
		{"header added", "r.headers['x-variant'] = { value: 'b' }; return r;", ""},
		{"header with several values", "r.headers['x-v'] = { value: 'a', multiValue: [{ value: 'a' }, { value: 'b' }] }; return r;", ""},
		{"header removed", "delete r.headers['user-agent']; return r;", ""},
		{"query parameter added", "r.querystring.ref = { value: 'x' }; return r;", ""},
		{"query string as a string", "r.querystring = 'a=1&b=2&a=3'; return r;", ""},
		{"query string as a string with ?", "r.querystring = '?a=1'; return r;", ""},
		{"query string as an empty string", "r.querystring = ''; return r;", ""},
		{"query string as a string with a space", "r.querystring = 'a=b c'; return r;", "is not a valid value"},
		{"query string as a string with a line break", "r.querystring = 'a=b\\r\\nx: y'; return r;", "is not a valid"},
		{"query string a number", "r.querystring = 5; return r;", "request.querystring is a number"},
		{"cookie changed", "r.cookies.session = { value: 's2' }; return r;", ""},
		{"generated response", "return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: 'https://example.com/' } } };", ""},
		{"generated response just under 40 KB", "return { statusCode: 200, body: { data: 'a'.repeat(40 * 1024 - 100) } };", ""},
		{"generated response with base64 body", "return { statusCode: 200, body: { encoding: 'base64', data: 'aGk=' } };", ""},

		{"undefined", "return;", "the handler returned null or undefined"},
		{"a string", "return 'x';", "the handler returned a string"},
		{"an array", "return [r];", "the handler returned an array"},
		{"method changed", "r.method = 'POST'; return r;", "request.method cannot be changed"},
		{"uri not a string", "r.uri = 7; return r;", "request.uri is a number"},
		{"uri without a slash", "r.uri = 'abc'; return r;", "does not start with /"},
		{"uri with a query", "r.uri = '/a?b=c'; return r;", "a character a path cannot"},
		{"uri with a line break", "r.uri = '/a\\r\\nx'; return r;", "a character a path cannot"},
		{"headers not an object", "r.headers = 'x'; return r;", "request.headers is a string"},
		{"header not {value}", "r.headers['x-a'] = 'b'; return r;", `request.headers["x-a"] is a string`},
		{"header value not a string", "r.headers['x-a'] = { value: 1 }; return r;", "value is a number"},
		{"header value with CRLF", "r.headers['x-a'] = { value: 'a\\r\\nset-cookie: x=1' }; return r;", "is not a valid value"},
		{"header name with a space", "r.headers['x a'] = { value: 'b' }; return r;", "is not a valid name"},
		{"header twice in two cases", "r.headers['X-A'] = { value: 'a' }; r.headers['x-a'] = { value: 'b' }; return r;", "twice, in different cases"},
		{"multiValue not an array", "r.headers['x-a'] = { value: 'a', multiValue: 'b' }; return r;", "multiValue is a string"},
		{"disallowed header x-cache", "r.headers['x-cache'] = { value: 'Hit' }; return r;", "x-cache is a header edge functions cannot set"},
		{"disallowed header x-forwarded-proto", "r.headers['x-forwarded-proto'] = { value: 'http' }; return r;", "x-forwarded-proto is a header"},
		{"disallowed header connection", "r.headers['connection'] = { value: 'close' }; return r;", "connection is a header"},
		{"disallowed pattern x-amz-cf-*", "r.headers['x-amz-cf-pop'] = { value: 'x' }; return r;", "x-amz-cf-pop is a header"},
		{"disallowed pattern x-edge-*", "r.headers['x-edge-origin'] = { value: 'x' }; return r;", "x-edge-origin is a header"},
		{"read-only host changed", "r.headers.host = { value: 'evil.example' }; return r;", "host is read-only"},
		{"read-only host removed", "delete r.headers.host; return r;", "host is read-only"},
		{"read-only via added", "r.headers.via = { value: '1.1 x' }; return r;", "via is read-only"},
		{"read-only content-length added", "r.headers['content-length'] = { value: '1' }; return r;", "content-length is read-only"},
		{"read-only transfer-encoding added", "r.headers['transfer-encoding'] = { value: 'chunked' }; return r;", "transfer-encoding is read-only"},
		{"query value with &", "r.querystring.a = { value: 'b&c=d' }; return r;", "is not a valid value"},
		{"cookie value with ;", "r.cookies.a = { value: 'b; c=d' }; return r;", "is not a valid value"},
		{"statusCode a string", "return { statusCode: '302' };", "not a status from 200 to 599"},
		{"statusCode below 200", "return { statusCode: 101 };", "not a status from 200 to 599"},
		{"statusCode above 599", "return { statusCode: 600 };", "not a status from 200 to 599"},
		{"statusCode not whole", "return { statusCode: 302.5 };", "not a status from 200 to 599"},
		{"statusDescription with CRLF", "return { statusCode: 200, statusDescription: 'OK\\r\\nx: y' };", "statusDescription"},
		{"body a string", "return { statusCode: 200, body: 'hi' };", "response.body is a string"},
		{"body data not a string", "return { statusCode: 200, body: { data: 1 } };", "response.body.data is a number"},
		{"body encoding unknown", "return { statusCode: 200, body: { encoding: 'gzip', data: 'x' } };", "response.body.encoding"},
		{"body not base64", "return { statusCode: 200, body: { encoding: 'base64', data: '!!' } };", "not base64"},
		{"generated response over 40 KB", "return { statusCode: 200, body: { data: 'a'.repeat(40 * 1024 + 1) } };", "over CloudFront's 40960"},
		{"generated response with a disallowed header", "return { statusCode: 200, headers: { 'x-cache': { value: 'Hit' } } };", "x-cache is a header"},
		{"generated response setting content-length", "return { statusCode: 200, headers: { 'content-length': { value: '0' } } };", "content-length is read-only"},
		{"response cookie with a line break", "return { statusCode: 200, cookies: { a: { value: 'b', attributes: 'Path=/\\r\\nx' } } };", "attributes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile(tt.name, returning(tt.body))
			require.NoError(t, err)
			res, err := f.ViewerRequest(context.Background(), testEvent())
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.True(t, (res.Request == nil) != (res.Response == nil), "exactly one of request and response")
				return
			}
			require.ErrorIs(t, err, ErrInvalidResult)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Equal(t, 502, StatusFor(err), "CloudFront answers a function validation error with a 502")
		})
	}
}

// TestViewerResponse: a viewer-response function sees the response and
// may change its headers and status, not its body or read-only headers.
func TestViewerResponse(t *testing.T) {
	ev := testEvent()
	ev.Response = &Response{
		StatusCode:        302,
		StatusDescription: "Found",
		Headers: Values{
			"location":         {Value: "https://example.com/"},
			"content-length":   {Value: "0"},
			"via":              {Value: "1.1 abc.cloudfront.net (CloudFront)"},
			"x-cache":          {Value: "Hit from cloudfront"}, // disallowed: never shown
			"content-encoding": {Value: "identity"},
		},
		Cookies: ResponseCookies{"a": {Value: "1", Attributes: "Path=/"}},
	}
	tests := []struct {
		name    string
		body    string
		wantErr string
		check   func(t *testing.T, r Response)
	}{
		{"event shape", "const s = event.response; s.headers['x-seen'] = { value: [event.context.eventType, s.statusCode, s.statusDescription, Object.keys(s.headers).join(','), s.cookies.a.attributes].join('|') }; return s;", "", func(t *testing.T, r Response) {
			assert.Equal(t, "viewer-response|302|Found|content-encoding,content-length,location,via|Path=/", r.Headers["x-seen"].Value)
		}},
		{"location rewritten", "const s = event.response; s.headers.location = { value: s.headers.location.value + '?utm=1' }; return s;", "", func(t *testing.T, r Response) {
			assert.Equal(t, "https://example.com/?utm=1", r.Headers["location"].Value)
		}},
		{"status changed", "const s = event.response; s.statusCode = 301; return s;", "", func(t *testing.T, r Response) {
			assert.Equal(t, 301, r.StatusCode)
		}},
		{"cookie added", "const s = event.response; s.cookies.b = { value: '2', attributes: 'Secure' }; return s;", "", func(t *testing.T, r Response) {
			assert.Equal(t, Cookie{Value: "2", Attributes: "Secure"}, r.Cookies["b"])
		}},
		{"body set", "const s = event.response; s.body = { data: 'x' }; return s;", "cannot set the body", nil},
		{"read-only content-encoding changed", "const s = event.response; s.headers['content-encoding'] = { value: 'gzip' }; return s;", "content-encoding is read-only", nil},
		{"read-only via removed", "const s = event.response; delete s.headers.via; return s;", "via is read-only", nil},
		{"read-only warning added", "const s = event.response; s.headers.warning = { value: '199 x' }; return s;", "warning is read-only", nil},
		{"disallowed header added", "const s = event.response; s.headers['x-cache'] = { value: 'Miss' }; return s;", "x-cache is a header", nil},
		{"request returned", "return event.request;", "not a status", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile(tt.name, "function handler(event) {\n"+tt.body+"\n}\n")
			require.NoError(t, err)
			r, err := f.ViewerResponse(context.Background(), ev)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidResult)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
	f, err := Compile("identity", "function handler(event) { return event.response; }")
	require.NoError(t, err)
	_, err = f.ViewerResponse(context.Background(), testEvent())
	assert.Error(t, err, "a viewer-response event without a response")
}

// TestQuerystringAsString: a query string the function rebuilt as a
// string is read back into its parameters, raw as sent.
func TestQuerystringAsString(t *testing.T) {
	f, err := Compile("qs", returning("r.querystring = '?utm=a%20b&x=1&x=2&flag'; return r;"))
	require.NoError(t, err)
	res, err := f.ViewerRequest(context.Background(), testEvent())
	require.NoError(t, err)
	assert.Equal(t, Values{
		"utm":  {Value: "a%20b"},
		"x":    {Value: "1", MultiValue: []Value{{Value: "1"}, {Value: "2"}}},
		"flag": {Value: ""},
	}, res.Request.Querystring)
}
