package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
)

// TestSeedKeys: SHORTENER_API_KEYS becomes the keys table's content, each
// key an active key of its owner; a restart over the same table changes
// nothing, leaves a revoked key revoked, and refuses to give a key to
// another owner.
func TestSeedKeys(t *testing.T) {
	ctx := context.Background()
	db := testenv.DynamoDBClient(t)
	table := testenv.UniqueName(t, "keys")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	keys := map[string]string{"dev-key": "dev", "ci-key": "ci", "dev-key-2": "dev"}

	require.NoError(t, seedKeys(ctx, db, table, keys, quiet))

	store := dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table, ConsistentReads: true})
	owners := apikey.NewResolver(store, apikey.ResolverOptions{TTL: time.Nanosecond})
	for key, want := range keys {
		got, err := owners.Owner(ctx, key)
		require.NoError(t, err, key)
		assert.Equal(t, want, got, key)
	}
	all, err := store.List(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 3)

	_, err = store.Revoke(ctx, apikey.Hash("ci-key"), time.Now())
	require.NoError(t, err)
	require.NoError(t, seedKeys(ctx, db, table, keys, quiet), "a restart over the same table")
	_, err = owners.Owner(ctx, "ci-key")
	assert.ErrorIs(t, err, apikey.ErrRevoked, "a revoked key stays revoked")
	all, err = store.List(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 3)

	err = seedKeys(ctx, db, table, map[string]string{"dev-key": "mallory"}, quiet)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "dev-key", "the key never shows in a message")
	got, err := owners.Owner(ctx, "dev-key")
	require.NoError(t, err)
	assert.Equal(t, "dev", got)
}
