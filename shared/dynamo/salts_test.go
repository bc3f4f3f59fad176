package dynamo_test

import (
	"context"
	"sync"
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
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// TestSaltsOnePerDayThatExpires: concurrent first callers of a day end up
// with one salt, stored with a TTL 48 hours after the day's start, and a
// day past that gets none.
func TestSaltsOnePerDayThatExpires(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "salts")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Analytics()))
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	s := dynamo.NewSalts(db, dynamo.Config{Table: table}, func() time.Time { return now })
	day := now.Truncate(24 * time.Hour).Unix()

	salts := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range salts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, ok, err := s.Salt(context.Background(), day)
			assert.NoError(t, err)
			assert.True(t, ok)
			salts[i] = b
		}()
	}
	wg.Wait()
	require.Len(t, salts[0], visitors.SaltBytes)
	for _, b := range salts {
		assert.Equal(t, salts[0], b)
	}

	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		tableschema.AttrCode: &types.AttributeValueMemberS{Value: "#salt"}, tableschema.AttrBucket: &types.AttributeValueMemberS{Value: "20261203"},
	}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1796428800"}, out.Item[tableschema.AttrExpiresAt], "2026-12-05T00:00:00Z")
	assert.Len(t, out.Item, 4, "the key, the salt and its expiry: nothing else")

	_, ok, err := s.Salt(context.Background(), day-2*86400)
	require.NoError(t, err)
	assert.False(t, ok)
}
