package apigw

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apikey"
)

// Owners finds the owner an API key belongs to: *apikey.Resolver over the
// keys table in every deployment.
type Owners interface {
	Owner(ctx context.Context, apiKey string) (string, error)
}

var _ Owners = (*apikey.Resolver)(nil)

// ErrNoOwners: a handler was built without an Owners; it refuses every
// request rather than guess who the caller is.
var ErrNoOwners = errors.New("no owner resolver configured")

// Owner returns the caller's owner. Behind the /v1 Lambda authorizer
// (functions/apiauth) it is the owner the authorizer found for the key or
// the signed-in user, in requestContext.authorizer (Caller). Without one,
// it is the API key API Gateway checked, requestContext.identity.apiKey ($context.identity.apiKey,
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html),
// looked up in the keys table. Never the key's ID (identity.apiKeyId): that
// changes with every new key and differs per Region, so it cannot name an
// owner whose links outlive the key. A missing key is ErrUnauthenticated
// (401); an unknown or revoked key is ErrForbidden (403).
func Owner(ctx context.Context, req *events.APIGatewayProxyRequest, owners Owners) (string, error) {
	if p, ok := Caller(req); ok {
		return p.Owner, nil
	}
	return keyOwner(ctx, req, owners)
}

// keyOwner is the owner of the request's identity.apiKey.
func keyOwner(ctx context.Context, req *events.APIGatewayProxyRequest, owners Owners) (string, error) {
	key := req.RequestContext.Identity.APIKey
	if key == "" {
		return "", ErrUnauthenticated
	}
	if owners == nil {
		return "", ErrNoOwners
	}
	owner, err := owners.Owner(ctx, key)
	switch {
	case errors.Is(err, apikey.ErrUnknown), errors.Is(err, apikey.ErrRevoked), errors.Is(err, apikey.ErrExpired):
		return "", fmt.Errorf("%w: %w", ErrForbidden, err)
	case err != nil:
		return "", err
	}
	return owner, nil
}
