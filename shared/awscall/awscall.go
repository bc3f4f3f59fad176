// Package awscall makes one signed call to an AWS service without the
// SDK's service client: it resolves the service's endpoint as the SDK's
// clients do and signs the request with the SDK's Signature Version 4
// signer, which every function already links through DynamoDB's client,
// and a Caller bounds and retries a service's calls as the SDK's standard
// retryer does. The calls the functions make outside DynamoDB, SSM's GetParameter
// (ssmparam), CloudFront's CreateInvalidation (cfinvalidate) and SQS's
// SendMessage (sqssend), use it, so their bootstraps do not link and
// initialise those services' SDK clients (docs/benchmarks.md, "Cold
// start").
package awscall

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

// MaxBody bounds the answer read: the calls' answers are a few KB.
const MaxBody = 1 << 20

// serviceEndpoint is what an SDK configuration source answers about a
// service's configured endpoint (shared/fnclients' Lambda configuration, or the SDK
// config package's environment and shared config).
type serviceEndpoint interface {
	GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
}

// Endpoint is a service's endpoint as the SDK's clients resolve it
// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html):
// the service's own configured endpoint (AWS_ENDPOINT_URL_<SDKID>, through
// cfg's configuration sources), then the global one
// (cfg.BaseEndpoint, AWS_ENDPOINT_URL), then public, the service's
// public endpoint.
func Endpoint(cfg aws.Config, sdkID, public string) string {
	for _, src := range cfg.ConfigSources {
		if s, ok := src.(serviceEndpoint); ok {
			if v, found, err := s.GetServiceBaseEndpoint(context.Background(), sdkID); err == nil && found && v != "" {
				return v
			}
		}
	}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		return *cfg.BaseEndpoint
	}
	return public
}

// Client sends signed requests for one service in one signing Region.
type Client struct {
	// Service and Region are what the signature is scoped to.
	Service, Region string
	Credentials     aws.CredentialsProvider
	HTTP            aws.HTTPClient
	// Now stamps the signature; time.Now when nil.
	Now    func() time.Time
	signer *v4.Signer
}

// New returns a client for service in region with cfg's credentials and
// HTTP client.
func New(cfg aws.Config, service, region string) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{Service: service, Region: region, Credentials: cfg.Credentials, HTTP: hc, signer: v4.NewSigner()}
}

// Do signs req (whose body is body, and whose other headers are set) and
// sends it, returning the status, headers and at most MaxBody of the
// answer.
func (c *Client) Do(req *http.Request, body []byte) (int, http.Header, []byte, error) {
	ctx := req.Context()
	if c.Credentials == nil {
		return 0, nil, nil, errors.New("no credentials to sign with")
	}
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("credentials: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), c.Service, c.Region, now()); err != nil {
		return 0, nil, nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	if err != nil {
		return resp.StatusCode, resp.Header, nil, fmt.Errorf("read the answer: %w", err)
	}
	return resp.StatusCode, resp.Header, raw, nil
}

// Retry calls try up to attempts times while it fails with an error
// retryable says is worth another try and ctx has time left, pausing
// backoff(attempt) between tries, as the SDK's standard retryer does for
// throttling, 5xx answers and transport errors.
func Retry(ctx context.Context, attempts int, backoff func(int) time.Duration, retryable func(error) bool, try func() error) error {
	for attempt := 1; ; attempt++ {
		err := try()
		if err == nil || attempt >= attempts || ctx.Err() != nil || !retryable(err) {
			return err
		}
		select {
		case <-time.After(backoff(attempt)):
		case <-ctx.Done():
			return fmt.Errorf("%w (after %w)", ctx.Err(), err)
		}
	}
}

// Error is an error a service answered: its HTTP status, its code
// (ParameterNotFound, TooManyInvalidationsInProgress,
// AWS.SimpleQueueService.NonExistentQueue, ThrottlingException, ...) and
// message.
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

// JSONError reads an AWS JSON 1.x error as the SDK's clients do: the code
// from X-Amzn-ErrorType or the body's __type (or code), without its
// namespace ("...#") or suffix (":..."); the status text when there is
// none. A query-compatible service (SQS) gives its query code in
// X-Amzn-Query-Error ("code;Sender"), which then wins.
func JSONError(status int, header http.Header, raw []byte) *Error {
	var body struct {
		Type     string `json:"__type"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	_ = json.Unmarshal(raw, &body) // a body that is not JSON leaves the status alone to tell
	code := header.Get("X-Amzn-ErrorType")
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
	if q, _, _ := strings.Cut(header.Get("X-Amzn-Query-Error"), ";"); q != "" {
		code = q
	}
	if code == "" {
		code = http.StatusText(status)
	}
	msg := body.Message
	if msg == "" {
		msg = body.MessageU
	}
	return &Error{Status: status, Code: code, Message: msg}
}

// RegionalEndpoint is the endpoint of a regional service whose public
// host is prefix.<Region>.amazonaws.com (.amazonaws.com.cn in China),
// unless one is configured (Endpoint).
func RegionalEndpoint(cfg aws.Config, sdkID, prefix string) string {
	suffix := "amazonaws.com"
	if strings.HasPrefix(cfg.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return Endpoint(cfg, sdkID, "https://"+prefix+"."+cfg.Region+"."+suffix)
}

// Caller makes the calls of one service's API: each signed by its
// Client, sent to URL, bounded by Timeout and tried up to Attempts times
// while Retryable says an error is worth another try. The signed-call
// clients (ssmparam, sqssend, cfinvalidate) are each a Caller with their
// one operation.
type Caller struct {
	*Client
	// URL is the endpoint the calls go to (Endpoint, RegionalEndpoint).
	URL string
	// Timeout bounds one call, retries included; when zero, the caller's
	// context alone bounds it.
	Timeout time.Duration
	// Attempts is how many times a call is tried (at least once), and
	// Backoff the pause before the nth retry, n times Backoff.
	Attempts int
	Backoff  time.Duration
	// Retryable says whether a failed try is worth another (Transient).
	Retryable func(error) bool
}

// Regional is a Caller of the regional service whose signing name and
// public host prefix are both service (ssm, sqs): signed for service in
// cfg's Region with cfg's credentials and HTTP client, and sent to its
// endpoint (RegionalEndpoint). Its timeout, tries and backoff are the
// caller's to set.
func Regional(cfg aws.Config, sdkID, service string) *Caller {
	return &Caller{Client: New(cfg, service, cfg.Region), URL: RegionalEndpoint(cfg, sdkID, service)}
}

// Endpoint is the URL the caller sends its requests to.
func (c *Caller) Endpoint() string { return c.URL }

// Call runs try within Timeout, retried as Retry does, and names the
// failed call's op ("sqs SendMessage") in its error.
func (c *Caller) Call(ctx context.Context, op string, try func(ctx context.Context) error) error {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	backoff := func(attempt int) time.Duration { return time.Duration(attempt) * c.Backoff }
	if err := Retry(ctx, c.Attempts, backoff, c.Retryable, func() error { return try(ctx) }); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Transient is an error the SDK's standard retryer tries again: no answer
// at all (a transport error, which the context's end stops), a failure
// on the service's side (5xx) or one of the throttling codes.
func Transient(err error, throttling map[string]bool) bool {
	var e *Error
	if !errors.As(err, &e) {
		return true
	}
	return e.Status >= 500 || throttling[e.Code]
}

// PostJSON makes one signed AWS JSON request: payload POSTed to the
// caller's URL with the operation in X-Amz-Target, the protocol version's
// contentType and any extra headers. It returns the answer's body when
// the status is 2xx, and the service's error (JSONError) otherwise.
func (c *Caller) PostJSON(ctx context.Context, target, contentType string, payload []byte, extra map[string]string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+"/", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", target)
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	status, header, raw, err := c.Do(req, payload)
	if err != nil {
		return nil, err
	}
	if status < 200 || status > 299 {
		return nil, JSONError(status, header, raw)
	}
	return raw, nil
}
