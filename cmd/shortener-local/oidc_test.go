package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/console"
)

// TestConsoleConfig: the local console signs in through the local
// provider, on its own origin, when the functions check that provider's
// tokens; given another issuer, it offers the API key alone.
func TestConsoleConfig(t *testing.T) {
	const base = "http://127.0.0.1:8080"
	for _, tt := range []struct {
		name, issuer string
		want         console.Config
	}{
		{"the local provider", base + oidcPath, console.Config{Auth: &console.AuthConfig{
			Issuer: base + oidcPath, ClientID: localClientID,
			AuthorizeURL: base + oidcPath + "/oauth2/authorize", TokenURL: base + oidcPath + "/oauth2/token",
			LogoutURL: base + oidcPath + "/logout", RedirectURI: base + "/console/", Scope: console.Scope,
		}}},
		{"another issuer", "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc", console.Config{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := consoleConfig(base, tt.issuer, localClientID)
			assert.Equal(t, tt.want, c)
			assert.Empty(t, c.TokenOrigin(base), "same origin: the CSP's 'self' covers it")
		})
	}
}
