package dynamostore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// newStore creates fresh tables on DynamoDB Local for one test.
func newStore(t *testing.T, now func() time.Time) *dynamostore.Store {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg := dynamostore.Config{
		LinksTable:       testenv.UniqueName(t, "links"),
		IdempotencyTable: testenv.UniqueName(t, "idem"),
		Now:              now,
	}
	require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
	return dynamostore.New(db, cfg)
}

func TestDynamoDBLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return newStore(t, now)
	})
}
