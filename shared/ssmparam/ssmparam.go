package ssmparam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/shortlink-dev/shortener/shared/awscall"
)

// SDKID is SSM's service ID as the SDK's endpoint settings name it
// (AWS_ENDPOINT_URL_SSM).
const (
	SDKID       = "SSM"
	signingName = "ssm"
	target      = "AmazonSSM.GetParameter"
	contentType = "application/x-amz-json-1.1"
)

// Defaults of Client.
const (
	// DefaultTimeout bounds one Get, retries included: a parameter read
	// takes tens of milliseconds, and a request that needs it answers 503
	// rather than wait on SSM.
	DefaultTimeout = 3 * time.Second
	// DefaultAttempts is how many times a throttled, failed (5xx) or
	// unreachable read is tried, as the SDK's standard retryer does.
	DefaultAttempts = 3
)

// Client reads SSM parameters: an awscall.Caller for SSM, whose Timeout
// bounds one Get and Attempts the tries within it. Build it with New.
type Client struct{ *awscall.Caller }

// New returns a client for cfg's Region, credentials, HTTP client and
// configured endpoint.
func New(cfg aws.Config) *Client {
	c := awscall.Regional(cfg, SDKID, signingName)
	c.Timeout, c.Attempts, c.Backoff, c.Retryable = DefaultTimeout, DefaultAttempts, 50*time.Millisecond, retryable
	return &Client{c}
}

// Error is an error SSM answered, with its code (ParameterNotFound,
// AccessDeniedException, ThrottlingException, ...).
type Error = awscall.Error

// retryable is an error worth another try: throttled or failed on SSM's
// side, or no answer at all.
func retryable(err error) bool {
	return awscall.Transient(err, map[string]bool{"ThrottlingException": true})
}

// Get returns the value of parameter name (without decryption: the edge
// parameter is a String). A parameter that does not exist is an *Error
// with Code ParameterNotFound.
func (c *Client) Get(ctx context.Context, name string) (string, error) {
	body, err := json.Marshal(struct{ Name string }{name})
	if err != nil {
		return "", err
	}
	var value string
	err = c.Call(ctx, "ssm GetParameter", func(ctx context.Context) (err error) {
		value, err = c.get(ctx, body)
		return err
	})
	if err != nil {
		return "", err
	}
	return value, nil
}

// get makes one signed request.
func (c *Client) get(ctx context.Context, body []byte) (string, error) {
	raw, err := c.PostJSON(ctx, target, contentType, body, nil)
	if err != nil {
		return "", err
	}
	var out struct {
		Parameter *struct {
			Value *string
		}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("decode the answer: %w", err)
	}
	if out.Parameter == nil || out.Parameter.Value == nil {
		return "", errors.New("the answer has no value")
	}
	return *out.Parameter.Value, nil
}
