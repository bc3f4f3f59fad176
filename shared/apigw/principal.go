package apigw

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apikey"
)

// The authorizer context keys the /v1 Lambda authorizer (functions/apiauth)
// returns and API Gateway hands every function in
// requestContext.authorizer ($context.authorizer.<key>,
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-lambda-authorizer-output.html).
const (
	AuthorizerOwner    = "owner"
	AuthorizerRole     = "role"
	AuthorizerActor    = "actor"
	AuthorizerUsername = "username"
)

// RoleAdmin is the strongest role, and the role of a caller whose
// credential carries none: every API key written before keys had roles.
const RoleAdmin = "admin"

// Principal is who is calling: the owner whose links the call reads and
// writes, the caller's role in it, and the actor for logs and the audit
// trail ("key:<first 8 of the key's hash>" or "user:<sub>").
type Principal struct {
	Owner string
	Role  string
	Actor string
	// Username is a signed-in user's name (the authorizer's "username");
	// empty for an API key.
	Username string
}

// KeyActor is the actor an API key is known by: "key:" and the first 8
// hex digits of its hash, enough to tell keys apart in a log, never the key.
func KeyActor(hash string) string {
	return "key:" + hash[:min(8, len(hash))]
}

// UserActor is the actor a signed-in user is known by: "user:" and the
// token's subject.
func UserActor(sub string) string { return "user:" + sub }

// Caller returns the principal the /v1 authorizer established, and
// whether there is one: requestContext.authorizer carries an owner. Only
// API Gateway writes requestContext (a client's headers never reach it),
// so a function behind the authorizer may trust it. A role the context
// leaves empty is RoleAdmin.
func Caller(req *events.APIGatewayProxyRequest) (Principal, bool) {
	ctx := req.RequestContext.Authorizer
	owner, _ := ctx[AuthorizerOwner].(string)
	if owner == "" {
		return Principal{}, false
	}
	p := Principal{Owner: owner}
	p.Role, _ = ctx[AuthorizerRole].(string)
	p.Actor, _ = ctx[AuthorizerActor].(string)
	p.Username, _ = ctx[AuthorizerUsername].(string)
	if p.Role == "" {
		p.Role = RoleAdmin
	}
	return p, true
}

// Resolve returns the caller's principal: the authorizer's (Caller) when
// API Gateway ran it, otherwise the API key's owner as Owner finds it,
// with the role a key without one has and the key's actor.
func Resolve(ctx context.Context, req *events.APIGatewayProxyRequest, owners Owners) (Principal, error) {
	if p, ok := Caller(req); ok {
		return p, nil
	}
	owner, err := keyOwner(ctx, req, owners)
	if err != nil {
		return Principal{}, err
	}
	role := RoleAdmin
	if l, ok := owners.(interface {
		Lookup(ctx context.Context, key string) (apikey.Record, error)
	}); ok {
		// The key's own role (the resolver caches the record Owner read).
		rec, err := l.Lookup(ctx, req.RequestContext.Identity.APIKey)
		if err != nil {
			return Principal{}, err
		}
		role = rec.RoleOrAdmin()
	}
	return Principal{Owner: owner, Role: role, Actor: KeyActor(apikey.Hash(req.RequestContext.Identity.APIKey))}, nil
}
