package fntest

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
)

// Distribution is the CloudFront distribution's own host in these tests,
// which answers every short link beside the custom domain (sho.rt).
const Distribution = "d111111abcdef8.cloudfront.net"

// Edge is the edge parameter's Distribution.
func Edge() *CountingSource {
	return &CountingSource{Edge: edgeinfo.Info{DistributionID: "E2EXAMPLE12345", DomainName: Distribution}}
}

// Loops are long URLs on the hosts the edge answers on, in the spellings
// a link that loops may take: each must be refused.
var Loops = []string{"https://" + Distribution + "/x", "https://D111111ABCDEF8.cloudfront.net./x", "https://sho.rt/x"}

// Owners is a keys table in memory: key-a belongs to alice.
func Owners() *apikey.Resolver {
	return apikey.NewResolver(apikey.NewMemory(map[string]string{"key-a": "alice"}), apikey.ResolverOptions{})
}

// Request is alice's API request: method on resource, for code when not
// empty (at version 1), with a JSON body.
func Request(method, resource, code, body string) events.APIGatewayProxyRequest {
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

// NopEdge invalidates nothing: no call leaves the machine.
type NopEdge struct{}

// Invalidate does nothing.
func (NopEdge) Invalidate(context.Context, ...string) error { return nil }
