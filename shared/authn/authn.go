// Package authn is who a signed-in user of the /v1 API is: it checks an
// OpenID Connect token from the deployment's identity provider (Amazon
// Cognito deployed, a local OpenID provider in the local run) and returns
// the claims a caller is known by. The checks are the ones Cognito's own
// guide lists for its tokens (issuer, audience or client, expiry,
// signature against the issuer's JWKS, token use):
// https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html
package authn

import (
	"context"
	"errors"
	"time"
)

// ErrInvalidToken: the token failed a check (malformed, bad signature,
// wrong issuer, audience or token use, expired). Its wrapped message says
// which check, for logs; a caller answers 401 without repeating it.
var ErrInvalidToken = errors.New("invalid token")

// Claims are what a verified token says about its user.
type Claims struct {
	// Subject is the user's stable ID at the issuer ("sub").
	Subject string
	// Username and Email are for display and the audit log; either may
	// be empty.
	Username string
	Email    string
	// ClientID is the app client the token was issued to ("client_id"
	// of an access token, "aud" of an ID token).
	ClientID string
	// TokenUse is "access" or "id" ("token_use").
	TokenUse string
	// Groups are the user's groups at the issuer ("cognito:groups").
	Groups []string
	// Expires is the token's "exp".
	Expires time.Time
}

// Verifier checks a bearer token. A token that fails a check is an error
// wrapping ErrInvalidToken; any other error (the JWKS unreachable, say)
// means the check could not be made, and the caller answers 5xx.
type Verifier interface {
	Verify(ctx context.Context, token string) (Claims, error)
}
