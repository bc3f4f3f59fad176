package dynamowebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/storetest"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestDynamoDBLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) webhook.Store {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		table := testenv.UniqueName(t, "webhooks")
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Webhooks()))
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Webhooks()), "an existing table is left alone")
		return dynamowebhook.New(db, dynamowebhook.Config{Table: table})
	})
}
