package apigwtest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
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

// RequireProblem checks that resp is the API's problem for status, naming
// field as the request field at fault ("" for none): that status, the
// problem+json media type, and a body with the type, title and status
// apigw.AllProblems gives that status. Anything else, or a status with no
// problem there, fails t at once. It returns the problem, for a test's own
// checks of its detail or instance.
func RequireProblem(t testing.TB, resp events.APIGatewayProxyResponse, status int, field string) apigw.Problem {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("apigwtest: status %d, want the problem of %d\n%s", resp.StatusCode, status, resp.Body)
	}
	if ct := resp.Headers["Content-Type"]; ct != apigw.ContentTypeProblem {
		t.Fatalf("apigwtest: Content-Type %q, want %q\n%s", ct, apigw.ContentTypeProblem, resp.Body)
	}
	i := slices.IndexFunc(apigw.AllProblems, func(p apigw.Problem) bool { return p.Status == status })
	if i < 0 {
		t.Fatalf("apigwtest: the API has no problem of status %d", status)
	}
	want := apigw.AllProblems[i]
	p := Decode[apigw.Problem](t, resp)
	if p.Type != want.Type || p.Title != want.Title || p.Status != want.Status {
		t.Fatalf("apigwtest: problem %q %q %d, want %q %q %d\n%s", p.Type, p.Title, p.Status, want.Type, want.Title, want.Status, resp.Body)
	}
	if p.Field != field {
		t.Fatalf("apigwtest: the problem names field %q, want %q\n%s", p.Field, field, resp.Body)
	}
	return p
}

// AsRole sends ev as the /v1 authorizer passes a caller of workspace
// owner with role: requestContext.authorizer, no API key.
func AsRole(ev events.APIGatewayProxyRequest, owner, role string) events.APIGatewayProxyRequest {
	ev.RequestContext.Identity.APIKey = ""
	ev.RequestContext.Authorizer = map[string]any{
		apigw.AuthorizerOwner: owner, apigw.AuthorizerRole: role, apigw.AuthorizerActor: "user:test-" + role,
	}
	return ev
}

// RoleRefused reports whether resp is the 403 missing-role problem naming
// need as the role needed.
func RoleRefused(t testing.TB, resp events.APIGatewayProxyResponse, need string) bool {
	t.Helper()
	if resp.StatusCode != apigw.ProblemMissingRole.Status || resp.Headers["Content-Type"] != apigw.ContentTypeProblem {
		return false
	}
	p := Decode[apigw.Problem](t, resp)
	return p.Type == apigw.ProblemMissingRole.Type && strings.Contains(p.Detail, "the "+need+" role")
}
