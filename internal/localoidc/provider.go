package localoidc

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/authn"
)

// Cognito's defaults for an app client's token validity: an hour for
// access and ID tokens, 30 days for the refresh token, five minutes for
// an authorization code.
const (
	DefaultTokenTTL   = time.Hour
	DefaultRefreshTTL = 30 * 24 * time.Hour
	CodeTTL           = 5 * time.Minute
)

// Options configure a Provider.
type Options struct {
	// Issuer is the provider's URL as tokens carry it in "iss", with the
	// path it is mounted at: http://127.0.0.1:8080/_local/oidc. The
	// Provider is handed requests with that path stripped.
	Issuer string
	// ClientID is the one app client, public (no secret) as a browser
	// app's is.
	ClientID string
	// CallbackURLs and LogoutURLs are the app client's allowed
	// redirect_uri and logout_uri values, matched exactly, as Cognito
	// matches them.
	CallbackURLs []string
	LogoutURLs   []string
	// TokenTTL and RefreshTTL (DefaultTokenTTL, DefaultRefreshTTL when 0).
	TokenTTL, RefreshTTL time.Duration
	// Key signs the tokens (a fresh 2048-bit key when nil).
	Key *rsa.PrivateKey
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Provider is the local OpenID provider, an http.Handler.
type Provider struct {
	o     Options
	kid   string
	mount string // the issuer's path, for the form's action
	mux   *http.ServeMux

	mu       sync.Mutex
	codes    map[string]grant
	refreshs map[string]grant
}

// grant is what a code or refresh token stands for.
type grant struct {
	user        user
	scope       string
	redirectURI string // a code's
	challenge   string // a code's code_challenge
	nonce       string
	authTime    time.Time
	expires     time.Time
}

type user struct {
	name   string
	groups []string
}

// New returns a provider for opts.
func New(opts Options) (*Provider, error) {
	u, err := url.Parse(opts.Issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("localoidc: issuer %q is not an http(s) URL", opts.Issuer)
	}
	if strings.HasSuffix(opts.Issuer, "/") {
		return nil, fmt.Errorf("localoidc: issuer %q ends in /, which Cognito's never do", opts.Issuer)
	}
	if opts.ClientID == "" {
		return nil, errors.New("localoidc: client ID is empty")
	}
	if len(opts.CallbackURLs) == 0 {
		return nil, errors.New("localoidc: no callback URL")
	}
	if opts.TokenTTL == 0 {
		opts.TokenTTL = DefaultTokenTTL
	}
	if opts.RefreshTTL == 0 {
		opts.RefreshTTL = DefaultRefreshTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Key == nil {
		if opts.Key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			return nil, fmt.Errorf("localoidc: signing key: %w", err)
		}
	}
	sum := sha256.Sum256(opts.Key.PublicKey.N.Bytes())
	p := &Provider{
		o:        opts,
		kid:      base64.RawURLEncoding.EncodeToString(sum[:12]),
		mount:    u.EscapedPath(),
		codes:    map[string]grant{},
		refreshs: map[string]grant{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /.well-known/jwks.json", p.jwks)
	mux.HandleFunc("GET /oauth2/authorize", p.authorize)
	mux.HandleFunc("POST /login", p.login)
	mux.HandleFunc("POST /oauth2/token", p.token)
	mux.HandleFunc("GET /logout", p.logout)
	p.mux = mux
	return p, nil
}

// ServeHTTP answers a request whose path has had the issuer's path
// stripped.
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	p.mux.ServeHTTP(w, r)
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.o.Issuer }

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := p.o.Issuer
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                iss + "/oauth2/authorize",
		"token_endpoint":                        iss + "/oauth2/token",
		"end_session_endpoint":                  iss + "/logout",
		"jwks_uri":                              iss + "/.well-known/jwks.json",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, authn.JWKSet{Keys: []authn.JWK{authn.PublicJWK(p.kid, &p.o.Key.PublicKey)}})
}

// authRequest is an authorize request's parameters.
type authRequest struct {
	ClientID, RedirectURI, State, Scope, Challenge, Method, Nonce string
}

func readAuthRequest(v url.Values) authRequest {
	return authRequest{
		ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"),
		Scope: v.Get("scope"), Challenge: v.Get("code_challenge"), Method: v.Get("code_challenge_method"),
		Nonce: v.Get("nonce"),
	}
}

// challengeRE is an S256 code_challenge: base64url of a SHA-256, 43
// characters (RFC 7636 section 4.2).
var challengeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// check checks an authorize request. An unknown client or redirect URI
// is answered on the page (redirectable false), never by a redirect to
// an address nobody registered; the rest go back to the redirect URI as
// error and error_description (RFC 6749 section 4.1.2.1).
func (p *Provider) check(ar authRequest, responseType string) (code, desc string, redirectable bool) {
	if ar.ClientID != p.o.ClientID {
		return "invalid_request", "unknown client_id", false
	}
	if !slices.Contains(p.o.CallbackURLs, ar.RedirectURI) {
		return "invalid_request", "redirect_uri is not a callback URL of the app client", false
	}
	if responseType != "code" {
		return "unsupported_response_type", "response_type must be code", true
	}
	if ar.Method != "S256" {
		return "invalid_request", "code_challenge_method must be S256", true
	}
	if !challengeRE.MatchString(ar.Challenge) {
		return "invalid_request", "code_challenge must be the base64url SHA-256 of the code_verifier", true
	}
	for s := range strings.FieldsSeq(ar.Scope) {
		if !slices.Contains([]string{"openid", "email", "profile"}, s) {
			return "invalid_scope", fmt.Sprintf("scope %q is not allowed", s), true
		}
	}
	return "", "", true
}

func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ar := readAuthRequest(q)
	if code, desc, ok := p.check(ar, q.Get("response_type")); code != "" {
		p.refuse(w, r, ar, code, desc, ok)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	_ = loginPage.Execute(w, struct {
		Action string
		Req    authRequest
		Error  string
	}{p.mount + "/login", ar, ""})
}

// maxUsername is Cognito's user name limit.
const maxUsername = 128

func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	ar := readAuthRequest(r.PostForm)
	if code, desc, ok := p.check(ar, "code"); code != "" {
		p.refuse(w, r, ar, code, desc, ok)
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("username"))
	if name == "" || len(name) > maxUsername || strings.ContainsFunc(name, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_ = loginPage.Execute(w, struct {
			Action string
			Req    authRequest
			Error  string
		}{p.mount + "/login", ar, fmt.Sprintf("Enter a user name of 1 to %d printable characters.", maxUsername)})
		return
	}
	var groups []string
	for g := range strings.SplitSeq(r.PostForm.Get("groups"), ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	now := p.o.Now()
	code := randomToken()
	p.mu.Lock()
	// Codes never exchanged would pile up over a long local run.
	for c, g := range p.codes {
		if !now.Before(g.expires) {
			delete(p.codes, c)
		}
	}
	p.codes[code] = grant{
		user: user{name: name, groups: groups}, scope: ar.Scope, redirectURI: ar.RedirectURI,
		challenge: ar.Challenge, nonce: ar.Nonce, authTime: now, expires: now.Add(CodeTTL),
	}
	p.mu.Unlock()
	back := url.Values{"code": {code}}
	if ar.State != "" {
		back.Set("state", ar.State)
	}
	http.Redirect(w, r, withQuery(ar.RedirectURI, back), http.StatusFound)
}

// refuse answers an authorize request that failed check.
func (p *Provider) refuse(w http.ResponseWriter, r *http.Request, ar authRequest, code, desc string, redirectable bool) {
	if !redirectable {
		http.Error(w, code+": "+desc, http.StatusBadRequest)
		return
	}
	back := url.Values{"error": {code}, "error_description": {desc}}
	if ar.State != "" {
		back.Set("state", ar.State)
	}
	http.Redirect(w, r, withQuery(ar.RedirectURI, back), http.StatusFound)
}

// token is the token endpoint: the authorization_code grant with its
// code_verifier and the refresh_token grant.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		tokenError(w, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
		return
	}
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", "the body is not a form")
		return
	}
	f := r.PostForm
	if f.Get("client_id") != p.o.ClientID {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client"})
		return
	}
	now := p.o.Now()
	switch f.Get("grant_type") {
	case "authorization_code":
		code := f.Get("code")
		p.mu.Lock()
		g, ok := p.codes[code]
		// A code is good for one exchange, whatever its outcome.
		delete(p.codes, code)
		p.mu.Unlock()
		switch {
		case !ok || !now.Before(g.expires):
			tokenError(w, "invalid_grant", "the code is unknown, used or expired")
		case f.Get("redirect_uri") != g.redirectURI:
			tokenError(w, "invalid_grant", "redirect_uri is not the authorize request's")
		case !verifierMatches(f.Get("code_verifier"), g.challenge):
			tokenError(w, "invalid_grant", "code_verifier does not match the code_challenge")
		default:
			refresh := randomToken()
			rg := g
			rg.redirectURI, rg.challenge, rg.expires = "", "", now.Add(p.o.RefreshTTL)
			p.mu.Lock()
			p.refreshs[refresh] = rg
			p.mu.Unlock()
			p.issue(w, g, now, refresh)
		}
	case "refresh_token":
		p.mu.Lock()
		g, ok := p.refreshs[f.Get("refresh_token")]
		p.mu.Unlock()
		if !ok || !now.Before(g.expires) {
			tokenError(w, "invalid_grant", "the refresh token is unknown or expired")
			return
		}
		// As Cognito without rotation: new access and ID tokens, the
		// same refresh token kept by the client, no nonce.
		g.nonce = ""
		p.issue(w, g, now, "")
	default:
		tokenError(w, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
}

// verifierMatches checks a code_verifier against an S256 challenge
// (RFC 7636 section 4.6); a verifier is 43 to 128 unreserved characters.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 || strings.ContainsFunc(verifier, func(c rune) bool {
		return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c))
	}) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// issue answers with access and ID tokens for g, and refresh when given.
func (p *Provider) issue(w http.ResponseWriter, g grant, now time.Time, refresh string) {
	sub := Subject(g.user.name)
	exp := now.Add(p.o.TokenTTL).Unix()
	common := func() map[string]any {
		c := map[string]any{
			"sub": sub, "iss": p.o.Issuer, "origin_jti": randomToken(), "event_id": randomToken(),
			"auth_time": g.authTime.Unix(), "iat": now.Unix(), "exp": exp, "jti": randomToken(),
		}
		if len(g.user.groups) > 0 {
			c["cognito:groups"] = g.user.groups
		}
		return c
	}
	access := common()
	access["token_use"], access["client_id"], access["username"], access["version"] = "access", p.o.ClientID, g.user.name, 2
	access["scope"] = g.scope
	id := common()
	id["token_use"], id["aud"], id["cognito:username"] = "id", p.o.ClientID, g.user.name
	id["email"], id["email_verified"] = Email(g.user.name), true
	if g.nonce != "" {
		id["nonce"] = g.nonce
	}
	at, err := authn.SignRS256(p.o.Key, p.kid, access)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	it, err := authn.SignRS256(p.o.Key, p.kid, id)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	body := map[string]any{
		"access_token": at, "id_token": it, "token_type": "Bearer",
		"expires_in": int(p.o.TokenTTL / time.Second),
	}
	if refresh != "" {
		body["refresh_token"] = refresh
	}
	writeJSON(w, http.StatusOK, body)
}

// logout checks client_id and logout_uri, as Cognito's /logout does, and
// sends the browser to logout_uri. There is no session to end here.
func (p *Provider) logout(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != p.o.ClientID {
		http.Error(w, "invalid_request: unknown client_id", http.StatusBadRequest)
		return
	}
	to := q.Get("logout_uri")
	if !slices.Contains(p.o.LogoutURLs, to) {
		http.Error(w, "invalid_request: logout_uri is not a sign-out URL of the app client", http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, to, http.StatusFound)
}

// Subject is the stable "sub" of a local user name: a UUID-shaped hash,
// so a user is the same owner across restarts of the local run.
func Subject(name string) string {
	s := sha256.Sum256([]byte("localoidc user\x00" + name))
	s[6] = s[6]&0x0f | 0x50 // shaped as a version 5 UUID
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// Email is a local user's address: the name when it is one, else the
// name at example.com.
func Email(name string) string {
	if strings.Contains(name, "@") {
		return name
	}
	return name + "@example.com"
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func withQuery(base string, v url.Values) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + v.Encode()
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in (local)</title>
<style>body{font:16px system-ui,sans-serif;max-width:22rem;margin:4rem auto}label,input,button{display:block;width:100%;margin:.4rem 0}</style>
</head><body>
<h1>Sign in</h1>
<p>The local run's stand-in for the Cognito hosted sign-in page: any user name signs in.</p>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="username">User name</label>
<input id="username" name="username" autocomplete="username" required maxlength="128" autofocus>
<label for="groups">Groups (optional, comma-separated)</label>
<input id="groups" name="groups">
<input type="hidden" name="client_id" value="{{.Req.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.Req.RedirectURI}}">
<input type="hidden" name="state" value="{{.Req.State}}">
<input type="hidden" name="scope" value="{{.Req.Scope}}">
<input type="hidden" name="code_challenge" value="{{.Req.Challenge}}">
<input type="hidden" name="code_challenge_method" value="{{.Req.Method}}">
<input type="hidden" name="nonce" value="{{.Req.Nonce}}">
<button type="submit">Sign in</button>
</form>
</body></html>
`))
