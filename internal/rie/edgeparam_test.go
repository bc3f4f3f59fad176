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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		assert.Equal(t, []string{"AmazonSSM.GetParameter /Shortener/edge signed"}, ssm.asked)
	})
	t.Run("not yet published", func(t *testing.T) {
		tb = newTables(t)
		ssm, body, status := run(t, nil)
		assert.Equal(t, 503, status, "%v", body)
		assert.NotEmpty(t, ssm.asked)
		_, err := tb.store(t).Get(context.Background(), "summer-sale")
		assert.Error(t, err, "nothing is written")
	})
}
