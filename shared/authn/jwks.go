package authn

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	// Leeway is how far exp, nbf and iat may be off the verifier's clock:
	// the issuer's clock and ours are not the same clock.
	Leeway = time.Minute
	// RefetchInterval is the least time between two fetches of the JWKS
	// for a kid it does not hold: a stream of tokens with made-up kids
	// costs the issuer one request a minute, not one per token. Cognito
	// rotates its signing keys rarely, and a new key is in the JWKS
	// before it signs anything.
	RefetchInterval = time.Minute
	// MaxTokenBytes bounds the token read; Cognito's are a few KB.
	MaxTokenBytes = 16 << 10
	// maxJWKSBytes bounds the JWKS document read.
	maxJWKSBytes = 1 << 20
	// failedRetryInterval is the least time between two fetches after
	// one that failed: soon enough that a blip at a cold start costs
	// seconds of 5xx, not a minute.
	failedRetryInterval = 5 * time.Second
	// defaultFetchTimeout bounds a JWKS fetch when Options give no client.
	defaultFetchTimeout = 10 * time.Second
	// minRSABits is the smallest RSA modulus accepted; Cognito's are 2048.
	minRSABits = 2048
)

// Token uses, the values of "token_use" Cognito puts in its tokens.
const (
	UseAccess = "access"
	UseID     = "id"
)

// Options configure a JWKS verifier.
type Options struct {
	// Issuer is the identity provider's issuer, exactly as tokens carry it
	// in "iss": https://cognito-idp.<region>.amazonaws.com/<user pool ID>
	// for Cognito. Its keys are read from <Issuer>/.well-known/jwks.json.
	Issuer string
	// ClientID is the app client whose tokens are accepted: an access
	// token's "client_id", an ID token's "aud".
	ClientID string
	// TokenUse is the one token use accepted, UseAccess or UseID.
	TokenUse string
	// HTTPClient fetches the JWKS (a client with a 10 s timeout when
	// nil); its timeout bounds a fetch together with the Verify context.
	HTTPClient *http.Client
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// JWKS verifies Cognito-shaped RS256 JSON Web Tokens against the keys the
// issuer publishes, fetched once and again only for a kid it does not
// know, at most every RefetchInterval.
type JWKS struct {
	issuer, clientID, use string
	jwksURL               string
	client                *http.Client
	now                   func() time.Time

	// mu guards keys; a token with a known kid takes only its read
	// lock, so a fetch in progress holds up no one but the tokens that
	// wait for it.
	mu   sync.RWMutex
	keys map[string]*rsa.PublicKey
	// fetchMu serialises fetches: tokens arriving during one wait for
	// its keys rather than start one each. It guards fetched and failed.
	fetchMu sync.Mutex
	fetched time.Time // of the last fetch attempt; zero: none yet
	failed  bool      // the last fetch attempt failed
}

var _ Verifier = (*JWKS)(nil)

// NewJWKS returns a verifier for opts; it fetches nothing until the
// first token.
func NewJWKS(opts Options) (*JWKS, error) {
	switch {
	case opts.Issuer == "":
		return nil, errors.New("authn: issuer is empty")
	case !strings.HasPrefix(opts.Issuer, "https://") && !strings.HasPrefix(opts.Issuer, "http://"):
		return nil, fmt.Errorf("authn: issuer %q is not an http(s) URL", opts.Issuer)
	case opts.ClientID == "":
		return nil, errors.New("authn: client ID is empty")
	case opts.TokenUse != UseAccess && opts.TokenUse != UseID:
		return nil, fmt.Errorf("authn: token use %q is neither %q nor %q", opts.TokenUse, UseAccess, UseID)
	}
	v := &JWKS{
		issuer:   opts.Issuer,
		clientID: opts.ClientID,
		use:      opts.TokenUse,
		jwksURL:  strings.TrimSuffix(opts.Issuer, "/") + "/.well-known/jwks.json",
		client:   opts.HTTPClient,
		now:      opts.Now,
	}
	if v.client == nil {
		v.client = &http.Client{Timeout: defaultFetchTimeout}
	}
	if v.now == nil {
		v.now = time.Now
	}
	return v, nil
}

// invalid is a failed check: ErrInvalidToken, saying which.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidToken}, args...)...)
}

// Verify checks token's form, algorithm, signature, issuer, token use,
// client and times, in that order, and returns its claims. The claims
// are read only once the signature holds.
func (v *JWKS) Verify(ctx context.Context, token string) (Claims, error) {
	t, err := parseToken(token)
	if err != nil {
		return Claims{}, err
	}
	key, err := v.key(ctx, t.header.Kid)
	if err != nil {
		return Claims{}, err
	}
	digest := sha256.Sum256([]byte(t.signed))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], t.signature); err != nil {
		return Claims{}, invalid("signature does not verify")
	}
	c, err := parseClaims(t.payload)
	if err != nil {
		return Claims{}, err
	}
	return v.check(c)
}

// check checks verified claims against the options and the clock.
func (v *JWKS) check(c claims) (Claims, error) {
	if c.Iss != v.issuer {
		return Claims{}, invalid("issuer %q is not %q", c.Iss, v.issuer)
	}
	if c.TokenUse != v.use {
		return Claims{}, invalid("token_use %q is not %q", c.TokenUse, v.use)
	}
	var client string
	switch v.use {
	case UseAccess:
		client = c.ClientID
		if client != v.clientID {
			return Claims{}, invalid("client_id %q is not the app client", client)
		}
	case UseID:
		if len(c.Aud) != 1 || c.Aud[0] != v.clientID {
			return Claims{}, invalid("aud %q is not the app client", []string(c.Aud))
		}
		client = c.Aud[0]
	}
	if c.Sub == "" {
		return Claims{}, invalid("sub is missing")
	}
	now := v.now()
	if c.Exp == nil {
		return Claims{}, invalid("exp is missing")
	}
	exp := c.Exp.time()
	if !now.Before(exp.Add(Leeway)) {
		return Claims{}, invalid("expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if c.Nbf != nil && now.Add(Leeway).Before(c.Nbf.time()) {
		return Claims{}, invalid("not valid before %s", c.Nbf.time().UTC().Format(time.RFC3339))
	}
	if c.Iat == nil {
		return Claims{}, invalid("iat is missing")
	}
	iat := c.Iat.time()
	if now.Add(Leeway).Before(iat) {
		return Claims{}, invalid("issued in the future, at %s", iat.UTC().Format(time.RFC3339))
	}
	if iat.After(exp) {
		return Claims{}, invalid("issued after it expires")
	}
	user := c.Username
	if user == "" {
		user = c.CognitoUsername
	}
	return Claims{
		Subject:  c.Sub,
		Username: user,
		Email:    c.Email,
		ClientID: client,
		TokenUse: c.TokenUse,
		Groups:   c.Groups,
		Expires:  exp,
	}, nil
}

// key returns the issuer's key kid, fetching the JWKS the first time and
// again when kid is unknown and the last fetch is RefetchInterval old.
func (v *JWKS) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	if k, ok := v.cached(kid); ok {
		return k, nil
	}
	v.fetchMu.Lock()
	defer v.fetchMu.Unlock()
	if k, ok := v.cached(kid); ok { // fetched while this token waited
		return k, nil
	}
	wait := RefetchInterval
	if v.failed {
		wait = failedRetryInterval
	}
	if !v.fetched.IsZero() && v.now().Sub(v.fetched) < wait {
		v.mu.RLock()
		none := v.keys == nil
		v.mu.RUnlock()
		if none { // no fetch has succeeded yet
			return nil, fmt.Errorf("authn: JWKS %s unavailable, next try after %s", v.jwksURL, v.fetched.Add(wait).UTC().Format(time.RFC3339))
		}
		return nil, invalid("kid %q is not in the issuer's JWKS", kid)
	}
	v.fetched = v.now()
	keys, err := v.fetch(ctx)
	v.failed = err != nil
	if err != nil {
		// Keep the keys we had: a failed refetch is no reason to refuse
		// the tokens they verify.
		return nil, err
	}
	v.mu.Lock()
	v.keys = keys
	v.mu.Unlock()
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, invalid("kid %q is not in the issuer's JWKS", kid)
}

func (v *JWKS) cached(kid string) (*rsa.PublicKey, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	k, ok := v.keys[kid]
	return k, ok
}

// fetch reads the JWKS. Its error is not ErrInvalidToken: the check
// could not be made.
func (v *JWKS) fetch(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.jwksURL, nil)
	if err != nil {
		return nil, fmt.Errorf("authn: JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authn: fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("authn: fetch JWKS %s: status %d", v.jwksURL, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("authn: read JWKS: %w", err)
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("authn: JWKS %s is over %d bytes", v.jwksURL, maxJWKSBytes)
	}
	keys, err := ParseJWKS(body)
	if err != nil {
		return nil, fmt.Errorf("authn: JWKS %s: %w", v.jwksURL, err)
	}
	return keys, nil
}

// JWK is one key of a JSON Web Key Set, as Cognito publishes it (RFC 7517).
type JWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// JWKSet is a JSON Web Key Set document.
type JWKSet struct {
	Keys []JWK `json:"keys"`
}

// PublicJWK is key as a JWK for RS256 signatures.
func PublicJWK(kid string, key *rsa.PublicKey) JWK {
	return JWK{
		Kty: "RSA", Kid: kid, Alg: "RS256", Use: "sig",
		N: b64.EncodeToString(key.N.Bytes()),
		E: b64.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
	}
}

// ParseJWKS reads a JWKS document's RSA signing keys by kid. Keys for
// other uses or algorithms are skipped; a malformed RSA key, a repeated
// kid or no usable key at all is an error.
func ParseJWKS(doc []byte) (map[string]*rsa.PublicKey, error) {
	var set JWKSet
	if err := json.Unmarshal(doc, &set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	keys := make(map[string]*rsa.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.Kty != "RSA" || (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256") {
			continue
		}
		if k.Kid == "" {
			return nil, errors.New("an RSA key has no kid")
		}
		if _, dup := keys[k.Kid]; dup {
			return nil, fmt.Errorf("kid %q appears twice", k.Kid)
		}
		pub, err := rsaKey(k)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k.Kid, err)
		}
		keys[k.Kid] = pub
	}
	if len(keys) == 0 {
		return nil, errors.New("no RS256 signing key")
	}
	return keys, nil
}

// rsaKey decodes a JWK's modulus and exponent.
func rsaKey(k JWK) (*rsa.PublicKey, error) {
	n, err := b64.DecodeString(k.N)
	if err != nil || len(n) == 0 || n[0] == 0 {
		return nil, errors.New("n is not a base64url big-endian integer")
	}
	e, err := b64.DecodeString(k.E)
	if err != nil || len(e) == 0 || len(e) > 4 || e[0] == 0 {
		return nil, errors.New("e is not a base64url big-endian integer of at most 4 bytes")
	}
	var exp int
	for _, b := range e {
		exp = exp<<8 | int(b)
	}
	if exp < 3 || exp%2 == 0 {
		return nil, fmt.Errorf("e %d is not an odd integer of at least 3", exp)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}
	if pub.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("modulus of %d bits is under %d", pub.N.BitLen(), minRSABits)
	}
	return pub, nil
}
