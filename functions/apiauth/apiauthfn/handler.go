package apiauthfn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/authn"
)

// ErrUnauthorized is the error API Gateway turns into its 401
// (UNAUTHORIZED gateway response): it must be exactly "Unauthorized"
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-output.html).
var ErrUnauthorized = errors.New("Unauthorized")

// Keys finds an API key's record: *apikey.Resolver over the keys table.
type Keys interface {
	Lookup(ctx context.Context, key string) (apikey.Record, error)
}

var _ Keys = (*apikey.Resolver)(nil)

// Options are what New builds a Handler from.
type Options struct {
	Keys Keys
	// Verifier checks bearer tokens; nil refuses every token (401), as
	// a deployment without an identity provider does.
	Verifier authn.Verifier
	// UsageKey is the value of this Region's usage-plan key, returned as
	// usageIdentifierKey on every Allow.
	UsageKey string
	Log      *slog.Logger
}

// Handler answers REST API REQUEST authorizer events.
type Handler struct {
	Options
}

// New builds a handler from o.
func New(o Options) *Handler {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Handler{Options: o}
}

// Handle decides one request. It returns ErrUnauthorized for a request
// without a usable credential (401), a Deny for an unknown or revoked key
// (403), an Allow with the caller's context otherwise, and any other
// error (API Gateway's 500, AUTHORIZER_FAILURE) only when the check could
// not be made: the keys table or the issuer's keys unreachable.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	resource, err := apiARN(req.MethodArn)
	if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, err
	}
	key := header(req, "x-api-key")
	authz := header(req, "authorization")
	log := h.Log.With("request_id", req.RequestContext.RequestID, "method", req.HTTPMethod, "resource", req.Resource)
	switch {
	case key != "" && authz != "":
		// Two credentials are one too many: which one wins must not be
		// a guess.
		log.WarnContext(ctx, "refused: both an API key and an Authorization header")
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	case key != "":
		return h.byKey(ctx, log, key, req.MethodArn, resource)
	case authz != "":
		return h.byToken(ctx, log, authz, resource)
	}
	return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
}

func (h *Handler) byKey(ctx context.Context, log *slog.Logger, key, methodARN, resource string) (events.APIGatewayCustomAuthorizerResponse, error) {
	hash := apikey.Hash(key)
	actor := apigw.KeyActor(hash)
	rec, err := h.Keys.Lookup(ctx, key)
	switch {
	case errors.Is(err, apikey.ErrUnknown), errors.Is(err, apikey.ErrRevoked):
		// The hash's prefix, never the key.
		log.WarnContext(ctx, "refused: "+err.Error(), "actor", actor)
		return deny(actor, methodARN), nil
	case err != nil:
		return events.APIGatewayCustomAuthorizerResponse{}, fmt.Errorf("look up the api key: %w", err)
	}
	// Keys carry no role yet: a key without one is its owner's admin.
	return h.allow(resource, apigw.Principal{Owner: rec.Owner, Role: apigw.RoleAdmin, Actor: actor}, ""), nil
}

func (h *Handler) byToken(ctx context.Context, log *slog.Logger, authz, resource string) (events.APIGatewayCustomAuthorizerResponse, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(authz), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		log.WarnContext(ctx, "refused: the Authorization header is not a bearer token")
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	if h.Verifier == nil {
		log.WarnContext(ctx, "refused: a bearer token, and no identity provider is configured (AUTH_ISSUER)")
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	claims, err := h.Verifier.Verify(ctx, token)
	switch {
	case errors.Is(err, authn.ErrInvalidToken):
		// The check that failed, never the token.
		log.WarnContext(ctx, "refused: "+err.Error())
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	case err != nil:
		return events.APIGatewayCustomAuthorizerResponse{}, fmt.Errorf("verify the token: %w", err)
	}
	owner := UserOwner(claims.Subject)
	if claims.Subject == "" || apikey.CheckOwner(owner) != nil {
		log.WarnContext(ctx, "refused: the token's subject cannot name an owner")
		return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
	}
	username := claims.Username
	if username == "" {
		username = claims.Email
	}
	return h.allow(resource, apigw.Principal{Owner: owner, Role: apigw.RoleAdmin, Actor: apigw.UserActor(claims.Subject)}, username), nil
}

// UserOwner is the owner a signed-in user's links belong to until
// workspaces exist: the user's own, named after the token's subject.
func UserOwner(sub string) string { return "user:" + sub }

func (h *Handler) allow(resource string, p apigw.Principal, username string) events.APIGatewayCustomAuthorizerResponse {
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID:    p.Actor,
		PolicyDocument: policy("Allow", resource),
		Context: map[string]any{
			apigw.AuthorizerOwner:    p.Owner,
			apigw.AuthorizerRole:     p.Role,
			apigw.AuthorizerActor:    p.Actor,
			apigw.AuthorizerUsername: username,
		},
		UsageIdentifierKey: h.UsageKey,
	}
}

func deny(actor, methodARN string) events.APIGatewayCustomAuthorizerResponse {
	return events.APIGatewayCustomAuthorizerResponse{PrincipalID: actor, PolicyDocument: policy("Deny", methodARN)}
}

func policy(effect, resource string) events.APIGatewayCustomAuthorizerPolicy {
	return events.APIGatewayCustomAuthorizerPolicy{
		Version:   "2012-10-17",
		Statement: []events.IAMPolicyStatement{{Action: []string{"execute-api:Invoke"}, Effect: effect, Resource: []string{resource}}},
	}
}

// apiARN is the ARN of every method of every stage of the method's API:
// arn:aws:execute-api:region:account:api-id/stage/METHOD/path becomes
// arn:aws:execute-api:region:account:api-id/*.
func apiARN(methodARN string) (string, error) {
	parts := strings.SplitN(methodARN, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "execute-api" {
		return "", fmt.Errorf("method ARN %q is not an execute-api ARN", methodARN)
	}
	api, _, ok := strings.Cut(parts[5], "/")
	if !ok || api == "" {
		return "", fmt.Errorf("method ARN %q names no API", methodARN)
	}
	return strings.Join(parts[:5], ":") + ":" + api + "/*", nil
}

// header is the request's header name, whatever its case: API Gateway
// passes header names as the client sent them. Of repeated values the
// last, as Headers keeps.
func header(req events.APIGatewayCustomAuthorizerRequestTypeRequest, name string) string {
	var v string
	for k, vs := range req.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			v = vs[len(vs)-1]
		}
	}
	if v != "" {
		return strings.TrimSpace(v)
	}
	for k, s := range req.Headers {
		if strings.EqualFold(k, name) {
			v = s
		}
	}
	return strings.TrimSpace(v)
}
