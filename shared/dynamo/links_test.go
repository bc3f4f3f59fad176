package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

// newLinkStore creates fresh tables on DynamoDB Local for one test.
func newLinkStore(t *testing.T, now func() time.Time) *dynamo.LinkStore {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg := dynamo.LinkConfig{
		LinksTable:       testenv.UniqueName(t, "links"),
		IdempotencyTable: testenv.UniqueName(t, "idem"),
		Now:              now,
	}
	require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
	return dynamo.NewLinkStore(db, cfg)
}

func TestLinkStoreOnDynamoDBLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return newLinkStore(t, now)
	})
}

// newTaggedLinkStore is newLinkStore with a tags table, reading the
// by-owner-all index as once it is built.
func newTaggedLinkStore(t *testing.T, now func() time.Time) *dynamo.LinkStore {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg := dynamo.LinkConfig{
		LinksTable:       testenv.UniqueName(t, "links"),
		IdempotencyTable: testenv.UniqueName(t, "idem"),
		TagsTable:        testenv.UniqueName(t, "tags"),
		Now:              now,
	}
	require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
	require.NoError(t, localtable.LinkTags(context.Background(), db, cfg.TagsTable))
	return dynamo.NewLinkStore(db, cfg)
}

func TestTaggedLinkStoreOnDynamoDBLocal(t *testing.T) {
	factory := func(t *testing.T, now func() time.Time) linkstore.Store { return newTaggedLinkStore(t, now) }
	storetest.Run(t, factory)
	storetest.RunTags(t, factory)
}
