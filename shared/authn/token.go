package authn

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// b64 is JWT's base64url without padding (RFC 7515 section 2); Strict
// refuses the non-zero trailing bits that would give one token two
// spellings.
var b64 = base64.RawURLEncoding.Strict()

// header is a JWS protected header, the fields this verifier reads.
type header struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  string          `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

// token is a compact JWS split and decoded, not yet verified.
type token struct {
	header    header
	payload   []byte
	signature []byte
	// signed is the signing input: header and payload as sent.
	signed string
}

// parseToken splits and decodes a compact JWS and checks its header:
// RS256 with a kid, nothing critical. Whatever fails is ErrInvalidToken.
func parseToken(s string) (token, error) {
	if s == "" {
		return token{}, invalid("token is empty")
	}
	if len(s) > MaxTokenBytes {
		return token{}, invalid("token is over %d bytes", MaxTokenBytes)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return token{}, invalid("token has %d parts, not 3", len(parts))
	}
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return token{}, invalid("header is not base64url")
	}
	var h header
	if err := strictJSON(hb, &h); err != nil {
		return token{}, invalid("header is not a JSON object")
	}
	// Only RS256, Cognito's algorithm: "none" and the HMAC algorithms
	// (which would take the public key as a shared secret) never reach a
	// key.
	if h.Alg != "RS256" {
		return token{}, invalid("alg %q is not RS256", h.Alg)
	}
	if h.Kid == "" {
		return token{}, invalid("header has no kid")
	}
	if h.Typ != "" && !strings.EqualFold(h.Typ, "JWT") {
		return token{}, invalid("typ %q is not JWT", h.Typ)
	}
	if len(h.Crit) > 0 {
		// No extension is understood here, so none may be critical
		// (RFC 7515 section 4.1.11).
		return token{}, invalid("header has crit")
	}
	payload, err := b64.DecodeString(parts[1])
	if err != nil {
		return token{}, invalid("payload is not base64url")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return token{}, invalid("signature is not base64url")
	}
	if len(sig) == 0 {
		return token{}, invalid("signature is empty")
	}
	return token{header: h, payload: payload, signature: sig, signed: parts[0] + "." + parts[1]}, nil
}

// claims are the registered and Cognito claims read from a payload.
type claims struct {
	Iss             string       `json:"iss"`
	Sub             string       `json:"sub"`
	Aud             audience     `json:"aud"`
	Exp             *numericDate `json:"exp"`
	Nbf             *numericDate `json:"nbf"`
	Iat             *numericDate `json:"iat"`
	TokenUse        string       `json:"token_use"`
	ClientID        string       `json:"client_id"`
	Username        string       `json:"username"`
	CognitoUsername string       `json:"cognito:username"`
	Email           string       `json:"email"`
	Groups          []string     `json:"cognito:groups"`
}

// parseClaims reads a payload; a claim of the wrong JSON type is
// ErrInvalidToken.
func parseClaims(payload []byte) (claims, error) {
	var c claims
	if err := strictJSON(payload, &c); err != nil {
		return claims{}, invalid("claims: %v", err)
	}
	return c, nil
}

// strictJSON decodes one JSON object and nothing after it.
func strictJSON(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errNotObject
	}
	return nil
}

var errNotObject = jsonError("not one JSON object")

type jsonError string

func (e jsonError) Error() string { return string(e) }

// audience is "aud": one string or an array of them (RFC 7519 section 4.1.3).
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*a = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = audience{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return jsonError("aud is neither a string nor an array of strings")
	}
	*a = ss
	return nil
}

// numericDate is seconds since the epoch, a JSON number (RFC 7519
// section 2); fractions are allowed and dropped.
type numericDate int64

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil || bytes.Equal(b, []byte("null")) {
		return jsonError("a date claim is not a number")
	}
	// Bounded so the time arithmetic cannot overflow: year 1 to 9999.
	if math.IsNaN(f) || f < -62135596800 || f > 253402300799 {
		return jsonError("a date claim is out of range")
	}
	*d = numericDate(int64(f))
	return nil
}

func (d numericDate) time() time.Time { return time.Unix(int64(d), 0) }
