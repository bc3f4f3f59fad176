package authn

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testIssuer = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example"
	testClient = "3n4b5urk1ft4fl3mg5e62d9ado"
)

var (
	keysOnce         sync.Once
	keyA, keyB, keyC *rsa.PrivateKey
)

// testKeys are generated once per test binary: 2048-bit keys take a
// moment each.
func testKeys(t testing.TB) (a, b, c *rsa.PrivateKey) {
	keysOnce.Do(func() {
		for _, k := range []**rsa.PrivateKey{&keyA, &keyB, &keyC} {
			var err error
			if *k, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
				panic(err)
			}
		}
	})
	return keyA, keyB, keyC
}

// issuer serves a JWKS document at the issuer's well-known path through
// an http.Client, counting the fetches.
type issuer struct {
	mu      sync.Mutex
	doc     []byte
	status  int
	fetches atomic.Int32
}

func (is *issuer) set(t testing.TB, keys map[string]*rsa.PublicKey) {
	var set JWKSet
	for kid, k := range keys {
		set.Keys = append(set.Keys, PublicJWK(kid, k))
	}
	b, err := json.Marshal(set)
	require.NoError(t, err)
	is.mu.Lock()
	is.doc, is.status = b, http.StatusOK
	is.mu.Unlock()
}

func (is *issuer) RoundTrip(r *http.Request) (*http.Response, error) {
	is.fetches.Add(1)
	if r.URL.String() != testIssuer+"/.well-known/jwks.json" {
		return &http.Response{StatusCode: http.StatusNotFound, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	return &http.Response{StatusCode: is.status, Body: io.NopCloser(strings.NewReader(string(is.doc))), Request: r}, nil
}

// clock is a settable Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time             { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration)    { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock() *clock                      { return &clock{t: time.Unix(1_800_000_000, 0)} }
func (c *clock) unix(d time.Duration) int64 { return c.Now().Add(d).Unix() }

type fixture struct {
	is    *issuer
	clock *clock
	v     *JWKS
}

func newFixture(t testing.TB, use string) *fixture {
	a, b, _ := testKeys(t)
	f := &fixture{is: &issuer{}, clock: newClock()}
	f.is.set(t, map[string]*rsa.PublicKey{"kid-a": &a.PublicKey, "kid-b": &b.PublicKey})
	var err error
	f.v, err = NewJWKS(Options{
		Issuer: testIssuer, ClientID: testClient, TokenUse: use,
		HTTPClient: &http.Client{Transport: f.is}, Now: f.clock.Now,
	})
	require.NoError(t, err)
	return f
}

// accessClaims are a Cognito access token's claims, issued a minute ago
// for an hour.
func (f *fixture) accessClaims() map[string]any {
	return map[string]any{
		"sub": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "iss": testIssuer, "client_id": testClient,
		"origin_jti": "x", "event_id": "y", "token_use": "access", "scope": "openid email",
		"auth_time": f.clock.unix(-time.Minute), "iat": f.clock.unix(-time.Minute), "exp": f.clock.unix(59 * time.Minute),
		"jti": "z", "username": "alice", "cognito:groups": []string{"admins"},
	}
}

func (f *fixture) idClaims() map[string]any {
	return map[string]any{
		"sub": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "iss": testIssuer, "aud": testClient,
		"token_use": "id", "auth_time": f.clock.unix(-time.Minute), "iat": f.clock.unix(-time.Minute),
		"exp": f.clock.unix(59 * time.Minute), "cognito:username": "alice", "email": "alice@example.com",
		"email_verified": true,
	}
}

func sign(t testing.TB, key *rsa.PrivateKey, kid string, claims any) string {
	tok, err := SignRS256(key, kid, claims)
	require.NoError(t, err)
	return tok
}

// raw builds a token from a header and payload as given, signed by key
// (or with sig when key is nil).
func raw(t testing.TB, hdr, payload string, key *rsa.PrivateKey, sig string) string {
	s := b64.EncodeToString([]byte(hdr)) + "." + b64.EncodeToString([]byte(payload))
	if key == nil {
		return s + "." + sig
	}
	full, err := signInput(key, s)
	require.NoError(t, err)
	return full
}

func TestVerifyAccepts(t *testing.T) {
	a, b, _ := testKeys(t)
	t.Run("access token", func(t *testing.T) {
		f := newFixture(t, UseAccess)
		c, err := f.v.Verify(context.Background(), sign(t, a, "kid-a", f.accessClaims()))
		require.NoError(t, err)
		assert.Equal(t, Claims{
			Subject: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", Username: "alice", ClientID: testClient,
			TokenUse: "access", Groups: []string{"admins"}, Expires: f.clock.Now().Add(59 * time.Minute),
		}, c)
	})
	t.Run("id token, second key", func(t *testing.T) {
		f := newFixture(t, UseID)
		c, err := f.v.Verify(context.Background(), sign(t, b, "kid-b", f.idClaims()))
		require.NoError(t, err)
		assert.Equal(t, Claims{
			Subject: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", Username: "alice", Email: "alice@example.com",
			ClientID: testClient, TokenUse: "id", Expires: f.clock.Now().Add(59 * time.Minute),
		}, c)
	})
	t.Run("aud as a one-element array", func(t *testing.T) {
		f := newFixture(t, UseID)
		c := f.idClaims()
		c["aud"] = []string{testClient}
		_, err := f.v.Verify(context.Background(), sign(t, a, "kid-a", c))
		require.NoError(t, err)
	})
	t.Run("expired less than the leeway ago", func(t *testing.T) {
		f := newFixture(t, UseAccess)
		tok := sign(t, a, "kid-a", f.accessClaims())
		f.clock.Advance(59*time.Minute + Leeway - time.Second)
		_, err := f.v.Verify(context.Background(), tok)
		require.NoError(t, err)
	})
	t.Run("iat and nbf within the leeway ahead", func(t *testing.T) {
		f := newFixture(t, UseAccess)
		c := f.accessClaims()
		c["iat"], c["nbf"] = f.clock.unix(30*time.Second), f.clock.unix(30*time.Second)
		_, err := f.v.Verify(context.Background(), sign(t, a, "kid-a", c))
		require.NoError(t, err)
	})
}

func TestVerifyRefuses(t *testing.T) {
	a, _, other := testKeys(t)
	with := func(f *fixture, use string, edit func(map[string]any)) map[string]any {
		c := f.accessClaims()
		if use == UseID {
			c = f.idClaims()
		}
		edit(c)
		return c
	}
	good := `{"alg":"RS256","kid":"kid-a"}`
	tests := []struct {
		name  string
		use   string
		token func(t *testing.T, f *fixture) string
		want  string
	}{
		{"empty", UseAccess, func(*testing.T, *fixture) string { return "" }, "token is empty"},
		{"too long", UseAccess, func(*testing.T, *fixture) string { return strings.Repeat("a", MaxTokenBytes+1) }, "over"},
		{"two parts", UseAccess, func(*testing.T, *fixture) string { return "a.b" }, "2 parts"},
		{"five parts (JWE)", UseAccess, func(*testing.T, *fixture) string { return "a.b.c.d.e" }, "5 parts"},
		{"header not base64url", UseAccess, func(*testing.T, *fixture) string { return "e30=.e30.c2ln" }, "header is not base64url"},
		{"header not JSON", UseAccess, func(t *testing.T, _ *fixture) string { return raw(t, `[1]`, `{}`, nil, "c2ln") }, "header is not a JSON object"},
		{"header trailing data", UseAccess, func(t *testing.T, _ *fixture) string { return raw(t, good+`{}`, `{}`, nil, "c2ln") }, "header is not a JSON object"},
		{"alg none", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"none","kid":"kid-a"}`, mustJSON(t, f.accessClaims()), nil, "")
		}, `alg "none"`},
		{"alg HS256", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"HS256","kid":"kid-a"}`, mustJSON(t, f.accessClaims()), nil, "c2ln")
		}, `alg "HS256"`},
		{"alg RS512", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"RS512","kid":"kid-a"}`, mustJSON(t, f.accessClaims()), a, "")
		}, `alg "RS512"`},
		{"alg lower case", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"rs256","kid":"kid-a"}`, mustJSON(t, f.accessClaims()), a, "")
		}, `alg "rs256"`},
		{"no kid", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"RS256"}`, mustJSON(t, f.accessClaims()), a, "")
		}, "no kid"},
		{"typ not JWT", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"RS256","kid":"kid-a","typ":"at+jwt+x"}`, mustJSON(t, f.accessClaims()), a, "")
		}, "typ"},
		{"crit", UseAccess, func(t *testing.T, f *fixture) string {
			return raw(t, `{"alg":"RS256","kid":"kid-a","crit":["exp"]}`, mustJSON(t, f.accessClaims()), a, "")
		}, "crit"},
		{"payload not base64url", UseAccess, func(*testing.T, *fixture) string {
			return b64.EncodeToString([]byte(good)) + ".e30=.c2ln"
		}, "payload is not base64url"},
		{"signature not base64url", UseAccess, func(*testing.T, *fixture) string {
			return b64.EncodeToString([]byte(good)) + ".e30.c2ln+"
		}, "signature is not base64url"},
		{"signature empty", UseAccess, func(*testing.T, *fixture) string {
			return b64.EncodeToString([]byte(good)) + ".e30."
		}, "signature is empty"},
		{"unknown kid", UseAccess, func(t *testing.T, f *fixture) string { return sign(t, a, "kid-x", f.accessClaims()) }, `kid "kid-x"`},
		{"signed by another key", UseAccess, func(t *testing.T, f *fixture) string { return sign(t, other, "kid-a", f.accessClaims()) }, "signature"},
		{"payload changed after signing", UseAccess, func(t *testing.T, f *fixture) string {
			tok := sign(t, a, "kid-a", f.accessClaims())
			parts := strings.Split(tok, ".")
			c := f.accessClaims()
			c["username"] = "mallory"
			parts[1] = b64.EncodeToString([]byte(mustJSON(t, c)))
			return strings.Join(parts, ".")
		}, "signature"},
		{"claims not JSON", UseAccess, func(t *testing.T, _ *fixture) string { return raw(t, good, `"x"`, a, "") }, "claims"},
		{"exp a string", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["exp"] = "2030-01-01" }))
		}, "claims"},
		{"groups not strings", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["cognito:groups"] = []int{1} }))
		}, "claims"},
		{"wrong issuer", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["iss"] = testIssuer + "x" }))
		}, "issuer"},
		{"issuer with a trailing slash", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["iss"] = testIssuer + "/" }))
		}, "issuer"},
		{"id token where access is wanted", UseAccess, func(t *testing.T, f *fixture) string { return sign(t, a, "kid-a", f.idClaims()) }, "token_use"},
		{"access token where id is wanted", UseID, func(t *testing.T, f *fixture) string { return sign(t, a, "kid-a", f.accessClaims()) }, "token_use"},
		{"no token_use", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { delete(c, "token_use") }))
		}, "token_use"},
		{"another client", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["client_id"] = "other" }))
		}, "client_id"},
		{"access token with only aud", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { delete(c, "client_id"); c["aud"] = testClient }))
		}, "client_id"},
		{"id token for another audience", UseID, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseID, func(c map[string]any) { c["aud"] = "other" }))
		}, "aud"},
		{"id token for two audiences", UseID, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseID, func(c map[string]any) { c["aud"] = []string{testClient, "other"} }))
		}, "aud"},
		{"id token with no aud", UseID, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseID, func(c map[string]any) { delete(c, "aud") }))
		}, "aud"},
		{"no sub", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { delete(c, "sub") }))
		}, "sub"},
		{"no exp", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { delete(c, "exp") }))
		}, "exp is missing"},
		{"expired beyond the leeway", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) {
				c["iat"], c["exp"] = f.clock.unix(-2*time.Hour), f.clock.unix(-Leeway)
			}))
		}, "expired"},
		{"not yet valid", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["nbf"] = f.clock.unix(2 * time.Minute) }))
		}, "not valid before"},
		{"no iat", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { delete(c, "iat") }))
		}, "iat is missing"},
		{"issued in the future", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["iat"] = f.clock.unix(2 * time.Minute) }))
		}, "issued in the future"},
		{"issued after it expires", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["iat"], c["exp"] = f.clock.unix(30*time.Second), f.clock.unix(0) }))
		}, "issued after it expires"},
		{"date out of range", UseAccess, func(t *testing.T, f *fixture) string {
			return sign(t, a, "kid-a", with(f, UseAccess, func(c map[string]any) { c["exp"] = 1e300 }))
		}, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.use)
			_, err := f.v.Verify(context.Background(), tt.token(t, f))
			require.ErrorIs(t, err, ErrInvalidToken)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestJWKSFetchedOnceAndOnUnknownKidAtMostEveryMinute(t *testing.T) {
	a, _, c := testKeys(t)
	f := newFixture(t, UseAccess)
	ctx := context.Background()
	for range 5 {
		_, err := f.v.Verify(ctx, sign(t, a, "kid-a", f.accessClaims()))
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), f.is.fetches.Load(), "known kids are served from the cache")

	// The issuer rotates in kid-c: the first token for it refetches.
	f.is.set(t, map[string]*rsa.PublicKey{"kid-a": &a.PublicKey, "kid-c": &c.PublicKey})
	f.clock.Advance(RefetchInterval)
	_, err := f.v.Verify(ctx, sign(t, c, "kid-c", f.accessClaims()))
	require.NoError(t, err)
	assert.Equal(t, int32(2), f.is.fetches.Load())

	// Made-up kids within the minute cost no fetch.
	for range 10 {
		_, err = f.v.Verify(ctx, sign(t, a, "kid-made-up", f.accessClaims()))
		require.ErrorIs(t, err, ErrInvalidToken)
	}
	assert.Equal(t, int32(2), f.is.fetches.Load())
	f.clock.Advance(RefetchInterval - time.Second)
	_, err = f.v.Verify(ctx, sign(t, a, "kid-made-up", f.accessClaims()))
	require.ErrorIs(t, err, ErrInvalidToken)
	assert.Equal(t, int32(2), f.is.fetches.Load())
	f.clock.Advance(time.Second)
	_, err = f.v.Verify(ctx, sign(t, a, "kid-made-up", f.accessClaims()))
	require.ErrorIs(t, err, ErrInvalidToken)
	assert.Equal(t, int32(3), f.is.fetches.Load(), "a minute on, an unknown kid refetches once")
}

func TestJWKSUnavailableIsNotAnInvalidToken(t *testing.T) {
	a, _, _ := testKeys(t)
	f := newFixture(t, UseAccess)
	f.is.mu.Lock()
	f.is.status = http.StatusServiceUnavailable
	f.is.mu.Unlock()
	tok := sign(t, a, "kid-a", f.accessClaims())
	_, err := f.v.Verify(context.Background(), tok)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrInvalidToken), "the check could not be made: %v", err)
	assert.Contains(t, err.Error(), "status 503")

	// Still failing, without a fetch, until the retry interval passes.
	_, err = f.v.Verify(context.Background(), tok)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrInvalidToken))
	assert.Equal(t, int32(1), f.is.fetches.Load())

	f.is.set(t, map[string]*rsa.PublicKey{"kid-a": &a.PublicKey})
	f.clock.Advance(failedRetryInterval)
	_, err = f.v.Verify(context.Background(), tok)
	require.NoError(t, err)
	assert.Equal(t, int32(2), f.is.fetches.Load())
}

func TestNewJWKSRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no issuer", Options{ClientID: "c", TokenUse: UseAccess}, "issuer is empty"},
		{"issuer not a URL", Options{Issuer: "cognito", ClientID: "c", TokenUse: UseAccess}, "not an http(s) URL"},
		{"no client", Options{Issuer: testIssuer, TokenUse: UseAccess}, "client ID is empty"},
		{"bad use", Options{Issuer: testIssuer, ClientID: "c", TokenUse: "refresh"}, "token use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewJWKS(tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseJWKS(t *testing.T) {
	a, _, _ := testKeys(t)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	good := PublicJWK("k", &a.PublicKey)
	tests := []struct {
		name string
		doc  string
		want string // "" when it parses
	}{
		{"one key", mustJSON(t, JWKSet{Keys: []JWK{good}}), ""},
		{"other keys skipped", mustJSON(t, JWKSet{Keys: []JWK{good, {Kty: "EC", Kid: "e"}, {Kty: "RSA", Kid: "enc", Use: "enc"}}}), ""},
		{"not JSON", "<html>", "not a JWKS"},
		{"no keys", `{"keys":[]}`, "no RS256 signing key"},
		{"no kid", mustJSON(t, JWKSet{Keys: []JWK{{Kty: "RSA", N: good.N, E: good.E}}}), "no kid"},
		{"kid twice", mustJSON(t, JWKSet{Keys: []JWK{good, good}}), "twice"},
		{"small modulus", mustJSON(t, JWKSet{Keys: []JWK{PublicJWK("k", &small.PublicKey)}}), "under 2048"},
		{"even exponent", mustJSON(t, JWKSet{Keys: []JWK{{Kty: "RSA", Kid: "k", N: good.N, E: "Ag"}}}), "odd"},
		{"exponent too long", mustJSON(t, JWKSet{Keys: []JWK{{Kty: "RSA", Kid: "k", N: good.N, E: "AQEBAQE"}}}), "at most 4 bytes"},
		{"modulus not base64url", mustJSON(t, JWKSet{Keys: []JWK{{Kty: "RSA", Kid: "k", N: "++", E: good.E}}}), "n is not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := ParseJWKS([]byte(tt.doc))
			if tt.want == "" {
				require.NoError(t, err)
				assert.Equal(t, a.PublicKey.N, keys["k"].N)
				assert.Equal(t, a.PublicKey.E, keys["k"].E)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestVerifyConcurrently: many tokens at once, known and unknown kids,
// share one fetch (run with -race).
func TestVerifyConcurrently(t *testing.T) {
	a, _, _ := testKeys(t)
	f := newFixture(t, UseAccess)
	good := sign(t, a, "kid-a", f.accessClaims())
	unknown := sign(t, a, "kid-zzz", f.accessClaims())
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			tok := good
			if i%2 == 1 {
				tok = unknown
			}
			_, err := f.v.Verify(context.Background(), tok)
			if tok == good && err != nil || tok == unknown && !errors.Is(err, ErrInvalidToken) {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, int32(1), f.is.fetches.Load(), "one fetch for all of them")
}
