package rie_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

// ssmStandIn answers GetParameter (AWS JSON 1.1: a POST with X-Amz-Target)
// for the parameters it holds, ParameterNotFound for others, and notes
// each call with whether it was signed.
type ssmStandIn struct {
	params map[string]string
	mu     sync.Mutex
	asked  []string
}

func (s *ssmStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct{ Name string }
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	signed := strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=")
	s.mu.Lock()
	s.asked = append(s.asked, r.Header.Get("X-Amz-Target")+" "+in.Name+map[bool]string{true: " signed", false: " unsigned"}[signed])
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	v, ok := s.params[in.Name]
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"ParameterNotFound"}`)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"Parameter": map[string]any{"Name": in.Name, "Type": "String", "Value": v, "Version": 1}})
}

func (s *ssmStandIn) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// TestCreateLearnsItsHostFromTheEdgeParameter: without a custom domain,
// create's bootstrap reads the edge parameter at its first request, with
// the signed GetParameter call of shared/ssmparam at the endpoint
// AWS_ENDPOINT_URL_SSM names, and shows short links on the distribution's
// host; a parameter it cannot read answers 503 and writes nothing.
func TestCreateLearnsItsHostFromTheEdgeParameter(t *testing.T) {
	tb := newTables(t)
	run := func(t *testing.T, params map[string]string) (*ssmStandIn, map[string]any, int) {
		ssm := &ssmStandIn{params: params}
		srv := httptest.NewServer(ssm)
		t.Cleanup(srv.Close)
		e := tb.env()
		e["SHORTENER_BASE_URL"], e["AWS_ENDPOINT_URL_SSM"] = "", srv.URL
		f := start(t, "create", env(t, "create", e))
		resp := apiResponse(t, invoke(t, f, fixture(t, "create", "create-alias.json", nil)))
		var body map[string]any
		_ = json.Unmarshal([]byte(resp.Body), &body)
		return ssm, body, resp.StatusCode
	}

	t.Run("published", func(t *testing.T) {
		ssm, body, status := run(t, map[string]string{
			"/Shortener/edge": `{"distributionId":"E2EXAMPLE12345","domainName":"d111111abcdef8.cloudfront.net"}`})
		require.Equal(t, 201, status, "%v", body)
		assert.Equal(t, "https://d111111abcdef8.cloudfront.net/Summer-Sale", body["short_url"])
		assert.Equal(t, []string{"AmazonSSM.GetParameter /Shortener/edge signed"}, ssm.calls())
	})
	t.Run("not yet published", func(t *testing.T) {
		tb = newTables(t)
		ssm, body, status := run(t, nil)
		assert.Equal(t, 503, status, "%v", body)
		assert.NotEmpty(t, ssm.calls())
		_, err := tb.store(t).Get(context.Background(), "summer-sale")
		assert.Error(t, err, "nothing is written")
	})
}

// cloudFrontStandIn accepts every CreateInvalidation, noting its path,
// whether it was signed for CloudFront, and its body.
type cloudFrontStandIn struct {
	mu    sync.Mutex
	asked []string
}

func (c *cloudFrontStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	signed := strings.Contains(r.Header.Get("Authorization"), "/us-east-1/cloudfront/aws4_request")
	c.mu.Lock()
	c.asked = append(c.asked, r.Method+" "+r.URL.Path+map[bool]string{true: " signed ", false: " unsigned "}[signed]+string(body))
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `<Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I1</Id><Status>InProgress</Status></Invalidation>`)
}

func (c *cloudFrontStandIn) calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.asked...)
}

// TestManageInvalidatesTheDistributionItLearns: manage's bootstrap learns
// the distribution from the edge parameter and invalidates an edited
// link's path on it with the signed CreateInvalidation of
// shared/cfinvalidate, at the endpoint AWS_ENDPOINT_URL_CLOUDFRONT names.
func TestManageInvalidatesTheDistributionItLearns(t *testing.T) {
	tb := newTables(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	require.NoError(t, tb.store(t).Create(context.Background(), link.Link{Code: "Edg3Pth", Owner: owner, URL: "https://example.com/before",
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(24 * time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
	ssm := &ssmStandIn{params: map[string]string{
		"/Shortener/edge": `{"distributionId":"E2EXAMPLE12345","domainName":"d111111abcdef8.cloudfront.net"}`}}
	ssmSrv := httptest.NewServer(ssm)
	t.Cleanup(ssmSrv.Close)
	cf := &cloudFrontStandIn{}
	cfSrv := httptest.NewServer(cf)
	t.Cleanup(cfSrv.Close)
	e := tb.env()
	e["AWS_ENDPOINT_URL_SSM"], e["AWS_ENDPOINT_URL_CLOUDFRONT"] = ssmSrv.URL, cfSrv.URL
	f := start(t, "manage", env(t, "manage", e))

	resp := apiResponse(t, invoke(t, f, fixture(t, "manage", "patch-link.json", withCode("/v1/links/", "Edg3Pth"))))
	require.Equal(t, 200, resp.StatusCode, "%s", resp.Body)
	asked := cf.calls()
	require.Len(t, asked, 1)
	assert.True(t, strings.HasPrefix(asked[0], "POST /2020-05-31/distribution/E2EXAMPLE12345/invalidation signed "), asked[0])
	assert.Contains(t, asked[0], "<Path>/Edg3Pth</Path>")
	assert.Equal(t, []string{"AmazonSSM.GetParameter /Shortener/edge signed"}, ssm.calls())
}
