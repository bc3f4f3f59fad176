package apigw_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/link"
)

type failingKeys struct{}

func (failingKeys) Get(context.Context, string) (apikey.Record, error) {
	return apikey.Record{}, fmt.Errorf("get api key: %w", link.ErrUnavailable)
}

// TestOwner: the owner comes from the keys table, so two keys of one
// owner (a rotation, or API Gateway keys in two Regions, each with its own
// apiKeyId) are one owner, and API Gateway's key ID never names anyone.
func TestOwner(t *testing.T) {
	ctx := context.Background()
	const oldKey, newKey, revokedKey = "old-key-0123456789abcdef", "new-key-0123456789abcdef", "revoked-key-0123456789ab"
	keys := apikey.NewMemory(map[string]string{oldKey: "alice", newKey: "alice", revokedKey: "alice"})
	_, err := keys.Revoke(ctx, apikey.Hash(revokedKey), time.Now())
	require.NoError(t, err)
	const expiredKey = "expired-key-0123456789ab"
	_, _, err = apikey.IssueExpiring(ctx, keys, nil, "alice", expiredKey, "", "", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute))
	require.NoError(t, err)
	owners := apikey.NewResolver(keys, apikey.ResolverOptions{})

	tests := []struct {
		name       string
		key, keyID string
		owners     apigw.Owners
		want       string
		wantStatus int
	}{
		{name: "a key", key: oldKey, keyID: "p6r4ocs3d1", owners: owners, want: "alice"},
		{name: "the owner's next key, another key id", key: newKey, keyID: "a1b2c3d4e5", owners: owners, want: "alice"},
		{name: "a revoked key", key: revokedKey, keyID: "r3v0k3d000", owners: owners, wantStatus: 403},
		{name: "an unknown key", key: "unknown-key-0123456789ab", keyID: "u9k9n9o9w9", owners: owners, wantStatus: 403},
		{name: "an expired key", key: expiredKey, keyID: "e9p9r9d000", owners: owners, wantStatus: 403},
		{name: "no key", owners: owners, wantStatus: 401},
		{name: "a key id alone is nobody", keyID: "p6r4ocs3d1", owners: owners, wantStatus: 401},
		{name: "the table is down", key: oldKey, keyID: "p6r4ocs3d1", owners: apikey.NewResolver(failingKeys{}, apikey.ResolverOptions{}), wantStatus: 503},
		{name: "no resolver", key: oldKey, keyID: "p6r4ocs3d1", wantStatus: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := events.APIGatewayProxyRequest{}
			req.RequestContext.Identity.APIKey = tt.key
			req.RequestContext.Identity.APIKeyID = tt.keyID

			got, err := apigw.Owner(ctx, &req, tt.owners)

			if tt.wantStatus != 0 {
				require.Error(t, err)
				assert.Empty(t, got)
				assert.Equal(t, tt.wantStatus, apigw.ProblemFor(err).Status)
				if tt.key != "" {
					assert.NotContains(t, apigw.ProblemFor(err).Detail, tt.key)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
