package webhook_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/webhooktest"
)

// TestSignSpecVector: the test vector of the spec's reference libraries
// (standard-webhooks libraries' TestWebhookSign).
func TestSignSpecVector(t *testing.T) {
	got, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	require.NoError(t, err)
	assert.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", got)
}

func TestHeadersVerify(t *testing.T) {
	secret, err := webhook.NewSecret(rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	body := []byte(`{"type":"link.created","timestamp":"2026-12-01T00:00:00Z","data":{"code":"abc"}}`)
	hs, err := webhook.Headers(secret, "msg_1", now, body)
	require.NoError(t, err)
	h := http.Header{}
	for k, v := range hs {
		h.Set(k, v)
	}
	tests := []struct {
		name   string
		secret string
		header func(http.Header)
		body   []byte
		now    time.Time
		ok     bool
	}{
		{name: "as signed", ok: true},
		{name: "another body", body: []byte(`{}`)},
		{name: "another secret", secret: "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))},
		{name: "another id", header: func(h http.Header) { h.Set("webhook-id", "msg_2") }},
		{name: "too old", now: now.Add(6 * time.Minute)},
		{name: "among others", ok: true, header: func(h http.Header) {
			h.Set("webhook-signature", "v1,AAAA "+h.Get("webhook-signature"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hh := h.Clone()
			if tt.header != nil {
				tt.header(hh)
			}
			s, b, at := secret, body, now
			if tt.secret != "" {
				s = tt.secret
			}
			if tt.body != nil {
				b = tt.body
			}
			if !tt.now.IsZero() {
				at = tt.now
			}
			err := webhooktest.Verify(s, hh, b, at)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	s, err := webhook.NewSecret(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s, "whsec_"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte{7}, 32), key)
	_, err = webhook.NewSecret(bytes.NewReader(nil))
	assert.Error(t, err, "a short read is an error, not a weak key")
	_, err = webhook.Sign("whsec_***", "id", time.Now(), nil)
	assert.ErrorIs(t, err, webhook.ErrBadSecret)
}
