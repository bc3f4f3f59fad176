package localoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/authn"
)

const (
	mount    = "/_local/oidc"
	clientID = "local-console"
)

var (
	keyOnce sync.Once
	key     *rsa.PrivateKey
)

func testKey() *rsa.PrivateKey {
	keyOnce.Do(func() {
		var err error
		if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return key
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// env is the provider mounted at /_local/oidc on a test server, as the
// local run mounts it, and a browser-like client that does not follow
// redirects.
type env struct {
	srv      *httptest.Server
	clock    *clock
	issuer   string
	callback string
	client   *http.Client
	// lastChallenge is the challenge of the last signIn a test made.
	lastChallenge string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{clock: &clock{t: time.Now()}}
	mux := http.NewServeMux()
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	e.issuer = e.srv.URL + mount
	e.callback = e.srv.URL + "/console/"
	p, err := New(Options{
		Issuer: e.issuer, ClientID: clientID, CallbackURLs: []string{e.callback},
		LogoutURLs: []string{e.callback}, Key: testKey(), Now: e.clock.Now,
	})
	require.NoError(t, err)
	mux.Handle(mount+"/", http.StripPrefix(mount, p))
	e.client = e.srv.Client()
	e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return e
}

func (e *env) verifier(t *testing.T, use string) *authn.JWKS {
	v, err := authn.NewJWKS(authn.Options{Issuer: e.issuer, ClientID: clientID, TokenUse: use, HTTPClient: e.srv.Client(), Now: e.clock.Now})
	require.NoError(t, err)
	return v
}

// pkce returns a code_verifier and its S256 code_challenge.
func pkce() (verifier, challenge string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	verifier = base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func (e *env) authorizeQuery(challenge string) url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {e.callback},
		"state": {"st-1"}, "scope": {"openid email"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "nonce": {"n-1"},
	}
}

// signIn runs authorize and the login form as a browser would and
// returns the code the callback receives.
func (e *env) signIn(t *testing.T, user, groups, challenge string) string {
	t.Helper()
	resp, err := e.client.Get(e.issuer + "/oauth2/authorize?" + e.authorizeQuery(challenge).Encode())
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html")

	form := e.authorizeQuery(challenge)
	form.Del("response_type")
	form.Set("username", user)
	form.Set("groups", groups)
	resp, err = e.client.PostForm(e.issuer+"/login", form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, e.callback, loc.Scheme+"://"+loc.Host+loc.Path)
	assert.Equal(t, "st-1", loc.Query().Get("state"))
	require.NotEmpty(t, loc.Query().Get("code"))
	return loc.Query().Get("code")
}

type tokens struct {
	Access  string `json:"access_token"`
	ID      string `json:"id_token"`
	Refresh string `json:"refresh_token"`
	Type    string `json:"token_type"`
	Expires int    `json:"expires_in"`
	Error   string `json:"error"`
}

func (e *env) post(t *testing.T, form url.Values) (int, tokens) {
	t.Helper()
	resp, err := e.client.PostForm(e.issuer+"/oauth2/token", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	var tk tokens
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tk))
	return resp.StatusCode, tk
}

func (e *env) exchange(t *testing.T, code, verifier string) (int, tokens) {
	return e.post(t, url.Values{
		"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
		"redirect_uri": {e.callback}, "code_verifier": {verifier},
	})
}

func TestPKCEFlowTokensPassTheVerifier(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	// Discovery names the endpoints under the issuer, as Cognito's does.
	resp, err := e.client.Get(e.issuer + "/.well-known/openid-configuration")
	require.NoError(t, err)
	var disc map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&disc))
	resp.Body.Close()
	assert.Equal(t, e.issuer, disc["issuer"])
	assert.Equal(t, e.issuer+"/.well-known/jwks.json", disc["jwks_uri"])
	assert.Equal(t, e.issuer+"/oauth2/token", disc["token_endpoint"])

	verifier, challenge := pkce()
	code := e.signIn(t, "alice", "admins, editors", challenge)
	status, tk := e.exchange(t, code, verifier)
	require.Equal(t, http.StatusOK, status, tk.Error)
	assert.Equal(t, "Bearer", tk.Type)
	assert.Equal(t, 3600, tk.Expires)
	require.NotEmpty(t, tk.Refresh)

	ac, err := e.verifier(t, authn.UseAccess).Verify(ctx, tk.Access)
	require.NoError(t, err)
	assert.Equal(t, authn.Claims{
		Subject: Subject("alice"), Username: "alice", ClientID: clientID, TokenUse: "access",
		Groups: []string{"admins", "editors"}, Expires: time.Unix(e.clock.Now().Add(time.Hour).Unix(), 0),
	}, ac)
	ic, err := e.verifier(t, authn.UseID).Verify(ctx, tk.ID)
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", ic.Email)
	assert.Equal(t, "alice", ic.Username)
	assert.Equal(t, ac.Subject, ic.Subject)

	// The refresh_token grant gives new tokens for the same user.
	e.clock.Advance(2 * time.Hour)
	status, rt := e.post(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {tk.Refresh}})
	require.Equal(t, http.StatusOK, status, rt.Error)
	assert.Empty(t, rt.Refresh, "Cognito keeps the refresh token without rotation")
	rc, err := e.verifier(t, authn.UseAccess).Verify(ctx, rt.Access)
	require.NoError(t, err)
	assert.Equal(t, Subject("alice"), rc.Subject)
}

func TestTokenEndpointRefuses(t *testing.T) {
	tests := []struct {
		name string
		form func(e *env, code, verifier string) url.Values
		want string
	}{
		{"wrong code_verifier", func(e *env, code, _ string) url.Values {
			other, _ := pkce()
			return exchangeForm(e, code, other)
		}, "invalid_grant"},
		{"no code_verifier", func(e *env, code, _ string) url.Values { return exchangeForm(e, code, "") }, "invalid_grant"},
		{"the challenge as the verifier", func(e *env, code, _ string) url.Values {
			f := exchangeForm(e, code, "")
			f.Set("code_verifier", e.lastChallenge)
			return f
		}, "invalid_grant"},
		{"another redirect_uri", func(e *env, code, verifier string) url.Values {
			f := exchangeForm(e, code, verifier)
			f.Set("redirect_uri", e.srv.URL+"/other/")
			return f
		}, "invalid_grant"},
		{"unknown code", func(e *env, _, verifier string) url.Values { return exchangeForm(e, "nope", verifier) }, "invalid_grant"},
		{"another client", func(e *env, code, verifier string) url.Values {
			f := exchangeForm(e, code, verifier)
			f.Set("client_id", "other")
			return f
		}, "invalid_client"},
		{"unknown grant", func(e *env, code, verifier string) url.Values {
			f := exchangeForm(e, code, verifier)
			f.Set("grant_type", "password")
			return f
		}, "unsupported_grant_type"},
		{"unknown refresh token", func(*env, string, string) url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {"nope"}}
		}, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			verifier, challenge := pkce()
			e.lastChallenge = challenge
			code := e.signIn(t, "bob", "", challenge)
			status, tk := e.post(t, tt.form(e, code, verifier))
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Equal(t, tt.want, tk.Error)
			assert.Empty(t, tk.Access)
		})
	}
}

func exchangeForm(e *env, code, verifier string) url.Values {
	return url.Values{
		"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
		"redirect_uri": {e.callback}, "code_verifier": {verifier},
	}
}

func TestCodeIsGoodForOneExchange(t *testing.T) {
	e := newEnv(t)
	verifier, challenge := pkce()
	code := e.signIn(t, "carol", "", challenge)
	status, _ := e.exchange(t, code, verifier)
	require.Equal(t, http.StatusOK, status)
	status, tk := e.exchange(t, code, verifier)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", tk.Error)
}

func TestCodeExpiresAfterFiveMinutes(t *testing.T) {
	e := newEnv(t)
	verifier, challenge := pkce()
	code := e.signIn(t, "carol", "", challenge)
	e.clock.Advance(CodeTTL)
	status, tk := e.exchange(t, code, verifier)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", tk.Error)
}

func TestExpiredTokenRefusedByTheVerifier(t *testing.T) {
	e := newEnv(t)
	verifier, challenge := pkce()
	status, tk := e.exchange(t, e.signIn(t, "dave", "", challenge), verifier)
	require.Equal(t, http.StatusOK, status)
	v := e.verifier(t, authn.UseAccess)
	_, err := v.Verify(context.Background(), tk.Access)
	require.NoError(t, err)
	e.clock.Advance(DefaultTokenTTL + authn.Leeway)
	_, err = v.Verify(context.Background(), tk.Access)
	require.ErrorIs(t, err, authn.ErrInvalidToken)
	assert.Contains(t, err.Error(), "expired")
}

func TestAuthorizeRefuses(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(e *env, q url.Values)
		redirect bool   // the error goes back to the callback
		want     string // error, or the body's start
	}{
		{"no code_challenge", func(_ *env, q url.Values) { q.Del("code_challenge") }, true, "invalid_request"},
		{"plain method", func(_ *env, q url.Values) { q.Set("code_challenge_method", "plain") }, true, "invalid_request"},
		{"no method", func(_ *env, q url.Values) { q.Del("code_challenge_method") }, true, "invalid_request"},
		{"implicit grant", func(_ *env, q url.Values) { q.Set("response_type", "token") }, true, "unsupported_response_type"},
		{"unknown scope", func(_ *env, q url.Values) { q.Set("scope", "openid aws.cognito.signin.user.admin") }, true, "invalid_scope"},
		{"unknown client", func(_ *env, q url.Values) { q.Set("client_id", "other") }, false, "invalid_request: unknown client_id"},
		{"unregistered redirect_uri", func(e *env, q url.Values) { q.Set("redirect_uri", "https://evil.example/") }, false, "invalid_request: redirect_uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, challenge := pkce()
			q := e.authorizeQuery(challenge)
			tt.edit(e, q)
			resp, err := e.client.Get(e.issuer + "/oauth2/authorize?" + q.Encode())
			require.NoError(t, err)
			defer resp.Body.Close()
			if !tt.redirect {
				assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
				assert.Empty(t, resp.Header.Get("Location"))
				b, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(string(b), tt.want), string(b))
				return
			}
			require.Equal(t, http.StatusFound, resp.StatusCode)
			loc, err := url.Parse(resp.Header.Get("Location"))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(loc.String(), e.callback+"?"))
			assert.Equal(t, tt.want, loc.Query().Get("error"))
			assert.Equal(t, "st-1", loc.Query().Get("state"))
			assert.Empty(t, loc.Query().Get("code"))
		})
	}
}

func TestLoginRefusesAnEmptyUserName(t *testing.T) {
	e := newEnv(t)
	_, challenge := pkce()
	form := e.authorizeQuery(challenge)
	form.Set("username", "  ")
	resp, err := e.client.PostForm(e.issuer+"/login", form)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Location"))
}

func TestLogout(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		q      url.Values
		status int
	}{
		{"to a sign-out URL", url.Values{"client_id": {clientID}, "logout_uri": {e.callback}}, http.StatusFound},
		{"to another URL", url.Values{"client_id": {clientID}, "logout_uri": {"https://evil.example/"}}, http.StatusBadRequest},
		{"another client", url.Values{"client_id": {"other"}, "logout_uri": {e.callback}}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := e.client.Get(e.issuer + "/logout?" + tt.q.Encode())
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.status == http.StatusFound {
				assert.Equal(t, e.callback, resp.Header.Get("Location"))
			}
		})
	}
}

func TestSubjectIsStableAndUUIDShaped(t *testing.T) {
	assert.Equal(t, Subject("alice"), Subject("alice"))
	assert.NotEqual(t, Subject("alice"), Subject("Alice"))
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, Subject("alice"))
}

func TestNewRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no issuer", Options{ClientID: "c", CallbackURLs: []string{"http://x/"}}},
		{"issuer with a trailing slash", Options{Issuer: "http://127.0.0.1/_local/oidc/", ClientID: "c", CallbackURLs: []string{"http://x/"}}},
		{"no client", Options{Issuer: "http://127.0.0.1/_local/oidc", CallbackURLs: []string{"http://x/"}}},
		{"no callback", Options{Issuer: "http://127.0.0.1/_local/oidc", ClientID: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Key = testKey()
			_, err := New(tt.opts)
			require.Error(t, err)
		})
	}
}
