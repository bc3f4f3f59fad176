package cfinvalidate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type received struct {
	method, path string
	header       http.Header
	body         []byte
}

// fakeCloudFront answers each request with the next of answers (the last
// one repeated), noting what it received.
type fakeCloudFront struct {
	mu      sync.Mutex
	got     []received
	answers []func(w http.ResponseWriter)
}

func (f *fakeCloudFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, received{method: r.Method, path: r.URL.EscapedPath(), header: r.Header.Clone(), body: b})
	answer := f.answers[min(len(f.got), len(f.answers))-1]
	f.mu.Unlock()
	answer(w)
}

func (f *fakeCloudFront) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

func created(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Location", "https://cloudfront.amazonaws.com/2020-05-31/distribution/E2EXAMPLE12345/invalidation/I2J0I21PCUYOIK")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I2J0I21PCUYOIK</Id><Status>InProgress</Status></Invalidation>`)
}

func failure(status int, code, message string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `<?xml version="1.0"?><ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>`+
			code+`</Code><Message>`+message+`</Message></Error><RequestId>b1b1</RequestId></ErrorResponse>`)
	}
}

var signedAt = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

func client(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c := New(aws.Config{
		Region:       "eu-west-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "session-token"),
		BaseEndpoint: aws.String(srv.URL),
	})
	c.call.Now = func() time.Time { return signedAt }
	c.backoff = func(int) time.Duration { return 0 }
	return c
}

// TestCreateInvalidationSendsTheSignedXMLCall: the request is the REST-XML
// CreateInvalidation of the API reference, signed with SigV4 for
// cloudfront in us-east-1 (a global service) with the session token.
func TestCreateInvalidationSendsTheSignedXMLCall(t *testing.T) {
	cf := &fakeCloudFront{answers: []func(http.ResponseWriter){created}}
	srv := httptest.NewServer(cf)
	defer srv.Close()

	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E2EXAMPLE12345", "shortener-1-abc", []string{"/Summer-Sale", "/summer-sale"}))

	reqs := cf.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.method)
	assert.Equal(t, "/2020-05-31/distribution/E2EXAMPLE12345/invalidation", r.path)
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<InvalidationBatch xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Paths><Quantity>2</Quantity>`+
		`<Items><Path>/Summer-Sale</Path><Path>/summer-sale</Path></Items></Paths>`+
		`<CallerReference>shortener-1-abc</CallerReference></InvalidationBatch>`, string(r.body))
	assert.Equal(t, "session-token", r.header.Get("X-Amz-Security-Token"))
	auth := r.header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/cloudfront/aws4_request, SignedHeaders="), auth)

	// The same request signed again by the SDK's signer carries the same
	// Authorization: it is SigV4's over what arrived.
	again, err := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(string(r.body)))
	require.NoError(t, err)
	again.Header.Set("Content-Type", r.header.Get("Content-Type"))
	sum := sha256.Sum256(r.body)
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session-token"}
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "cloudfront", "us-east-1", signedAt))
	assert.Equal(t, auth, again.Header.Get("Authorization"))
}

// TestCreateInvalidationEscapesPaths: a path is text in the XML body, so
// characters XML reserves are escaped there.
func TestCreateInvalidationEscapesPaths(t *testing.T) {
	cf := &fakeCloudFront{answers: []func(http.ResponseWriter){created}}
	srv := httptest.NewServer(cf)
	defer srv.Close()
	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", []string{"/a&b<c"}))
	assert.Contains(t, string(cf.requests()[0].body), "<Path>/a&amp;b&lt;c</Path>")
}

// TestCreateInvalidationMapsErrors: CloudFront's XML error is an *Error
// with its code; a throttled or 5xx call is retried, a refused one not.
func TestCreateInvalidationMapsErrors(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(http.ResponseWriter)
		status   int
		code     string
		attempts int
	}{
		{name: "too many in progress", answer: failure(400, "TooManyInvalidationsInProgress", "Processing your request will cause you to exceed the maximum number of in-progress wildcard invalidations."),
			status: 400, code: "TooManyInvalidationsInProgress", attempts: 1},
		{name: "no such distribution", answer: failure(404, "NoSuchDistribution", "The specified distribution does not exist."),
			status: 404, code: "NoSuchDistribution", attempts: 1},
		{name: "access denied", answer: failure(403, "AccessDenied", "User is not authorized"), status: 403, code: "AccessDenied", attempts: 1},
		{name: "throttled, retried", answer: failure(400, "Throttling", "Rate exceeded"), status: 400, code: "Throttling", attempts: DefaultAttempts},
		{name: "server error, retried", answer: func(w http.ResponseWriter) { w.WriteHeader(503) }, status: 503, code: "Service Unavailable", attempts: DefaultAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cf := &fakeCloudFront{answers: []func(http.ResponseWriter){tt.answer}}
			srv := httptest.NewServer(cf)
			defer srv.Close()
			err := client(t, srv).CreateInvalidation(context.Background(), "E2EXAMPLE12345", "ref", []string{"/a"})
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, tt.code, e.Code)
			assert.Contains(t, err.Error(), "cloudfront CreateInvalidation: "+tt.code)
			assert.Len(t, cf.requests(), tt.attempts)
		})
	}
}

// TestCreateInvalidationRetriesAThrottledCall: accepted on the retry.
func TestCreateInvalidationRetriesAThrottledCall(t *testing.T) {
	cf := &fakeCloudFront{answers: []func(http.ResponseWriter){failure(400, "Throttling", "Rate exceeded"), created}}
	srv := httptest.NewServer(cf)
	defer srv.Close()
	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", []string{"/a"}))
	assert.Len(t, cf.requests(), 2)
}

// TestCreateInvalidationIsBoundedByItsContext: a call CloudFront never
// answers ends with the caller's deadline.
func TestCreateInvalidationIsBoundedByItsContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := client(t, srv).CreateInvalidation(ctx, "E1", "ref", []string{"/a"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestCreateInvalidationRefusesAnEmptyBatch: nothing is sent.
func TestCreateInvalidationRefusesAnEmptyBatch(t *testing.T) {
	cf := &fakeCloudFront{answers: []func(http.ResponseWriter){created}}
	srv := httptest.NewServer(cf)
	defer srv.Close()
	assert.Error(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", nil))
	assert.Error(t, client(t, srv).CreateInvalidation(context.Background(), "", "ref", []string{"/a"}))
	assert.Empty(t, cf.requests())
}

// endpointSource is a configuration source answering for one service.
type endpointSource map[string]string

func (s endpointSource) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	v, ok := s[sdkID]
	return v, ok, nil
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		name string
		cfg  aws.Config
		want string
	}{
		{name: "global, whatever the Region", cfg: aws.Config{Region: "eu-west-1"}, want: "https://cloudfront.amazonaws.com"},
		{name: "China", cfg: aws.Config{Region: "cn-north-1"}, want: "https://cloudfront.cn-northwest-1.amazonaws.com.cn"},
		{name: "configured globally", cfg: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1")}, want: "http://127.0.0.1:1"},
		{name: "CloudFront's own first", cfg: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
			ConfigSources: []any{endpointSource{"CloudFront": "http://127.0.0.1:9000"}}}, want: "http://127.0.0.1:9000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, New(tt.cfg).Endpoint())
		})
	}
}
