package dynamo_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// missMeter asks DynamoDB for the capacity each write consumed.
type missMeter struct {
	dynamo.API
	mu  sync.Mutex
	wru []float64
}

func (m *missMeter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.UpdateItem(ctx, in, optFns...)
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
		m.mu.Lock()
		m.wru = append(m.wru, *out.ConsumedCapacity.CapacityUnits)
		m.mu.Unlock()
	}
	return out, err
}

// One miss is one atomic write of one write unit, counted exactly under
// concurrency, with its expiry set by the window's first miss.
func TestCountsEveryMissInOneWriteUnit(t *testing.T) {
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "misses")
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.Misses()))
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.Misses()), "an existing table is left alone")
	m := &missMeter{API: db}
	s := dynamo.NewMissCounter(m, dynamo.Config{Table: table, Timeout: 5 * time.Second})

	window := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	client := "2001:db8:85a3:1::/64"
	const n = 40
	var wg sync.WaitGroup
	counts := make([]int64, n)
	for i := range n {
		wg.Go(func() {
			c, err := s.Add(ctx, client, window, window.Add(time.Duration(2+i)*time.Hour))
			assert.NoError(t, err)
			counts[i] = c
		})
	}
	wg.Wait()
	seen := map[int64]bool{}
	for _, c := range counts {
		seen[c] = true
	}
	assert.Len(t, seen, n, "every miss got its own count: the ADD is atomic")
	for i := int64(1); i <= n; i++ {
		assert.True(t, seen[i], "count %d", i)
	}
	require.Len(t, m.wru, n)
	for _, w := range m.wru {
		assert.Equal(t, 1.0, w, "WRU of one miss")
	}

	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, ConsistentRead: new(true),
		Key: map[string]types.AttributeValue{tableschema.AttrClientWindow: &types.AttributeValueMemberS{Value: missbudget.Key(client, window)}}})
	require.NoError(t, err)
	exp := out.Item[tableschema.AttrExpiresAt].(*types.AttributeValueMemberN).Value
	assert.NotEqual(t, "", exp)
	c, err := s.Add(ctx, client, window, window.Add(100*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(n+1), c)
	again, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, ConsistentRead: new(true),
		Key: map[string]types.AttributeValue{tableschema.AttrClientWindow: &types.AttributeValueMemberS{Value: missbudget.Key(client, window)}}})
	require.NoError(t, err)
	assert.Equal(t, exp, again.Item[tableschema.AttrExpiresAt].(*types.AttributeValueMemberN).Value, "the first miss sets the expiry")

	other, err := s.Add(ctx, "198.51.100.10", window, window.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(1), other, "another client has its own count")
}
