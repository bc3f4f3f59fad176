package sqssend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/shortlink-dev/shortener/shared/awscall/awscalltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sent answers as SQS does: the message's ID and the MD5 of the body it
// received.
func sent(w http.ResponseWriter, body []byte) {
	var in struct{ MessageBody string }
	_ = json.Unmarshal(body, &in)
	sum := md5.Sum([]byte(in.MessageBody))
	w.Header().Set("Content-Type", contentType)
	_ = json.NewEncoder(w).Encode(map[string]string{"MessageId": "5fea7756-0ea4-451a-a703-a558b933e274",
		"MD5OfMessageBody": hex.EncodeToString(sum[:])})
}

// failure answers status with body, and the header pairs given.
func failure(status int, body string, header ...string) func(http.ResponseWriter, []byte) {
	return awscalltest.Reply(contentType, status, body, header...)
}

var signedAt = time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)

// client is a Client of srv with a session's credentials, no backoff.
func client(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c := New(awscalltest.Config(srv.URL))
	awscalltest.Steady(c.Caller, signedAt)
	return c
}

const queueURL = "https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries"

// message has the characters JSON escapes, and one HTML-escaped by Go's
// encoder, so the MD5 check must be over the body, not its encoding.
const message = `{"event":{"type":"link.created","data":"<a & b>"},"subscription":"sub_1","attempt":1,"note":"é\n"}`

// TestSendMessageSendsTheSignedJSONCall: the request is the AWS JSON 1.0
// SendMessage call, signed with SigV4 for sqs in the client's Region with
// the session token, and the ID is read from the answer.
func TestSendMessageSendsTheSignedJSONCall(t *testing.T) {
	q, srv := awscalltest.Serve(t, sent)

	id, err := client(t, srv).SendMessage(context.Background(), queueURL, message, 900)
	require.NoError(t, err)
	assert.Equal(t, "5fea7756-0ea4-451a-a703-a558b933e274", id)

	reqs := q.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/", r.Path)
	assert.Equal(t, "AmazonSQS.SendMessage", r.Header.Get("X-Amz-Target"))
	assert.Equal(t, "application/x-amz-json-1.0", r.Header.Get("Content-Type"))
	assert.Equal(t, "true", r.Header.Get("X-Amzn-Query-Mode"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &body))
	assert.Equal(t, map[string]any{"QueueUrl": queueURL, "MessageBody": message, "DelaySeconds": 900.0}, body)
	assert.Equal(t, "session-token", r.Header.Get("X-Amz-Security-Token"))
	assert.Equal(t, "20261201T070000Z", r.Header.Get("X-Amz-Date"))
	auth := r.Header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/eu-west-1/sqs/aws4_request, SignedHeaders="), auth)
	for _, h := range []string{"content-type", "host", "x-amz-date", "x-amz-security-token", "x-amz-target", "x-amzn-query-mode"} {
		assert.Contains(t, auth, h, "signed")
	}

	// The signature is SigV4's over what arrived.
	awscalltest.AssertSigned(t, r, srv.URL, "sqs", "eu-west-1", signedAt, "Content-Type", "X-Amz-Target", "X-Amzn-Query-Mode")
}

// TestSendMessageIsTheSDKsRequest: the SDK's SQS client, sending the same
// message, sends the same method, path, protocol headers and JSON body
// (DelaySeconds left out when zero, as the SDK leaves it out), so SQS and
// the local twin see no difference.
func TestSendMessageIsTheSDKsRequest(t *testing.T) {
	for _, delay := range []int32{0, 7} {
		q := &awscalltest.Service{Answers: []func(http.ResponseWriter, []byte){sent}}
		srv := httptest.NewServer(q)
		_, err := client(t, srv).SendMessage(context.Background(), queueURL, message, delay)
		require.NoError(t, err)
		_, err = sqs.NewFromConfig(awscalltest.Config(srv.URL)).SendMessage(context.Background(), &sqs.SendMessageInput{
			QueueUrl: aws.String(queueURL), MessageBody: aws.String(message), DelaySeconds: delay})
		require.NoError(t, err)
		srv.Close()

		reqs := q.Requests()
		require.Len(t, reqs, 2)
		ours, sdk := reqs[0], reqs[1]
		assert.Equal(t, sdk.Method, ours.Method)
		assert.Equal(t, sdk.Path, ours.Path)
		for _, h := range []string{"Content-Type", "X-Amz-Target", "X-Amzn-Query-Mode", "X-Amz-Security-Token"} {
			assert.Equal(t, sdk.Header.Get(h), ours.Header.Get(h), h)
		}
		assert.JSONEq(t, string(sdk.Body), string(ours.Body), "delay %d", delay)
	}
}

// TestSendMessageMapsSQSErrors: an error SQS answers is an *Error with its
// code, the query-compatible one first, as the SDK reads it; one a retry
// cannot fix is not retried, and a throttled or failed (5xx) send is tried
// DefaultAttempts times.
func TestSendMessageMapsSQSErrors(t *testing.T) {
	tests := []struct {
		name   string
		answer func(http.ResponseWriter, []byte)
		status int
		code   string
		tries  int
	}{
		{"no such queue", failure(400, `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}`,
			"X-Amzn-Query-Error", "AWS.SimpleQueueService.NonExistentQueue;Sender"), 400, "AWS.SimpleQueueService.NonExistentQueue", 1},
		{"bad parameter", failure(400, `{"__type":"com.amazonaws.sqs#InvalidParameterValue","message":"DelaySeconds"}`), 400, "InvalidParameterValue", 1},
		{"denied by header", failure(403, `{"message":"no"}`, "X-Amzn-ErrorType", "AccessDeniedException:http://internal.amazon.com/"), 403, "AccessDeniedException", 1},
		{"throttled", failure(400, `{"__type":"com.amazonaws.sqs#ThrottlingException"}`, "X-Amzn-Query-Error", "RequestThrottled;Sender"), 400, "RequestThrottled", DefaultAttempts},
		{"failed", failure(500, `not json`), 500, "Internal Server Error", DefaultAttempts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, srv := awscalltest.Serve(t, tc.answer)
			_, err := client(t, srv).SendMessage(context.Background(), queueURL, message, 0)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.status, e.Status)
			assert.Equal(t, tc.code, e.Code)
			assert.Len(t, q.Requests(), tc.tries)
		})
	}
}

// TestSendMessageRetriesThenSends: a throttled first try is followed by a
// second that succeeds.
func TestSendMessageRetriesThenSends(t *testing.T) {
	q, srv := awscalltest.Serve(t, failure(503, `{"__type":"ServiceUnavailable"}`), sent)
	id, err := client(t, srv).SendMessage(context.Background(), queueURL, message, 0)
	require.NoError(t, err)
	assert.NotEmpty(t, id)
	assert.Len(t, q.Requests(), 2)
}

// TestSendMessageChecksTheBodysMD5: an answer whose MD5OfMessageBody is
// not the body's fails with ErrChecksum, and is not retried (the message
// may be queued), as the SDK's client checks it.
func TestSendMessageChecksTheBodysMD5(t *testing.T) {
	q := &awscalltest.Service{Answers: []func(http.ResponseWriter, []byte){func(w http.ResponseWriter, _ []byte) {
		_, _ = io.WriteString(w, `{"MessageId":"m","MD5OfMessageBody":"d41d8cd98f00b204e9800998ecf8427e"}`)
	}}}
	srv := httptest.NewServer(q)
	defer srv.Close()
	_, err := client(t, srv).SendMessage(context.Background(), queueURL, message, 0)
	require.ErrorIs(t, err, ErrChecksum)
	assert.Len(t, q.Requests(), 1)
}

// TestSendMessageIsBounded: a queue that does not answer makes the send
// fail within the client's Timeout, retries included.
func TestSendMessageIsBounded(t *testing.T) {
	srv := awscalltest.Unanswered(t)
	c := client(t, srv)
	c.Timeout = 50 * time.Millisecond
	_, err := c.SendMessage(context.Background(), queueURL, message, 0)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
}

// TestEndpoint: AWS_ENDPOINT_URL_SQS's source first, then the public
// endpoint of the Region.
func TestEndpoint(t *testing.T) {
	awscalltest.AssertEndpoints(t, func(cfg aws.Config) string { return New(cfg).Endpoint() }, []awscalltest.EndpointCase{
		{Name: "the Region's", Config: aws.Config{Region: "eu-west-1"}, Want: "https://sqs.eu-west-1.amazonaws.com"},
		{Name: "China", Config: aws.Config{Region: "cn-north-1"}, Want: "https://sqs.cn-north-1.amazonaws.com.cn"},
		{Name: "configured", Config: awscalltest.Config("http://127.0.0.1:9"), Want: "http://127.0.0.1:9"},
	})
}
