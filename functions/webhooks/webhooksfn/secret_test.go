package webhooksfn_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// TestListHasNoSecret: the signing secret is shown once, in the 201; the
// listing never carries it, not even as a key, whatever the store answers.
func TestListHasNoSecret(t *testing.T) {
	store := webhook.NewMemory()
	h := newHandler(t, store, io.Discard)
	ctx := context.Background()

	req := request("POST", webhooksfn.ResourceWebhooks, "key-a", "",
		`{"url":"https://hooks.example.com/in","events":["link.created"]}`)
	created, err := h.Handle(ctx, req)
	require.NoError(t, err)
	require.Equal(t, 201, created.StatusCode, created.Body)
	c := apigwtest.Decode[map[string]any](t, created)
	secret, _ := c["secret"].(string)
	require.NotEmpty(t, secret, "the creation shows it")

	list := request("GET", webhooksfn.ResourceWebhooks, "key-a", "", "")
	resp, err := h.Handle(ctx, list)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	assert.NotContains(t, resp.Body, secret)
	assert.NotContains(t, resp.Body, `"secret"`)
	out := apigwtest.Decode[struct {
		Webhooks []map[string]any `json:"webhooks"`
	}](t, resp)
	require.Len(t, out.Webhooks, 1)
	assert.NotContains(t, out.Webhooks[0], "secret")

	subs, err := store.List(ctx, "alice")
	require.NoError(t, err)
	require.Len(t, subs, 1)
	assert.Empty(t, subs[0].Secret, "the store's listing has none to leak")
}
