package apiauthfn

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/shared/authn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Settings are the authorizer's own environment, beyond config.Config.
type Settings struct {
	// UsageKey is USAGE_PLAN_KEY: the value of this Region's usage-plan
	// key (infra/api), returned as usageIdentifierKey.
	UsageKey string
	// Issuer and ClientID are AUTH_ISSUER and AUTH_CLIENT_ID: the
	// identity provider bearer tokens are checked against. No issuer:
	// every token is refused (401) and API keys still work.
	Issuer, ClientID string
}

// SettingsFrom reads Settings from the environment.
func SettingsFrom(getenv func(string) string) Settings {
	return Settings{UsageKey: getenv("USAGE_PLAN_KEY"), Issuer: getenv("AUTH_ISSUER"), ClientID: getenv("AUTH_CLIENT_ID")}
}

// NewVerifier builds the token verifier of an issuer and app client: the
// constructor hook the entry point wires to Tokens.
type NewVerifier func(issuer, clientID string) (authn.Verifier, error)

// Tokens is the deployed verifier: the issuer's JWKS, access tokens of the
// app client only (the console sends its access token; an ID token is
// for the client itself, per Cognito's guide,
// https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html).
func Tokens(issuer, clientID string) (authn.Verifier, error) {
	return authn.NewJWKS(authn.Options{Issuer: issuer, ClientID: clientID, TokenUse: authn.UseAccess})
}

// Build builds the /v1 authorizer, as its Lambda (functions/apiauth) and
// the local run do: the keys table of this Region (KEYS_TABLE, GetItem
// only, through the resolver's cache), the members table when
// MEMBERS_TABLE names one (GetItem and a Query of its by-user index) and,
// when s names an issuer, the verifier newVerifier makes for it.
func Build(cfg config.Config, c fnclients.Clients, s Settings, newVerifier NewVerifier) (*Handler, error) {
	if err := fnclients.Require(cfg, "KEYS_TABLE"); err != nil {
		return nil, err
	}
	if s.UsageKey == "" {
		return nil, errors.New("configuration: USAGE_PLAN_KEY is not set: every allowed request needs the usage-plan key")
	}
	var v authn.Verifier
	if s.Issuer != "" {
		if newVerifier == nil {
			return nil, errors.New("configuration: AUTH_ISSUER is set, and this build has no token verifier")
		}
		if s.ClientID == "" {
			return nil, errors.New("configuration: AUTH_ISSUER is set without AUTH_CLIENT_ID")
		}
		var err error
		if v, err = newVerifier(s.Issuer, s.ClientID); err != nil {
			return nil, fmt.Errorf("configuration: AUTH_ISSUER: %w", err)
		}
	}
	db := dynamodb.NewFromConfig(c.AWS)
	var members Members
	if cfg.MembersTable != "" {
		// Eventually consistent: a member just added may wait a second
		// for their first call, never get another's role.
		members = fnstores.Members(cfg, db, false)
	}
	return New(Options{
		Keys:     fnstores.Owners(cfg, db),
		Members:  members,
		Verifier: v,
		UsageKey: s.UsageKey,
		Log:      c.Logger("apiauth"),
	}), nil
}
