package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks header names
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every signing secret, as the spec's libraries write
// them.
const SecretPrefix = "whsec_"

// secretBytes is the key length: the spec asks for 24 to 64 bytes.
const secretBytes = 32

// ErrBadSecret: a secret that is not "whsec_" + base64.
var ErrBadSecret = errors.New("malformed signing secret")

// NewSecret draws a signing secret from rand (crypto/rand.Reader in every
// deployment; injected for tests).
func NewSecret(rand io.Reader) (string, error) {
	b := make([]byte, secretBytes)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", fmt.Errorf("draw secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey decodes a secret to the HMAC key.
func secretKey(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(b) == 0 {
		return nil, ErrBadSecret
	}
	return b, nil
}

// Sign returns the webhook-signature value of body sent as message id at
// ts: "v1," + base64(HMAC-SHA256(key, id + "." + seconds + "." + body)).
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers are the three Standard Webhooks headers of one delivery.
func Headers(secret, id string, ts time.Time, body []byte) (map[string]string, error) {
	sig, err := Sign(secret, id, ts, body)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		HeaderID:        id,
		HeaderTimestamp: strconv.FormatInt(ts.Unix(), 10),
		HeaderSignature: sig,
	}, nil
}
