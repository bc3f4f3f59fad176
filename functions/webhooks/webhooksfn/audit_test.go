package webhooksfn_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

func TestSubscriptionChangesAreOnTheAuditLog(t *testing.T) {
	ctx := context.Background()
	log := &audit.Memory{}
	h := webhooksfn.New(webhooksfn.Options{
		Store:  webhook.NewMemory(),
		Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{"key-a": "alice", "key-b": "bob"}), apikey.ResolverOptions{}),
		Guard:  webhook.Guard{Resolver: resolver{"hooks.example.com": "93.184.215.14"}},
		Now:    func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) },
		Log:    slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Audit:  log,
	})
	req := request(http.MethodPost, webhooksfn.ResourceWebhooks, "key-a", "", `{"url":"https://hooks.example.com/in","events":["link.created"]}`)
	req.Headers["X-Shortener-Client"] = "console"
	resp, err := h.Handle(ctx, req)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	var created webhooksfn.Created
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &created))
	require.NotEmpty(t, created.Secret)

	// Another owner cannot delete it, and leaves no entry.
	resp, err = h.Handle(ctx, request(http.MethodDelete, webhooksfn.ResourceWebhook, "key-b", created.ID, ""))
	require.NoError(t, err)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Empty(t, log.All("bob"))

	resp, err = h.Handle(ctx, request(http.MethodDelete, webhooksfn.ResourceWebhook, "key-a", created.ID, ""))
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, resp.Body)

	entries := log.All("alice")
	require.Len(t, entries, 2)
	add, del := entries[0], entries[1]
	if add.Action != audit.ActionCreate { // one clock reading: IDs of one millisecond sort by their random part
		add, del = del, add
	}
	assert.Equal(t, audit.ActionCreate, add.Action)
	assert.Equal(t, audit.TargetWebhook, add.Target)
	assert.Equal(t, created.ID, add.TargetID)
	assert.Equal(t, audit.SourceConsole, add.Source)
	assert.Contains(t, string(add.After), "https://hooks.example.com/in")
	assert.Equal(t, audit.ActionDelete, del.Action)
	assert.Equal(t, audit.SourceAPI, del.Source)
	assert.Contains(t, string(del.Before), "https://hooks.example.com/in")
	assert.Nil(t, del.After)
	for _, e := range entries {
		assert.NotContains(t, string(e.Before)+string(e.After), created.Secret, "the signing secret never reaches the log")
	}
}
