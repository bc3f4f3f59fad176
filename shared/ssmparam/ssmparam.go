package ssmparam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// SDKID is SSM's service ID as the SDK's endpoint settings name it
// (AWS_ENDPOINT_URL_SSM), and signingName the service name SigV4 signs
// for.
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
	// maxBody bounds the answer read: a parameter value is at most 8 KB.
	maxBody = 1 << 20
)

// Client reads SSM parameters. Build it with New.
type Client struct {
	region   string
	creds    aws.CredentialsProvider
	http     aws.HTTPClient
	endpoint string
	signer   *v4.Signer
	// Timeout bounds one Get (DefaultTimeout when zero or less), and
	// Attempts the tries within it (DefaultAttempts when zero or less).
	Timeout  time.Duration
	Attempts int
	// Now stamps the signature; time.Now when nil.
	Now func() time.Time
	// backoff is the pause before a retry; a field so tests need not wait.
	backoff func(attempt int) time.Duration
}

// New returns a client for cfg's Region, credentials, HTTP client and
// configured endpoint.
func New(cfg aws.Config) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{
		region:   cfg.Region,
		creds:    cfg.Credentials,
		http:     hc,
		endpoint: resolveEndpoint(cfg),
		signer:   v4.NewSigner(),
		backoff:  func(attempt int) time.Duration { return time.Duration(attempt) * 50 * time.Millisecond },
	}
}

// Endpoint is the URL the client sends its requests to.
func (c *Client) Endpoint() string { return c.endpoint }

// serviceEndpoint is what an SDK configuration source answers about a
// service's configured endpoint (lambdaenv's, or the SDK config
// package's environment and shared config).
type serviceEndpoint interface {
	GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
}

// resolveEndpoint is SSM's endpoint as the SDK's SSM client resolves it:
// the service's own configured endpoint, then the global one, then the
// Region's.
func resolveEndpoint(cfg aws.Config) string {
	for _, src := range cfg.ConfigSources {
		if s, ok := src.(serviceEndpoint); ok {
			if v, found, err := s.GetServiceBaseEndpoint(context.Background(), SDKID); err == nil && found && v != "" {
				return v
			}
		}
	}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		return *cfg.BaseEndpoint
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(cfg.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://ssm." + cfg.Region + "." + suffix
}

// Error is an error SSM answered, with its code (ParameterNotFound,
// AccessDeniedException, ThrottlingException, ...).
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s (HTTP %d)", e.Code, e.Status)
	}
	return fmt.Sprintf("%s: %s (HTTP %d)", e.Code, e.Message, e.Status)
}

// retryable is an answer worth another try: throttled or failed on SSM's
// side.
func (e *Error) retryable() bool {
	return e.Status >= 500 || e.Code == "ThrottlingException" || e.Code == "TooManyUpdates"
}

// Get returns the value of parameter name (without decryption: the edge
// parameter is a String). A parameter that does not exist is an *Error
// with Code ParameterNotFound.
func (c *Client) Get(ctx context.Context, name string) (string, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(struct{ Name string }{name})
	if err != nil {
		return "", err
	}
	for attempt := 1; ; attempt++ {
		value, err := c.get(ctx, body)
		var answered *Error
		if err == nil || attempt >= attempts || ctx.Err() != nil || errors.As(err, &answered) && !answered.retryable() {
			if err != nil {
				return "", fmt.Errorf("ssm GetParameter: %w", err)
			}
			return value, nil
		}
		select {
		case <-time.After(c.backoff(attempt)):
		case <-ctx.Done():
			return "", fmt.Errorf("ssm GetParameter: %w (after %v)", ctx.Err(), err)
		}
	}
}

// get makes one signed request.
func (c *Client) get(ctx context.Context, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", target)
	if c.creds == nil {
		return "", errors.New("no credentials to sign with")
	}
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), signingName, c.region, now()); err != nil {
		return "", fmt.Errorf("sign: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return "", fmt.Errorf("read the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", answerError(resp, raw)
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

// answerError reads an AWS JSON error: the code from X-Amzn-ErrorType or
// the body's __type (or code), without its namespace ("...#") or suffix
// (":..."), as the SDK reads it.
func answerError(resp *http.Response, raw []byte) *Error {
	var body struct {
		Type     string `json:"__type"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	_ = json.Unmarshal(raw, &body) // a body that is not JSON leaves the status alone to tell
	code := resp.Header.Get("X-Amzn-ErrorType")
	if code == "" {
		code = body.Type
	}
	if code == "" {
		code = body.Code
	}
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = http.StatusText(resp.StatusCode)
	}
	msg := body.Message
	if msg == "" {
		msg = body.MessageU
	}
	return &Error{Status: resp.StatusCode, Code: code, Message: msg}
}
