package cfinvalidate

import (
	"context"
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

var created = awscalltest.Reply("text/xml", http.StatusCreated,
	`<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I2J0I21PCUYOIK</Id><Status>InProgress</Status></Invalidation>`,
	"Location", "https://cloudfront.amazonaws.com/2020-05-31/distribution/E2EXAMPLE12345/invalidation/I2J0I21PCUYOIK")

func failure(status int, code, message string) func(http.ResponseWriter, []byte) {
	return awscalltest.Reply("text/xml", status, `<?xml version="1.0"?><ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>`+
		code+`</Code><Message>`+message+`</Message></Error><RequestId>b1b1</RequestId></ErrorResponse>`)
}

var signedAt = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

func client(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c := New(awscalltest.Config(srv.URL))
	awscalltest.Steady(c.Caller, signedAt)
	return c
}

// TestCreateInvalidationSendsTheSignedXMLCall: the request is the REST-XML
// CreateInvalidation of the API reference, signed with SigV4 for
// cloudfront in us-east-1 (a global service) with the session token.
func TestCreateInvalidationSendsTheSignedXMLCall(t *testing.T) {
	cf, srv := awscalltest.Serve(t, created)

	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E2EXAMPLE12345", "shortener-1-abc", []string{"/Summer-Sale", "/summer-sale"}))

	reqs := cf.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/2020-05-31/distribution/E2EXAMPLE12345/invalidation", r.Path)
	assert.Equal(t, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<InvalidationBatch xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Paths><Quantity>2</Quantity>`+
		`<Items><Path>/Summer-Sale</Path><Path>/summer-sale</Path></Items></Paths>`+
		`<CallerReference>shortener-1-abc</CallerReference></InvalidationBatch>`, string(r.Body))
	assert.Equal(t, "session-token", r.Header.Get("X-Amz-Security-Token"))
	auth := r.Header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/cloudfront/aws4_request, SignedHeaders="), auth)

	// The signature is SigV4's over what arrived.
	awscalltest.AssertSigned(t, r, srv.URL, "cloudfront", "us-east-1", signedAt, "Content-Type")
}

// TestCreateInvalidationEscapesPaths: a path is text in the XML body, so
// characters XML reserves are escaped there.
func TestCreateInvalidationEscapesPaths(t *testing.T) {
	cf, srv := awscalltest.Serve(t, created)
	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", []string{"/a&b<c"}))
	assert.Contains(t, string(cf.Requests()[0].Body), "<Path>/a&amp;b&lt;c</Path>")
}

// TestCreateInvalidationMapsErrors: CloudFront's XML error is an *Error
// with its code; a throttled or 5xx call is retried, a refused one not.
func TestCreateInvalidationMapsErrors(t *testing.T) {
	tests := []struct {
		name     string
		answer   func(http.ResponseWriter, []byte)
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
		{name: "server error, retried", answer: func(w http.ResponseWriter, _ []byte) { w.WriteHeader(503) }, status: 503, code: "Service Unavailable", attempts: DefaultAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cf, srv := awscalltest.Serve(t, tt.answer)
			err := client(t, srv).CreateInvalidation(context.Background(), "E2EXAMPLE12345", "ref", []string{"/a"})
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, tt.code, e.Code)
			assert.Contains(t, err.Error(), "cloudfront CreateInvalidation: "+tt.code)
			assert.Len(t, cf.Requests(), tt.attempts)
		})
	}
}

// TestCreateInvalidationRetriesAThrottledCall: accepted on the retry.
func TestCreateInvalidationRetriesAThrottledCall(t *testing.T) {
	cf, srv := awscalltest.Serve(t, failure(400, "Throttling", "Rate exceeded"), created)
	require.NoError(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", []string{"/a"}))
	assert.Len(t, cf.Requests(), 2)
}

// TestCreateInvalidationIsBoundedByItsContext: a call CloudFront never
// answers ends with the caller's deadline.
func TestCreateInvalidationIsBoundedByItsContext(t *testing.T) {
	srv := awscalltest.Unanswered(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := client(t, srv).CreateInvalidation(ctx, "E1", "ref", []string{"/a"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestCreateInvalidationRefusesAnEmptyBatch: nothing is sent.
func TestCreateInvalidationRefusesAnEmptyBatch(t *testing.T) {
	cf, srv := awscalltest.Serve(t, created)
	assert.Error(t, client(t, srv).CreateInvalidation(context.Background(), "E1", "ref", nil))
	assert.Error(t, client(t, srv).CreateInvalidation(context.Background(), "", "ref", []string{"/a"}))
	assert.Empty(t, cf.Requests())
}

func TestEndpoint(t *testing.T) {
	awscalltest.AssertEndpoints(t, func(cfg aws.Config) string { return New(cfg).Endpoint() }, []awscalltest.EndpointCase{
		{Name: "global, whatever the Region", Config: aws.Config{Region: "eu-west-1"}, Want: "https://cloudfront.amazonaws.com"},
		{Name: "China", Config: aws.Config{Region: "cn-north-1"}, Want: "https://cloudfront.cn-northwest-1.amazonaws.com.cn"},
		{Name: "configured globally", Config: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1")}, Want: "http://127.0.0.1:1"},
		{Name: "CloudFront's own first", Config: aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
			ConfigSources: []any{awscalltest.EndpointSource{"CloudFront": "http://127.0.0.1:9000"}}}, Want: "http://127.0.0.1:9000"},
	})
}
