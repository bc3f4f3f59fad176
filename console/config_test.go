package console

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCSP(t *testing.T) {
	for _, tt := range []struct {
		name, origin, want string
	}{
		{"sign-in off or on the same origin", "", ContentSecurityPolicy},
		{"a hosted domain", "https://shortener-sho-rt.auth.eu-west-1.amazoncognito.com",
			"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
				"connect-src 'self' https://shortener-sho-rt.auth.eu-west-1.amazoncognito.com; font-src 'self'; manifest-src 'self'; " +
				"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CSP(tt.origin))
		})
	}
}

func TestTokenOrigin(t *testing.T) {
	const page = "https://sho.rt"
	hosted := Config{Auth: HostedAuth("https://p.auth.eu-west-1.amazoncognito.com", "https://cognito-idp.eu-west-1.amazonaws.com/pool", "c", page+"/console/")}
	local := Config{Auth: HostedAuth("http://127.0.0.1:8080/_local/oidc", "http://127.0.0.1:8080/_local/oidc", "local-console", "http://127.0.0.1:8080/console/")}
	for _, tt := range []struct {
		name       string
		c          Config
		page, want string
	}{
		{"off", Config{}, page, ""},
		{"Cognito", hosted, page, "https://p.auth.eu-west-1.amazoncognito.com"},
		{"local, same origin", local, "http://127.0.0.1:8080", ""},
		{"local seen from elsewhere", local, page, "http://127.0.0.1:8080"},
		{"not a URL", Config{Auth: &AuthConfig{TokenURL: "/oauth2/token"}}, page, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.c.TokenOrigin(tt.page))
		})
	}
}

func TestConfigJSON(t *testing.T) {
	assert.Equal(t, "{}\n", string(Config{}.JSON()), "sign-in off")
	c := Config{Auth: HostedAuth("https://p.auth.eu-west-1.amazoncognito.com/", "iss", "client", "https://sho.rt/console/")}
	var m map[string]map[string]string
	require.NoError(t, json.Unmarshal(c.JSON(), &m))
	assert.Equal(t, map[string]string{
		"issuer": "iss", "clientId": "client",
		"authorizeUrl": "https://p.auth.eu-west-1.amazoncognito.com/oauth2/authorize",
		"tokenUrl":     "https://p.auth.eu-west-1.amazoncognito.com/oauth2/token",
		"logoutUrl":    "https://p.auth.eu-west-1.amazoncognito.com/logout",
		"redirectUri":  "https://sho.rt/console/", "scope": "openid email profile",
	}, m["auth"])
}
