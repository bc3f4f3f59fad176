package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/apikeytest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func newTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "keys")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Keys()))
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Keys()), "an existing table is left alone")
	return db, table
}

func TestKeyStoreOnDynamoDBLocal(t *testing.T) {
	apikeytest.Run(t, func(t *testing.T) apikey.Store {
		db, table := newTable(t)
		return dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table})
	})
}

// The table holds the key's hash and never the key.
func TestItemHoldsNoKey(t *testing.T) {
	ctx := context.Background()
	db, table := newTable(t)
	s := dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table, ConsistentReads: true})
	key, _, err := apikey.Issue(ctx, s, nil, "alice", "", "ci", time.Now())
	require.NoError(t, err)

	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	for name, v := range out.Items[0] {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			assert.NotContains(t, s.Value, key, "attribute %s", name)
		}
	}
	assert.Equal(t, &types.AttributeValueMemberS{Value: apikey.Hash(key)}, out.Items[0][tableschema.AttrKeyHash])
}

// A malformed item never works as a key.
func TestMalformedItem(t *testing.T) {
	ctx := context.Background()
	db, table := newTable(t)
	h := apikey.Hash("hand-written-key-000000")
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		tableschema.AttrKeyHash: &types.AttributeValueMemberS{Value: h},
		tableschema.AttrOwner:   &types.AttributeValueMemberS{Value: "alice"},
		tableschema.AttrStatus:  &types.AttributeValueMemberS{Value: "enabled"},
	}})
	require.NoError(t, err)
	r := apikey.NewResolver(dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table}), apikey.ResolverOptions{})

	_, err = r.Owner(ctx, "hand-written-key-000000")

	require.Error(t, err)
	assert.NotErrorIs(t, err, apikey.ErrUnknown)
}
