package createfn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
)

func auditFixture(t *testing.T, codes ...string) (*fixture, *audit.Memory) {
	t.Helper()
	f := newFixture(t, codes...)
	log := &audit.Memory{Now: func() time.Time { return now }}
	f.h.Audit = log
	return f, log
}

func TestEveryCreateIsOnTheAuditLog(t *testing.T) {
	ctx := context.Background()
	f, log := auditFixture(t, "Ab3dE5g")
	req := event(t, "create-request.json")
	req.Headers["X-Shortener-Client"] = "console"
	resp, err := f.h.Handle(ctx, apigwtest.WithBody(req, `{"url":"https://example.com/","password":"hunter2-hunter2"}`))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)

	entries := log.All("p6r4ocs3d1")
	require.Len(t, entries, 1, "in the workspace of the key's owner")
	e := entries[0]
	assert.Equal(t, audit.ActionCreate, e.Action)
	assert.Equal(t, audit.TargetLink, e.Target)
	assert.Equal(t, "Ab3dE5g", e.TargetID)
	assert.Regexp(t, `^key:[0-9a-f]{8}$`, e.Actor.ID)
	assert.Equal(t, audit.SourceConsole, e.Source)
	assert.Equal(t, now, e.At)
	assert.Nil(t, e.Before)
	assert.Contains(t, string(e.After), `"url":"https://example.com/"`)
	assert.Contains(t, string(e.After), `"password":"[redacted]"`)
	assert.NotContains(t, string(e.After), "argon2", "never the hash")
	assert.NotContains(t, string(e.After), "hunter2", "never the password")
}

func TestARefusedOrReplayedCreateIsNotOnTheLog(t *testing.T) {
	ctx := context.Background()
	f, log := auditFixture(t, "Ab3dE5g")
	// Taken alias: 409, no entry.
	require.NoError(t, f.store.Create(ctx, link.Link{Code: "summer-sale", Alias: "Summer-Sale", Owner: "x", URL: "https://a.example/",
		Status: link.StatusActive, Version: 1, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, nil))
	resp, err := f.h.Handle(ctx, event(t, "create-alias.json"))
	require.NoError(t, err)
	require.Equal(t, 409, resp.StatusCode)
	assert.Empty(t, log.All("p6r4ocs3d1"))

	// The same Idempotency-Key twice: one link, one entry.
	for range 2 {
		resp, err = f.h.Handle(ctx, event(t, "create-idempotent.json"))
		require.NoError(t, err)
		require.Equal(t, 201, resp.StatusCode, resp.Body)
	}
	assert.Len(t, log.All("p6r4ocs3d1"), 1)
}

func TestACollisionRecordsTheCodeThatWasWritten(t *testing.T) {
	ctx := context.Background()
	f, log := auditFixture(t, "Taken00", "Fresh00")
	require.NoError(t, f.store.Create(ctx, link.Link{Code: "Taken00", Owner: "x", URL: "https://a.example/", Status: link.StatusActive,
		Version: 1, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, nil))
	resp, err := f.h.Handle(ctx, event(t, "create-request.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	entries := log.All("p6r4ocs3d1")
	require.Len(t, entries, 1)
	assert.Equal(t, "Fresh00", entries[0].TargetID)
}

func TestAnAuditFailureDoesNotFailTheCreate(t *testing.T) {
	f, log := auditFixture(t, "Ab3dE5g")
	log.Fail = errors.New("audit table down")
	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, "the link exists: a 5xx would invite a duplicate")
	_, err = f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.Contains(t, f.metrics.String(), "AuditWriteFailures")
}

func TestEveryItemOfABatchIsOnTheLog(t *testing.T) {
	f, log := auditFixture(t, "Aaaaaa1", "Bbbbbb2", "Ccccccc")
	resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "batch-request.json"),
		`{"links":[{"url":"https://a.example/"},{"url":"ftp://bad"},{"url":"https://c.example/"}]}`))
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	var codes []string
	for _, e := range log.All("p6r4ocs3d1") {
		codes = append(codes, e.TargetID)
	}
	assert.ElementsMatch(t, []string{"Aaaaaa1", "Bbbbbb2"}, codes, "one entry per link created, none for the refused item")
}
