package apiauthfn_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
)

// TestKeysOfTheKeysAPI: a key issued as POST /v1/keys issues it works at
// once, with its role and the deployment's one usage-plan key (no usage
// plan is touched); a revoked one is refused once the resolver's cache
// has let go of it; an expired one from its expiry on.
func TestKeysOfTheKeysAPI(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { return now }
	keys := apikey.NewMemory(nil)
	h := apiauthfn.New(apiauthfn.Options{Keys: apikey.NewResolver(keys, apikey.ResolverOptions{Now: clock}), UsageKey: usageKey})
	decide := func(key string) string {
		t.Helper()
		resp, err := h.Handle(ctx, fixture(t, map[string]string{"x-api-key": key}))
		require.NoError(t, err, "a refused key is a Deny (403), never a fault")
		require.Len(t, resp.PolicyDocument.Statement, 1)
		if resp.PolicyDocument.Statement[0].Effect == "Allow" {
			assert.Equal(t, usageKey, resp.UsageIdentifierKey)
		}
		return resp.PolicyDocument.Statement[0].Effect
	}

	viewer, rec, err := apikey.IssueExpiring(ctx, keys, nil, "team", "", "dash", "viewer", start, start.Add(24*time.Hour))
	require.NoError(t, err)
	resp, err := h.Handle(ctx, fixture(t, map[string]string{"x-api-key": viewer}))
	require.NoError(t, err)
	assert.Equal(t, "Allow", resp.PolicyDocument.Statement[0].Effect, "a new key works at once")
	assert.Equal(t, "viewer", resp.Context["role"])
	assert.Equal(t, "team", resp.Context["owner"])

	editor, erec, err := apikey.IssueRole(ctx, keys, nil, "team", "", "ci", "editor", start)
	require.NoError(t, err)
	require.Equal(t, "Allow", decide(editor))
	_, err = keys.Revoke(ctx, erec.Hash, start)
	require.NoError(t, err)
	now = start.Add(apikey.DefaultCacheTTL)
	assert.Equal(t, "Deny", decide(editor), "revoked: refused within the cache's TTL")

	now = rec.ExpiresAt.Add(-time.Second)
	assert.Equal(t, "Allow", decide(viewer))
	now = rec.ExpiresAt
	assert.Equal(t, "Deny", decide(viewer), "expired: refused from its expiry on")
}
