package ssmparam

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/shortlink-dev/shortener/shared/awscall/awscalltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func value(v string) func(http.ResponseWriter, []byte) {
	return func(w http.ResponseWriter, _ []byte) {
		w.Header().Set("Content-Type", contentType)
		b, _ := json.Marshal(map[string]any{"Parameter": map[string]any{
			"Name": "/Shortener/edge", "Type": "String", "Value": v, "Version": 3, "DataType": "text",
			"ARN": "arn:aws:ssm:eu-west-1:123456789012:parameter/Shortener/edge", "LastModifiedDate": 1.7643e9,
		}})
		_, _ = w.Write(b)
	}
}

// failure answers status with body, and the header pairs given.
func failure(status int, body string, header ...string) func(http.ResponseWriter, []byte) {
	return awscalltest.Reply(contentType, status, body, header...)
}

var signedAt = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// client is a Client of srv with a session's credentials, no backoff.
func client(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c := New(awscalltest.Config(srv.URL))
	awscalltest.Steady(c.Caller, signedAt)
	return c
}

const published = `{"distributionId":"E2EXAMPLE12345","domainName":"d111111abcdef8.cloudfront.net"}`

// TestGetSendsTheSignedJSONCall: the request is the AWS JSON 1.1
// GetParameter call, signed with SigV4 for ssm in the client's Region
// with the session token, and the value is read from the answer.
func TestGetSendsTheSignedJSONCall(t *testing.T) {
	ssm, srv := awscalltest.Serve(t, value(published))

	got, err := client(t, srv).Get(context.Background(), "/Shortener/edge")
	require.NoError(t, err)
	assert.Equal(t, published, got)

	reqs := ssm.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/", r.Path)
	assert.Equal(t, "AmazonSSM.GetParameter", r.Header.Get("X-Amz-Target"))
	assert.Equal(t, "application/x-amz-json-1.1", r.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"Name":"/Shortener/edge"}`, string(r.Body))
	assert.Equal(t, "session-token", r.Header.Get("X-Amz-Security-Token"))
	assert.Equal(t, "20261201T060000Z", r.Header.Get("X-Amz-Date"))
	auth := r.Header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/eu-west-1/ssm/aws4_request, SignedHeaders="), auth)
	for _, h := range []string{"content-type", "host", "x-amz-date", "x-amz-security-token", "x-amz-target"} {
		assert.Contains(t, auth, h, "signed")
	}

	// The signature is SigV4's over what arrived.
	awscalltest.AssertSigned(t, r, srv.URL, "ssm", "eu-west-1", signedAt, "Content-Type", "X-Amz-Target")
}

// TestGetMapsSSMErrors: an error SSM answers is an *Error with its code,
// read from the header or the body as the SDK reads it; one that a retry
// cannot fix is not retried.
func TestGetMapsSSMErrors(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(http.ResponseWriter, []byte)
		status   int
		code     string
		message  string
		attempts int
	}{
		{name: "not found", answer: failure(400, `{"__type":"ParameterNotFound","message":"no such parameter"}`),
			status: 400, code: "ParameterNotFound", message: "no such parameter", attempts: 1},
		{name: "namespaced type", answer: failure(400, `{"__type":"com.amazonaws.ssm#AccessDeniedException","Message":"not allowed"}`),
			status: 400, code: "AccessDeniedException", message: "not allowed", attempts: 1},
		{name: "code in the header", answer: failure(400, `{}`, "X-Amzn-ErrorType", "InvalidKeyId:http://internal.amazon.com/coral/com.amazon.coral.service/"),
			status: 400, code: "InvalidKeyId", attempts: 1},
		{name: "throttled, retried", answer: failure(400, `{"__type":"ThrottlingException","message":"Rate exceeded"}`),
			status: 400, code: "ThrottlingException", message: "Rate exceeded", attempts: DefaultAttempts},
		{name: "server error, retried", answer: failure(500, `not json`),
			status: 500, code: "Internal Server Error", attempts: DefaultAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ssm, srv := awscalltest.Serve(t, tt.answer)
			_, err := client(t, srv).Get(context.Background(), "/Shortener/edge")
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.message, e.Message)
			assert.Contains(t, err.Error(), "ssm GetParameter: "+tt.code, "the error names the call and the code")
			assert.Len(t, ssm.Requests(), tt.attempts)
		})
	}
}

// TestGetRetriesAThrottledRead: a throttled read that succeeds on a retry
// returns the value.
func TestGetRetriesAThrottledRead(t *testing.T) {
	ssm, srv := awscalltest.Serve(t, failure(400, `{"__type":"ThrottlingException"}`), value(published))
	got, err := client(t, srv).Get(context.Background(), "/Shortener/edge")
	require.NoError(t, err)
	assert.Equal(t, published, got)
	assert.Len(t, ssm.Requests(), 2)
}

// TestGetRefusesAnAnswerWithoutAValue: a 200 that is not GetParameter's
// answer is an error, not an empty value.
func TestGetRefusesAnAnswerWithoutAValue(t *testing.T) {
	for _, body := range []string{`{}`, `{"Parameter":{"Name":"/Shortener/edge"}}`, `<html>`} {
		srv := httptest.NewServer(&awscalltest.Service{Answers: []func(http.ResponseWriter, []byte){failure(200, body)}})
		_, err := client(t, srv).Get(context.Background(), "/Shortener/edge")
		assert.Error(t, err, body)
		srv.Close()
	}
}

// TestGetIsBounded: a read SSM never answers gives up after Timeout, with
// the context's error.
func TestGetIsBounded(t *testing.T) {
	srv := awscalltest.Unanswered(t)
	c := client(t, srv)
	c.Timeout = 50 * time.Millisecond
	_, err := c.Get(context.Background(), "/Shortener/edge")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestGetNeedsCredentials: without credentials nothing is sent.
func TestGetNeedsCredentials(t *testing.T) {
	ssm, srv := awscalltest.Serve(t, value(published))
	c := New(aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String(srv.URL)})
	_, err := c.Get(context.Background(), "/Shortener/edge")
	require.ErrorContains(t, err, "credentials")
	assert.Empty(t, ssm.Requests())
}

// TestEndpoint: SSM's own configured endpoint, then the global one, then
// the Region's, as the SDK's clients resolve them.
func TestEndpoint(t *testing.T) {
	awscalltest.AssertEndpoints(t, func(cfg aws.Config) string { return New(cfg).Endpoint() }, []awscalltest.EndpointCase{
		{Name: "the Region's", Config: aws.Config{Region: "eu-west-1"}, Want: "https://ssm.eu-west-1.amazonaws.com"},
		{Name: "China", Config: aws.Config{Region: "cn-north-1"}, Want: "https://ssm.cn-north-1.amazonaws.com.cn"},
		{Name: "global", Config: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1")}, Want: "http://127.0.0.1:1"},
		{Name: "SSM's own first", Config: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
			ConfigSources: []any{awscalltest.EndpointSource{"SSM": "http://127.0.0.1:4583"}}}, Want: "http://127.0.0.1:4583"},
		{Name: "another service's is not SSM's", Config: aws.Config{Region: "eu-west-1",
			ConfigSources: []any{awscalltest.EndpointSource{"DynamoDB": "http://127.0.0.1:8000"}}}, Want: "https://ssm.eu-west-1.amazonaws.com"},
	})
}
