package authn

import (
	"context"
	"crypto/rsa"
	"errors"
	"testing"
)

// FuzzVerify feeds the verifier arbitrary tokens against a fixed JWKS:
// it never panics, and every refusal is ErrInvalidToken (the JWKS is
// reachable, so nothing else may fail). The seeds in
// testdata/fuzz/FuzzVerify are Cognito-shaped tokens and near misses.
func FuzzVerify(f *testing.F) {
	a, _, _ := testKeys(f)
	fx := newFixture(f, UseAccess)
	fx.is.set(f, map[string]*rsa.PublicKey{"kid-a": &a.PublicKey})
	f.Add(sign(f, a, "kid-a", fx.accessClaims()))
	f.Add(sign(f, a, "kid-a", fx.idClaims()))
	f.Add(raw(f, `{"alg":"none","kid":"kid-a"}`, `{"sub":"x"}`, nil, ""))
	f.Add("..")
	f.Fuzz(func(t *testing.T, token string) {
		c, err := fx.v.Verify(context.Background(), token)
		if err != nil {
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("refusal not ErrInvalidToken: %v", err)
			}
			return
		}
		if c.Subject == "" || c.ClientID != testClient || c.TokenUse != UseAccess {
			t.Fatalf("accepted claims %+v", c)
		}
	})
}

// FuzzParseJWKS: any document parses or is refused, never a panic, and
// every key it returns is a usable RSA key.
func FuzzParseJWKS(f *testing.F) {
	a, _, _ := testKeys(f)
	f.Add([]byte(mustJSON(f, JWKSet{Keys: []JWK{PublicJWK("k", &a.PublicKey)}})))
	f.Add([]byte(`{"keys":[{"kty":"RSA","kid":"k","n":"AQ","e":"AQAB"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		keys, err := ParseJWKS(doc)
		if err != nil {
			return
		}
		for kid, k := range keys {
			if k.N.BitLen() < minRSABits || k.E < 3 {
				t.Fatalf("key %q: %d bits, e %d", kid, k.N.BitLen(), k.E)
			}
		}
	})
}
