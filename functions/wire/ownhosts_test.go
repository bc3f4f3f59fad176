package wire

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TestEveryHostTheEdgeAnswersOnIsRefused: with a custom domain the
// distribution still answers on its own *.cloudfront.net name, so a link
// to it loops as surely as one to the custom domain. create and manage,
// built as a deployed stack builds them (the custom domain in
// SHORTENER_BASE_URL, the distribution in the edge parameter), refuse
// both; the parameter is read when a request needs it, not at start-up.
func TestEveryHostTheEdgeAnswersOnIsRefused(t *testing.T) {
	const distribution = "d111111abcdef8.cloudfront.net"
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{"key-a": "alice"}), apikey.ResolverOptions{})
	req := func(method, resource, code, body string) events.APIGatewayProxyRequest {
		r := events.APIGatewayProxyRequest{HTTPMethod: method, Resource: resource, Path: "/v1/links", Body: body,
			Headers: map[string]string{"Content-Type": "application/json"}}
		if code != "" {
			r.Path += "/" + code
			r.PathParameters = map[string]string{"code": code}
			r.Headers["If-Match"] = `"1"`
		}
		r.RequestContext.Identity.APIKey = "key-a"
		return r
	}
	loops := []string{"https://" + distribution + "/x", "https://D111111ABCDEF8.cloudfront.net./x", "https://sho.rt/x"}

	t.Run("create", func(t *testing.T) {
		src := &countingSource{info: edgeinfo.Info{DistributionID: "E2EXAMPLE12345", DomainName: distribution}}
		c := lambdaClients()
		c.EdgeInfo = src
		h, err := NewCreate(load(t), c)
		require.NoError(t, err)
		assert.Zero(t, src.reads, "nothing is read at start-up")
		h.Store, h.Owners = linkstore.NewMemory(func() time.Time { return now }), owners
		for _, u := range loops {
			resp, err := h.Handle(context.Background(), req(http.MethodPost, "/v1/links", "", `{"url":"`+u+`"}`))
			require.NoError(t, err)
			assert.Equal(t, 400, resp.StatusCode, "%s: %s", u, resp.Body)
			assert.Contains(t, resp.Body, "would loop", u)
		}
		resp, err := h.Handle(context.Background(), req(http.MethodPost, "/v1/links", "", `{"url":"https://other.cloudfront.net/x"}`))
		require.NoError(t, err)
		assert.Equal(t, 201, resp.StatusCode, "another distribution is another site: %s", resp.Body)
		assert.Contains(t, resp.Body, `"short_url":"https://sho.rt/`, "the custom domain stays the short links' host")
	})

	t.Run("manage", func(t *testing.T) {
		src := &countingSource{info: edgeinfo.Info{DistributionID: "E2EXAMPLE12345", DomainName: distribution}}
		c := lambdaClients()
		c.EdgeInfo = src
		h, err := NewManage(load(t), c)
		require.NoError(t, err)
		assert.Zero(t, src.reads, "nothing is read at start-up")
		store := linkstore.NewMemory(func() time.Time { return now })
		require.NoError(t, store.Create(context.Background(), link.Link{Code: "Ab3dE5g", URL: "https://example.com/", Owner: "alice",
			CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
		// No call leaves the machine: a change that got through would be
		// invalidated here, not at CloudFront.
		h.Store, h.Owners, h.Edge = store, owners, nopEdge{}
		for _, u := range loops {
			resp, err := h.Handle(context.Background(), req(http.MethodPatch, "/v1/links/{code}", "Ab3dE5g", `{"url":"`+u+`"}`))
			require.NoError(t, err)
			assert.Equal(t, 400, resp.StatusCode, "%s: %s", u, resp.Body)
			assert.Contains(t, resp.Body, "would loop", u)
		}
	})
}

// nopEdge invalidates nothing.
type nopEdge struct{}

func (nopEdge) Invalidate(context.Context, ...string) error { return nil }
