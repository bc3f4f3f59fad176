// Package webhooktest verifies Standard Webhooks deliveries the way a
// receiver does, for tests. It is written from the specification's text
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md,
// "Verifying webhook authenticity"), not from package webhook's signer, so
// a test that verifies with it checks the signer against the spec.
package webhooktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a timestamp may be from now: the spec's libraries
// refuse more than five minutes either way.
const Tolerance = 5 * time.Minute

// Verify checks a delivery's headers and raw body against secret
// ("whsec_" + base64 key) at now: the webhook-id, webhook-timestamp and
// webhook-signature headers, the timestamp within Tolerance, and at least
// one "v1," signature of the space-separated list equal, in constant
// time, to HMAC-SHA256(key, id + "." + timestamp + "." + body).
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook headers")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q: %w", ts, err)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("timestamp %s is %s from now", ts, d)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte("."))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Split(sigs, " ") {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no matching v1 signature")
}
