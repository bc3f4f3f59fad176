// Package awscalltest is what the tests of awscall's callers (ssmparam,
// sqssend, cfinvalidate) share: a stand-in service that records what it
// receives and answers as told (Serve, Reply), the credentials they sign
// with and a steady clock (Steady), a check that a request carries SigV4's
// signature over what arrived, a server that never answers, a
// configuration source naming one service's endpoint, and the check of a
// client's endpoint for each of a table of configurations.
package awscalltest

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

	"github.com/shortlink-dev/shortener/shared/awscall"
)

// The credentials and Region of Config.
const (
	AccessKeyID  = "AKIDEXAMPLE"
	secret       = "secret"
	SessionToken = "session-token"
	Region       = "eu-west-1"
)

// Config is an SDK configuration for the service at url with a session's
// credentials, in Region.
func Config(url string) aws.Config {
	return aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKeyID, secret, SessionToken),
		BaseEndpoint: aws.String(url),
	}
}

// Steady makes c's calls the same every run: signed at at, and retried
// without a pause.
func Steady(c *awscall.Caller, at time.Time) {
	c.Now = func() time.Time { return at }
	c.Backoff = 0
}

// Request is one request as the stand-in received it.
type Request struct {
	Method, Path string // Path as sent (escaped)
	Query        string // the query as sent (escaped), without "?"
	Header       http.Header
	Body         []byte
}

// Service answers each request with the next of Answers (the last one
// repeated), given the body it received, and keeps what it received.
type Service struct {
	Answers []func(w http.ResponseWriter, body []byte)

	mu  sync.Mutex
	got []Request
}

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.got = append(s.got, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: b})
	answer := s.Answers[min(len(s.got), len(s.Answers))-1]
	s.mu.Unlock()
	answer(w, b)
}

// Serve starts a Service answering with answers in turn (the last one
// repeated); its server closes when the test ends.
func Serve(t *testing.T, answers ...func(w http.ResponseWriter, body []byte)) (*Service, *httptest.Server) {
	t.Helper()
	s := &Service{Answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// Reply is an answer of status with body as contentType, and the header
// pairs (name, value) given.
func Reply(contentType string, status int, body string, header ...string) func(http.ResponseWriter, []byte) {
	return func(w http.ResponseWriter, _ []byte) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// Requests are the requests received so far.
func (s *Service) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.got...)
}

// Unanswered is a server that answers nothing: each request waits until
// its context ends or the test does.
func Unanswered(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // first: the waiting handlers end, then the server closes
	return srv
}

// AssertSigned checks that r carries SigV4's signature over what arrived:
// the same request (method, baseURL and path, body, and the named
// headers), signed again by the SDK's signer with Config's credentials for
// service in region at at, carries the same Authorization.
func AssertSigned(t *testing.T, r Request, baseURL, service, region string, at time.Time, headers ...string) {
	t.Helper()
	again, err := http.NewRequest(r.Method, baseURL+r.Path, strings.NewReader(string(r.Body)))
	require.NoError(t, err)
	for _, h := range headers {
		again.Header.Set(h, r.Header.Get(h))
	}
	creds := aws.Credentials{AccessKeyID: AccessKeyID, SecretAccessKey: secret, SessionToken: SessionToken}
	sum := sha256.Sum256(r.Body)
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), service, region, at))
	assert.Equal(t, r.Header.Get("Authorization"), again.Header.Get("Authorization"))
}

// EndpointCase is one case of an endpoint test: a client built from
// Config sends its requests to Want.
type EndpointCase struct {
	Name   string
	Config aws.Config
	Want   string
}

// AssertEndpoints checks, for each case, that the endpoint of the client
// built from its Config (endpoint) is its Want.
func AssertEndpoints(t *testing.T, endpoint func(aws.Config) string, cases []EndpointCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			assert.Equal(t, tt.Want, endpoint(tt.Config))
		})
	}
}

// EndpointSource is a configuration source naming services' endpoints,
// as AWS_ENDPOINT_URL_<SERVICE> does, by SDK ID.
type EndpointSource map[string]string

// GetServiceBaseEndpoint answers for the services s names.
func (s EndpointSource) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	v, ok := s[sdkID]
	return v, ok, nil
}
