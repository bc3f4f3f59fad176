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
	"github.com/shortlink-dev/shortener/shared/workspace"
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

// Members finds a signed-in user's memberships: *dynamo.MemberStore over
// the members table (GetItem and a Query of its by-user index only).
type Members interface {
	Get(ctx context.Context, ws, user string) (workspace.Member, error)
	OfUser(ctx context.Context, user string, limit int) ([]workspace.Member, error)
}

var _ Members = (workspace.Store)(nil)

// WorkspaceHeader names the workspace a call is about
// (docs/teams.md): a member's other workspace, by its ID.
const WorkspaceHeader = "X-Workspace"

// Options are what New builds a Handler from.
type Options struct {
	Keys Keys
	// Members are the workspaces' members; nil: every signed-in user is
	// the admin of their personal workspace, and nothing else.
	Members Members
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
// without a usable credential (401), a Deny for an unknown, revoked or
// expired key (403), an Allow with the caller's context otherwise, and any other
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
		return h.byKey(ctx, log, key, header(req, WorkspaceHeader), req.MethodArn, resource)
	case authz != "":
		return h.byToken(ctx, log, authz, header(req, WorkspaceHeader), req.MethodArn, resource)
	}
	return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
}

func (h *Handler) byKey(ctx context.Context, log *slog.Logger, key, ws, methodARN, resource string) (events.APIGatewayCustomAuthorizerResponse, error) {
	hash := apikey.Hash(key)
	actor := apigw.KeyActor(hash)
	rec, err := h.Keys.Lookup(ctx, key)
	switch {
	case errors.Is(err, apikey.ErrUnknown), errors.Is(err, apikey.ErrRevoked), errors.Is(err, apikey.ErrExpired):
		// The hash's prefix, never the key.
		log.WarnContext(ctx, "refused: "+err.Error(), "actor", actor)
		return deny(actor, methodARN), nil
	case err != nil:
		return events.APIGatewayCustomAuthorizerResponse{}, fmt.Errorf("look up the api key: %w", err)
	}
	if ws != "" && ws != rec.Owner {
		// A key belongs to one workspace; naming another is refused as
		// an unknown key is, whether that workspace exists or not.
		log.WarnContext(ctx, "refused: X-Workspace names another workspace than the key's", "actor", actor)
		return deny(actor, methodARN), nil
	}
	// A key without a role (every key written before keys had roles) is
	// its workspace's admin.
	return h.allow(resource, apigw.Principal{Owner: rec.Owner, Role: rec.RoleOrAdmin(), Actor: actor}, ""), nil
}

func (h *Handler) byToken(ctx context.Context, log *slog.Logger, authz, ws, methodARN, resource string) (events.APIGatewayCustomAuthorizerResponse, error) {
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
	actor := apigw.UserActor(claims.Subject)
	ws, role, err := h.workspaceOf(ctx, claims.Subject, ws)
	switch {
	case errors.Is(err, workspace.ErrNotMember):
		// Not 403 missing-role, which would say the workspace exists: a
		// workspace one is not a member of is refused as a bad credential
		// is, whether it exists or not.
		log.WarnContext(ctx, "refused: X-Workspace names a workspace the user is not a member of", "actor", actor)
		return deny(actor, methodARN), nil
	case err != nil:
		return events.APIGatewayCustomAuthorizerResponse{}, err
	}
	return h.allow(resource, apigw.Principal{Owner: ws, Role: role, Actor: actor}, username), nil
}

// workspaceOf is the workspace and role of the user sub for a request
// whose X-Workspace is ws: that workspace when one is named (the personal
// one, or one the user is a member of: workspace.ErrNotMember otherwise);
// without one, the user's only membership, or else their personal
// workspace, whose admin they always are.
func (h *Handler) workspaceOf(ctx context.Context, sub, ws string) (string, string, error) {
	personal := UserOwner(sub)
	if ws == personal || (ws == "" && h.Members == nil) {
		return personal, apigw.RoleAdmin, nil
	}
	if h.Members == nil {
		return "", "", workspace.ErrNotMember
	}
	if ws != "" {
		if workspace.CheckID("workspace", ws) != nil {
			return "", "", workspace.ErrNotMember
		}
		m, err := h.Members.Get(ctx, ws, sub)
		if err != nil {
			if errors.Is(err, workspace.ErrNotMember) {
				return "", "", err
			}
			return "", "", fmt.Errorf("read the membership: %w", err)
		}
		return m.Workspace, m.Role, nil
	}
	// Two are enough to tell one membership from several.
	ms, err := h.Members.OfUser(ctx, sub, 2)
	if err != nil {
		return "", "", fmt.Errorf("read the memberships: %w", err)
	}
	if len(ms) == 1 {
		return ms[0].Workspace, ms[0].Role, nil
	}
	return personal, apigw.RoleAdmin, nil
}

// UserOwner is a signed-in user's personal workspace, named after the
// token's subject: the owner of their links before workspaces existed.
func UserOwner(sub string) string { return workspace.Personal(sub) }

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
