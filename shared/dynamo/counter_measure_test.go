package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// meter asks DynamoDB for the capacity each call consumed and adds it up.
type meter struct {
	dynamo.API  // the calls the counters do not make
	db          *dynamodb.Client
	read, write float64
}

func (m *meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.db.UpdateItem(ctx, in, optFns...)
	if out != nil && out.ConsumedCapacity != nil {
		m.write += *out.ConsumedCapacity.CapacityUnits
	}
	return out, err
}

func (m *meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.db.GetItem(ctx, in, optFns...)
	if out != nil && out.ConsumedCapacity != nil {
		m.read += *out.ConsumedCapacity.CapacityUnits
	}
	return out, err
}

// TestUnitsPerDecidedClick measures what docs/cost-model.md prices: a
// human click on a click-limited link is one write unit, a bot's look one
// half read unit, a password attempt one write unit per budget and a right
// one a second per budget (the attempt given back).
func TestUnitsPerDecidedClick(t *testing.T) {
	db := testenv.DynamoDBClient(t)
	table := testenv.UniqueName(t, "units")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Idempotency()))
	m := &meter{db: db}
	s := dynamo.NewCounter(m, table)
	ctx := context.Background()
	key := linkcounter.ClickKey("unit123", time.Now())

	for range 3 {
		ok, err := s.UseClick(ctx, key, 5, time.Now().Add(time.Hour))
		require.NoError(t, err)
		require.True(t, ok)
	}
	assert.Equal(t, 3.0, m.write, "one WRU per human click")
	_, err := s.ClicksUsed(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 0.5, m.read, "half an RRU per bot's look")

	m.read, m.write = 0, 0
	now := time.Now()
	_, err = s.Attempt(ctx, linkcounter.CodeKey("pw12345"), linkcounter.CodeLimit, now) // opens the window: a failed ADD, then the SET
	require.NoError(t, err)
	first := m.write
	m.write = 0
	_, err = s.Attempt(ctx, linkcounter.CodeKey("pw12345"), linkcounter.CodeLimit, now)
	require.NoError(t, err)
	require.NoError(t, s.Forgive(ctx, linkcounter.CodeKey("pw12345"), now))
	t.Logf("password: first attempt of a window %.1f WRU, a later one plus its forgiving %.1f WRU", first, m.write)
	assert.Equal(t, 2.0, m.write)

	// A right password as the redirect counts it: against the viewer's
	// budget and the code's, both given back.
	viewer := linkcounter.ViewerKey("pw12345", "192.0.2.1")
	_, err = s.Attempt(ctx, viewer, linkcounter.ViewerLimit, now) // opens the viewer's window
	require.NoError(t, err)
	m.write = 0
	_, err = s.Attempt(ctx, viewer, linkcounter.ViewerLimit, now)
	require.NoError(t, err)
	_, err = s.Attempt(ctx, linkcounter.CodeKey("pw12345"), linkcounter.CodeLimit, now)
	require.NoError(t, err)
	require.NoError(t, s.Forgive(ctx, viewer, now))
	require.NoError(t, s.Forgive(ctx, linkcounter.CodeKey("pw12345"), now))
	t.Logf("password: a right one, on both budgets and given back, %.1f WRU", m.write)
	assert.Equal(t, 4.0, m.write)
}
