package localsqs_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/localsqs"
	"github.com/shortlink-dev/shortener/shared/sqssend"
)

const deliveries = "http://127.0.0.1:1/000000000000/deliveries"

func served(t *testing.T) (localsqs.Queues, aws.Config) {
	t.Helper()
	qs := localsqs.Queues{deliveries: localsqs.New(localsqs.Options{Name: "deliveries"})}
	srv := httptest.NewServer(qs)
	t.Cleanup(srv.Close)
	return qs, aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local", "")}
}

// TestQueuesTakeTheSDKsAndSqssendsSendMessage: the SDK's SQS client and
// shared/sqssend both send to the local queues over the JSON protocol;
// the message arrives as sent, and the answer's MD5, which the SDK's
// client checks, is the body's.
func TestQueuesTakeTheSDKsAndSqssendsSendMessage(t *testing.T) {
	qs, cfg := served(t)
	body := `{"event":{"data":"<a & b> é"},"attempt":1}`
	out, err := sqs.NewFromConfig(cfg).SendMessage(context.Background(), &sqs.SendMessageInput{
		QueueUrl: aws.String(deliveries), MessageBody: aws.String(body), DelaySeconds: 3})
	require.NoError(t, err)
	assert.NotEmpty(t, aws.ToString(out.MessageId))
	id, err := sqssend.New(cfg).SendMessage(context.Background(), deliveries, body+" again", 0)
	require.NoError(t, err)
	assert.NotEqual(t, aws.ToString(out.MessageId), id)
	assert.ElementsMatch(t, []string{body, body + " again"}, qs[deliveries].Bodies())
}

// TestQueuesAnswerSQSErrors: an unknown queue and a delay past 15 minutes
// are refused with SQS's codes, read the same by the SDK's client and by
// sqssend, and nothing is queued.
func TestQueuesAnswerSQSErrors(t *testing.T) {
	qs, cfg := served(t)
	for _, tc := range []struct {
		queue string
		delay int32
		code  string
	}{
		{"http://127.0.0.1:1/000000000000/other", 0, "AWS.SimpleQueueService.NonExistentQueue"},
		{deliveries, 901, "InvalidParameterValue"},
	} {
		_, err := sqs.NewFromConfig(cfg).SendMessage(context.Background(), &sqs.SendMessageInput{
			QueueUrl: aws.String(tc.queue), MessageBody: aws.String("x"), DelaySeconds: tc.delay})
		var api smithy.APIError
		require.ErrorAs(t, err, &api)
		assert.Equal(t, tc.code, api.ErrorCode(), "SDK")

		_, err = sqssend.New(cfg).SendMessage(context.Background(), tc.queue, "x", tc.delay)
		var e *sqssend.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tc.code, e.Code, "sqssend")
		assert.Equal(t, http.StatusBadRequest, e.Status)
	}
	assert.Equal(t, 0, qs[deliveries].Len())
}

// TestQueuesRefuseUnsignedAndOtherCalls: a request without a SigV4
// signature for sqs, or for another operation, is refused.
func TestQueuesRefuseUnsignedAndOtherCalls(t *testing.T) {
	qs := localsqs.Queues{deliveries: localsqs.New(localsqs.Options{Name: "deliveries"})}
	for _, tc := range []struct {
		target, auth string
		status       int
	}{
		{"AmazonSQS.SendMessage", "", http.StatusForbidden},
		{"AmazonSQS.SendMessage", "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/ssm/aws4_request, SignedHeaders=host, Signature=00", http.StatusForbidden},
		{"AmazonSQS.PurgeQueue", "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00", http.StatusBadRequest},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"QueueUrl":"`+deliveries+`","MessageBody":"x"}`))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", tc.target)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		qs.ServeHTTP(w, req)
		assert.Equal(t, tc.status, w.Code, tc.target+" "+tc.auth)
		assert.NotEmpty(t, w.Header().Get("X-Amzn-Query-Error"))
	}
	assert.Equal(t, 0, qs[deliveries].Len())
}

// TestQueuesInProcess: the in-process call routes by URL and refuses an
// unknown queue with SQS's code.
func TestQueuesInProcess(t *testing.T) {
	qs := localsqs.Queues{deliveries: localsqs.New(localsqs.Options{Name: "deliveries"})}
	_, err := qs.SendMessage(context.Background(), deliveries, "x", 0)
	require.NoError(t, err)
	_, err = qs.SendMessage(context.Background(), "elsewhere", "x", 0)
	var e *localsqs.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", e.Code)
	assert.Equal(t, 1, qs[deliveries].Len())
}
