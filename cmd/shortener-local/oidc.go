package main

import (
	"net/http"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/internal/localoidc"
)

// oidcPath is where the local OpenID provider (internal/localoidc) plays
// the Cognito user pool and its hosted domain: the issuer is the local
// run's origin and this path, given to the functions as AUTH_ISSUER.
const oidcPath = "/_local/oidc"

// localClientID is the local app client's ID (AUTH_CLIENT_ID unless set).
const localClientID = "local-console"

// newOIDC makes the local OpenID provider for the local run at base,
// with the console as its callback and sign-out URL, as infra/auth
// registers the console's origin for the deployed app client.
func newOIDC(base, clientID string) (http.Handler, error) {
	p, err := localoidc.New(localoidc.Options{
		Issuer:       base + oidcPath,
		ClientID:     clientID,
		CallbackURLs: []string{base + "/console/"},
		LogoutURLs:   []string{base + "/console/"},
	})
	if err != nil {
		return nil, err
	}
	return http.StripPrefix(oidcPath, p), nil
}

// consoleConfig is the console's config.json in the local run: sign-in
// through the local provider when the functions check its tokens (the
// default AUTH_ISSUER), else the API key alone. Its endpoints are on the
// console's own origin, so the console's CSP is the one without sign-in.
func consoleConfig(base, issuer, clientID string) console.Config {
	if issuer != base+oidcPath {
		return console.Config{}
	}
	return console.Config{Auth: console.HostedAuth(issuer, issuer, clientID, base+console.PathPrefix)}
}
