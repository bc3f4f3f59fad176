// Package sqssend sends a message to an Amazon SQS queue with one signed
// AWS JSON 1.0 call (shared/awscall), not the SDK's SQS client: the
// webhook functions and clicks make no other SQS call, and the client's
// package initialisation (its schema and endpoint tables) and size were
// a measurable part of their cold start (docs/benchmarks.md, "Cold
// start").
//
// The request is the one the SDK's client (aws-sdk-go-v2/service/sqs
// v1.53.0) sends: POST / with Content-Type application/x-amz-json-1.0,
// X-Amz-Target AmazonSQS.SendMessage and X-Amzn-Query-Mode true, and a
// JSON body with QueueUrl, MessageBody and DelaySeconds
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-making-api-requests-json.html).
// As the SDK's client does, it checks the answer's MD5OfMessageBody
// against the body sent, and reads an error's code from
// X-Amzn-Query-Error (the query-compatible code SQS documents) before
// X-Amzn-ErrorType and the body's __type.
package sqssend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/shortlink-dev/shortener/shared/awscall"
)

// SDKID is SQS's service ID as the SDK's endpoint settings name it
// (AWS_ENDPOINT_URL_SQS).
const (
	SDKID       = "SQS"
	signingName = "sqs"
	target      = "AmazonSQS.SendMessage"
	contentType = "application/x-amz-json-1.0"
)

// Defaults of Client.
const (
	// DefaultTimeout bounds one SendMessage, retries included: a send
	// takes tens of milliseconds, and the functions that send (stream and
	// queue consumers) report the record failed and get it again rather
	// than wait on SQS.
	DefaultTimeout = 5 * time.Second
	// DefaultAttempts is how many times a throttled, failed (5xx) or
	// unreachable send is tried, as the SDK's standard retryer does.
	DefaultAttempts = 3
)

// Client sends messages to SQS queues: an awscall.Caller for SQS, whose
// Timeout bounds one SendMessage and Attempts the tries within it. Build
// it with New.
type Client struct{ *awscall.Caller }

// New returns a client for cfg's Region, credentials, HTTP client and
// configured endpoint.
func New(cfg aws.Config) *Client {
	c := awscall.Regional(cfg, SDKID, signingName)
	c.Timeout, c.Attempts, c.Backoff, c.Retryable = DefaultTimeout, DefaultAttempts, 50*time.Millisecond, retryable
	return &Client{c}
}

// Error is an error SQS answered, with its code (the query-compatible one
// when SQS gives it: AWS.SimpleQueueService.NonExistentQueue,
// InvalidParameterValue, RequestThrottled, ...).
type Error = awscall.Error

// ErrChecksum is an answer whose MD5OfMessageBody is not the MD5 of the
// body sent. Like the SDK's check, it is not retried: the message may
// have been queued.
var ErrChecksum = errors.New("MD5 of the message body does not match the answer's")

// throttled are the throttling codes the SDK's standard retryer retries
// (aws/retry.DefaultThrottleErrorCodes) that SQS can answer, and its
// query-compatible ones.
var throttled = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "ThrottledException": true,
	"RequestThrottledException": true, "TooManyRequestsException": true, "RequestThrottled": true,
	"AWS.SimpleQueueService.RequestThrottled": true, "RequestLimitExceeded": true, "SlowDown": true,
	"RequestTimeout": true, "RequestTimeoutException": true,
}

// retryable is an error worth another try: throttled or failed on SQS's
// side, or no answer at all (a transport error, which the context's end
// stops).
func retryable(err error) bool {
	return !errors.Is(err, ErrChecksum) && awscall.Transient(err, throttled)
}

// SendMessage queues body on the queue at queueURL, visible after
// delaySeconds (0-900), and returns the message's ID.
func (c *Client) SendMessage(ctx context.Context, queueURL, body string, delaySeconds int32) (string, error) {
	req, err := json.Marshal(struct {
		DelaySeconds int32  `json:"DelaySeconds,omitempty"`
		MessageBody  string `json:"MessageBody"`
		QueueURL     string `json:"QueueUrl"`
	}{delaySeconds, body, queueURL})
	if err != nil {
		return "", err
	}
	var id string
	err = c.Call(ctx, "sqs SendMessage", func(ctx context.Context) (err error) {
		id, err = c.send(ctx, req, body)
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// send makes one signed request. SQS answers the JSON protocol's errors
// with its query-compatible codes when asked (X-Amzn-Query-Mode), as the
// SDK's client asks.
func (c *Client) send(ctx context.Context, payload []byte, body string) (string, error) {
	raw, err := c.PostJSON(ctx, target, contentType, payload, map[string]string{"X-Amzn-Query-Mode": "true"})
	if err != nil {
		return "", err
	}
	var out struct {
		MessageID        *string `json:"MessageId"`
		MD5OfMessageBody *string `json:"MD5OfMessageBody"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("decode the answer: %w", err)
	}
	if out.MD5OfMessageBody != nil {
		sum := md5.Sum([]byte(body))
		if got := hex.EncodeToString(sum[:]); got != *out.MD5OfMessageBody {
			return "", fmt.Errorf("%w: expected %s, got %s", ErrChecksum, *out.MD5OfMessageBody, got)
		}
	}
	return aws.ToString(out.MessageID), nil
}
