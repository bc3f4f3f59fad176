package apigwtest

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
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
