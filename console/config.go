package console

import (
	"encoding/json"
	"net/url"
	"strings"
)

// ConfigKey is the console's settings file below its folder, served as
// /console/config.json: the deployment writes it (infra/webconsole into the
// bucket, the local run in its bucket stand-in) and the console reads it
// before it shows anything. It is HTML-like: never cached.
const ConfigKey = "config.json"

// Config is what config.json holds. The console's API is on its own
// origin (/v1), so the file says only whether people sign in through
// the deployment's identity provider and where.
type Config struct {
	// Auth is the identity provider; nil when sign-in is off, and then
	// the console offers only the API key, as before sign-in existed.
	Auth *AuthConfig `json:"auth,omitempty"`
}

// AuthConfig is the identity provider and the console's app client there:
// a public client using the authorization code grant with PKCE (S256).
type AuthConfig struct {
	// Issuer is the tokens' "iss" (the /v1 authorizer's AUTH_ISSUER).
	Issuer string `json:"issuer"`
	// ClientID is the app client (AUTH_CLIENT_ID).
	ClientID string `json:"clientId"`
	// AuthorizeURL, TokenURL and LogoutURL are the provider's endpoints:
	// Cognito's on its hosted domain, /oauth2/authorize, /oauth2/token
	// and /logout
	// (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-userpools-server-contract-reference.html).
	AuthorizeURL string `json:"authorizeUrl"`
	TokenURL     string `json:"tokenUrl"`
	LogoutURL    string `json:"logoutUrl"`
	// RedirectURI is the console's URL registered with the app client as
	// its callback and sign-out URL.
	RedirectURI string `json:"redirectUri"`
	// Scope is what the console asks for.
	Scope string `json:"scope"`
}

// Scope is the scopes the console asks for: those the app client allows.
const Scope = "openid email profile"

// HostedAuth is the configuration for an identity provider whose
// endpoints are Cognito's under base (a hosted domain's URL, or the local
// provider's issuer): /oauth2/authorize, /oauth2/token, /logout.
func HostedAuth(base, issuer, clientID, redirectURI string) *AuthConfig {
	base = strings.TrimSuffix(base, "/")
	return &AuthConfig{
		Issuer: issuer, ClientID: clientID,
		AuthorizeURL: base + "/oauth2/authorize", TokenURL: base + "/oauth2/token", LogoutURL: base + "/logout",
		RedirectURI: redirectURI, Scope: Scope,
	}
}

// JSON is c as config.json holds it.
func (c Config) JSON() []byte {
	b, err := json.Marshal(c)
	if err != nil { // only strings: never
		panic(err)
	}
	return append(b, '\n')
}

// TokenOrigin is the origin the console calls for tokens (the token
// endpoint's), which its CSP's connect-src must allow; empty when sign-in
// is off or the endpoint is on the console's own origin (pageOrigin),
// which 'self' covers.
func (c Config) TokenOrigin(pageOrigin string) string {
	if c.Auth == nil {
		return ""
	}
	return Origin(c.Auth.TokenURL, pageOrigin)
}

// Origin is rawURL's origin (scheme://host[:port]), or "" when it is
// pageOrigin or not an absolute http(s) URL.
func Origin(rawURL, pageOrigin string) string {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	o := u.Scheme + "://" + u.Host
	if o == strings.TrimSuffix(pageOrigin, "/") {
		return ""
	}
	return o
}

// CSP is the console's Content-Security-Policy when it fetches tokens
// from tokenOrigin, a token endpoint on another origin (Cognito's hosted
// domain): connect-src allows 'self' and that one origin, nothing
// broader. An empty tokenOrigin is ContentSecurityPolicy. Sign-in and
// sign-out are top-level navigations, which no directive restricts, so
// form-action stays 'none'.
func CSP(tokenOrigin string) string {
	if tokenOrigin == "" {
		return ContentSecurityPolicy
	}
	return strings.Replace(ContentSecurityPolicy, "connect-src 'self';", "connect-src 'self' "+tokenOrigin+";", 1)
}
