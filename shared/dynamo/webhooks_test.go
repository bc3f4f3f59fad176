package dynamo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/storetest"
)

func TestWebhookStoreOnDynamoDBLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) webhook.Store {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		table := testenv.UniqueName(t, "webhooks")
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Webhooks()))
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Webhooks()), "an existing table is left alone")
		return dynamo.NewWebhookStore(db, dynamo.Config{Table: table})
	})
}
