package authn

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// SignRS256 makes a compact JWS of claims signed with key, its header
// naming kid, as Cognito signs its tokens. The local OpenID provider and
// the tests issue tokens with it; nothing deployed signs.
func SignRS256(key *rsa.PrivateKey, kid string, claims any) (string, error) {
	h, err := json.Marshal(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("claims: %w", err)
	}
	return signInput(key, b64.EncodeToString(h)+"."+b64.EncodeToString(p))
}

// signInput appends the RS256 signature of signed, a JWS signing input.
func signInput(key *rsa.PrivateKey, signed string) (string, error) {
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return signed + "." + b64.EncodeToString(sig), nil
}
