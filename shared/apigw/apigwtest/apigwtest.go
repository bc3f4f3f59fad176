package apigwtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// WithBody is ev with body as its body.
func WithBody(ev events.APIGatewayProxyRequest, body string) events.APIGatewayProxyRequest {
	ev.Body = body
	return ev
}

// WithQuery is ev with the query string of the pairs (name, value) kv,
// and no other parameter.
func WithQuery(ev events.APIGatewayProxyRequest, kv ...string) events.APIGatewayProxyRequest {
	ev.QueryStringParameters = map[string]string{}
	ev.MultiValueQueryStringParameters = map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		ev.QueryStringParameters[kv[i]] = kv[i+1]
		ev.MultiValueQueryStringParameters[kv[i]] = []string{kv[i+1]}
	}
	return ev
}

// WithHeader is ev with the header name set to value in both of the
// event's header maps, in place of any of that name in any case; an empty
// value leaves the header out. ev's own maps are not changed.
func WithHeader(ev events.APIGatewayProxyRequest, name, value string) events.APIGatewayProxyRequest {
	h := map[string]string{}
	for k, v := range ev.Headers {
		if !strings.EqualFold(k, name) {
			h[k] = v
		}
	}
	mv := map[string][]string{}
	for k, v := range ev.MultiValueHeaders {
		if !strings.EqualFold(k, name) {
			mv[k] = v
		}
	}
	if value != "" {
		h[name], mv[name] = value, []string{value}
	}
	ev.Headers, ev.MultiValueHeaders = h, mv
	return ev
}

// Decode decodes resp's JSON body into a T; a body that is not one fails t.
func Decode[T any](t testing.TB, resp events.APIGatewayProxyResponse) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(resp.Body), &v); err != nil {
		t.Fatalf("apigwtest: the body is not the JSON expected: %v\n%s", err, resp.Body)
	}
	return v
}
