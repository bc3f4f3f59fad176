package cfkvs

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
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/encoding/httpbinding"

	"github.com/shortlink-dev/shortener/shared/awscall"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
)

// SDKID is the API's service ID as the SDK's endpoint settings name it
// (AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE).
const SDKID = "CloudFront KeyValueStore"

// service is the API's signing name; it is signed for every Region.
const (
	service   = "cloudfront-keyvaluestore"
	regionSet = "*"
)

// DefaultAttempts is how many times a throttled, failed (5xx) or
// unanswered call is tried within the caller's context.
const DefaultAttempts = 3

// Client calls the KeyValueStore API with cfg's credentials and HTTP
// client. Build it with New.
type Client struct {
	creds    aws.CredentialsProvider
	http     aws.HTTPClient
	endpoint func(arn string) (string, error)
	// Now stamps the signatures; time.Now when nil.
	Now      func() time.Time
	Attempts int
}

var (
	_ edgeversion.API      = (*Client)(nil)
	_ edgeversion.SweepAPI = (*Client)(nil)
)

// New returns a client for cfg: the configured endpoint when there is one
// (AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE, then AWS_ENDPOINT_URL),
// else the store's account endpoint.
func New(cfg aws.Config) *Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	configured := awscall.Endpoint(cfg, SDKID, "")
	return &Client{creds: cfg.Credentials, http: hc, Attempts: DefaultAttempts, endpoint: func(arn string) (string, error) {
		if configured != "" {
			return strings.TrimSuffix(configured, "/"), nil
		}
		return AccountEndpoint(arn)
	}}
}

// AccountEndpoint is the API endpoint of the store arn
// (arn:aws:cloudfront::<account>:key-value-store/<id>):
// https://<account>.cloudfront-kvs.global.api.aws.
func AccountEndpoint(arn string) (string, error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "cloudfront" || !strings.HasPrefix(parts[5], "key-value-store/") ||
		len(parts[4]) != 12 || strings.Trim(parts[4], "0123456789") != "" {
		return "", fmt.Errorf("cfkvs: %q is not a key value store ARN", arn)
	}
	return "https://" + parts[4] + ".cloudfront-kvs.global.api.aws", nil
}

// Error is an error the API answered, with its code (ConflictException,
// ResourceNotFoundException, AccessDeniedException, ValidationException,
// ...).
type Error = awscall.Error

// DescribeKeyValueStore returns the store's ETag
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_DescribeKeyValueStore.html).
func (c *Client) DescribeKeyValueStore(ctx context.Context, arn string) (string, error) {
	var etag string
	err := c.call(ctx, "DescribeKeyValueStore", http.MethodGet, arn, storePath(arn), nil, nil, nil, func(h http.Header, _ []byte) error {
		etag = h.Get("ETag")
		if etag == "" {
			return errors.New("no ETag in the answer")
		}
		return nil
	})
	return etag, err
}

// GetKey returns key's value, found false when the store has none
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_GetKey.html).
func (c *Client) GetKey(ctx context.Context, arn, key string) (string, bool, error) {
	var out struct{ Value string }
	err := c.call(ctx, "GetKey", http.MethodGet, arn, keyPath(arn, key), nil, nil, nil, func(_ http.Header, raw []byte) error {
		return json.Unmarshal(raw, &out)
	})
	var e *Error
	if errors.As(err, &e) && e.Code == "ResourceNotFoundException" {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return out.Value, true, nil
}

// PutKey sets key to value if the store's ETag is still ifMatch, and
// returns the new ETag; a changed ETag is edgeversion.ErrConflict
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_PutKey.html).
func (c *Client) PutKey(ctx context.Context, arn, key, value, ifMatch string) (string, error) {
	body, err := json.Marshal(struct{ Value string }{value})
	if err != nil {
		return "", err
	}
	return c.write(ctx, "PutKey", http.MethodPut, arn, keyPath(arn, key), body, ifMatch)
}

// ListKeys returns one page of at most maxResults (1 to
// edgeversion.MaxListResults) of the store's keys, the one after the page
// that answered nextToken ("" for the first), and the next page's token
// ("" after the last)
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_ListKeys.html).
func (c *Client) ListKeys(ctx context.Context, arn string, maxResults int, nextToken string) ([]edgeversion.Item, string, error) {
	if maxResults < 1 || maxResults > edgeversion.MaxListResults {
		return nil, "", fmt.Errorf("cfkvs: ListKeys of %d keys a page (1 to %d)", maxResults, edgeversion.MaxListResults)
	}
	q := url.Values{"MaxResults": {strconv.Itoa(maxResults)}}
	if nextToken != "" {
		q.Set("NextToken", nextToken)
	}
	var out struct {
		Items     []struct{ Key, Value string }
		NextToken string
	}
	err := c.call(ctx, "ListKeys", http.MethodGet, arn, storePath(arn)+"/keys", q, nil, nil, func(_ http.Header, raw []byte) error {
		return json.Unmarshal(raw, &out)
	})
	if err != nil {
		return nil, "", err
	}
	items := make([]edgeversion.Item, len(out.Items))
	for i, it := range out.Items {
		items[i] = edgeversion.Item{Key: it.Key, Value: it.Value}
	}
	return items, out.NextToken, nil
}

// UpdateKeys puts puts and deletes deletes in one all-or-nothing call,
// within its bounds (edgeversion.UpdateKeysBody), if the store's ETag is
// still ifMatch, and returns the new ETag; a changed ETag is
// edgeversion.ErrConflict, which is not retried here: the caller reads the
// store again first
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_UpdateKeys.html).
func (c *Client) UpdateKeys(ctx context.Context, arn string, puts []edgeversion.Item, deletes []string, ifMatch string) (string, error) {
	body, err := edgeversion.UpdateKeysBody(puts, deletes)
	if err != nil {
		return "", err
	}
	return c.write(ctx, "UpdateKeys", http.MethodPost, arn, storePath(arn)+"/keys", body, ifMatch)
}

// write is a write under If-Match: the new ETag, or edgeversion.ErrConflict
// when the store's ETag is no longer ifMatch.
func (c *Client) write(ctx context.Context, op, method, arn, path string, body []byte, ifMatch string) (string, error) {
	var etag string
	err := c.call(ctx, op, method, arn, path, nil, body, map[string]string{"If-Match": ifMatch}, func(h http.Header, _ []byte) error {
		etag = h.Get("ETag")
		if etag == "" {
			return errors.New("no ETag in the answer")
		}
		return nil
	})
	var e *Error
	if errors.As(err, &e) && e.Code == "ConflictException" {
		return "", fmt.Errorf("%w: %w", edgeversion.ErrConflict, err)
	}
	return etag, err
}

// storePath is the path of the store arn, its ARN a path label (":" and
// "/" escaped); keyPath that of its key.
func storePath(arn string) string { return "/key-value-stores/" + httpbinding.EscapePath(arn, true) }

func keyPath(arn, key string) string {
	return storePath(arn) + "/keys/" + httpbinding.EscapePath(key, true)
}

// call makes one signed request of the API at path (and query, when not
// empty) of the store arn's endpoint, retried while it fails transiently,
// and hands a 2xx answer to read.
func (c *Client) call(ctx context.Context, op, method, arn, path string, query url.Values, body []byte, headers map[string]string, read func(http.Header, []byte) error) error {
	ep, err := c.endpoint(arn)
	if err != nil {
		return err
	}
	u := ep + path
	if len(query) > 0 {
		// Sent as signed: the canonical form.
		u += "?" + canonicalQuery(query)
	}
	try := func() error {
		status, h, raw, err := c.do(ctx, method, u, body, headers)
		if err != nil {
			return err
		}
		if status/100 != 2 {
			return awscall.JSONError(status, h, raw)
		}
		return read(h, raw)
	}
	retryable := func(err error) bool {
		return awscall.Transient(err, map[string]bool{"ThrottlingException": true, "Throttling": true})
	}
	backoff := func(attempt int) time.Duration { return time.Duration(attempt) * 100 * time.Millisecond }
	if err := awscall.Retry(ctx, max(c.Attempts, 1), backoff, retryable, try); err != nil {
		return fmt.Errorf("cloudfront-keyvaluestore %s: %w", op, err)
	}
	return nil
}

func (c *Client) do(ctx context.Context, method, u string, body []byte, headers map[string]string) (int, http.Header, []byte, error) {
	if c.creds == nil {
		return 0, nil, nil, errors.New("no credentials to sign with")
	}
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("credentials: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.ContentLength = int64(len(body))
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	sum := sha256.Sum256(body)
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	if err := sign(req, hex.EncodeToString(sum[:]), service, regionSet, creds, now()); err != nil {
		return 0, nil, nil, fmt.Errorf("sign: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, awscall.MaxBody))
	if err != nil {
		return resp.StatusCode, resp.Header, nil, fmt.Errorf("read the answer: %w", err)
	}
	return resp.StatusCode, resp.Header, raw, nil
}
