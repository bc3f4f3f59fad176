package apigwtest

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/apigw"
)

func TestWithHeader(t *testing.T) {
	ev := events.APIGatewayProxyRequest{Headers: map[string]string{"if-match": `"3"`, "Accept": "*/*"},
		MultiValueHeaders: map[string][]string{"if-match": {`"3"`}}}
	changed := WithHeader(ev, "If-Match", `"4"`)
	assert.Equal(t, map[string]string{"If-Match": `"4"`, "Accept": "*/*"}, changed.Headers, "the header of that name in any case is replaced")
	assert.Equal(t, map[string][]string{"If-Match": {`"4"`}}, changed.MultiValueHeaders)
	assert.Equal(t, `"3"`, ev.Headers["if-match"], "the event read is not changed")
	assert.Equal(t, map[string]string{"Accept": "*/*"}, WithHeader(ev, "If-Match", "").Headers, "an empty value leaves the header out")
}

func TestWithQueryAndBody(t *testing.T) {
	ev := WithQuery(events.APIGatewayProxyRequest{QueryStringParameters: map[string]string{"old": "1"}}, "limit", "5", "q", "x")
	assert.Equal(t, map[string]string{"limit": "5", "q": "x"}, ev.QueryStringParameters)
	assert.Equal(t, map[string][]string{"limit": {"5"}, "q": {"x"}}, ev.MultiValueQueryStringParameters)
	assert.Equal(t, `{"a":1}`, WithBody(ev, `{"a":1}`).Body)
}

func TestDecode(t *testing.T) {
	got := Decode[map[string]int](t, events.APIGatewayProxyResponse{Body: `{"a":1}`})
	assert.Equal(t, map[string]int{"a": 1}, got)
}

func TestRequireProblem(t *testing.T) {
	notFound := apigw.ProblemNotFound.With("no link aB3dE5f").Response()
	p := RequireProblem(t, notFound, 404, "")
	assert.Equal(t, "no link aB3dE5f", p.Detail)

	field := apigw.ProblemInvalid.With("url: not a URL")
	field.Field = "url"
	RequireProblem(t, field.Response(), 400, "url")

	relabelled := apigw.ProblemNotFound
	relabelled.Type = apigw.ProblemBase + "missing"
	plain := notFound
	plain.Headers = map[string]string{"Content-Type": "application/json"}
	tests := []struct {
		name   string
		resp   events.APIGatewayProxyResponse
		status int
		field  string
	}{
		{"another status", notFound, 410, ""},
		{"not problem+json", plain, 404, ""},
		{"a body that is not JSON", events.APIGatewayProxyResponse{StatusCode: 404, Headers: map[string]string{"Content-Type": apigw.ContentTypeProblem}, Body: "gone"}, 404, ""},
		{"another type for the status", relabelled.Response(), 404, ""},
		{"a status the API has no problem for", events.APIGatewayProxyResponse{StatusCode: 418, Headers: map[string]string{"Content-Type": apigw.ContentTypeProblem}, Body: `{}`}, 418, ""},
		{"another field", field.Response(), 400, "alias"},
		{"a field where none is at fault", field.Response(), 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fatalT{TB: t}
			func() {
				defer func() { _ = recover() }()
				RequireProblem(ft, tt.resp, tt.status, tt.field)
			}()
			assert.True(t, ft.failed, "the check fails the test")
		})
	}
}

// fatalT records a Fatalf and stops the call, as testing.T does.
type fatalT struct {
	testing.TB
	failed bool
}

func (f *fatalT) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
