package dynamomarks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/edgemarks/dynamomarks"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// metered asks DynamoDB for the capacity each call consumed.
type metered struct {
	dynamomarks.API
	mu       sync.Mutex
	wru, rru []float64
}

func (m *metered) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.UpdateItem(ctx, in, optFns...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
		m.wru = append(m.wru, *out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func (m *metered) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.GetItem(ctx, in, optFns...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
		m.rru = append(m.rru, *out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func newStore(t *testing.T) (*dynamomarks.Store, *metered, *dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "marks")
	require.NoError(t, dynamomarks.CreateTable(ctx, db, table))
	require.NoError(t, dynamomarks.CreateTable(ctx, db, table), "an existing table is left alone")
	m := &metered{API: db}
	return dynamomarks.New(m, dynamomarks.Config{Table: table, Timeout: 5 * time.Second}), m, db, table
}

var now = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

// A mark is written in whole seconds rounded up, read back strongly
// consistently, and only ever raised: a smaller mark written after a
// larger one (a 410 for a minute after a redirect for a day) leaves the
// larger.
func TestMarksRiseAndReadBack(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newStore(t)

	got, err := s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.True(t, got.IsZero(), "no mark: the zero time")

	day := now.Add(25*time.Hour + 300*time.Millisecond)
	require.NoError(t, s.Mark(ctx, "aB3dE5f", day))
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(25*time.Hour+time.Second), got, "rounded up to the second")

	require.NoError(t, s.Mark(ctx, "aB3dE5f", now.Add(time.Hour+time.Minute)), "a smaller mark is no error")
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(25*time.Hour+time.Second), got, "and leaves the larger")

	require.NoError(t, s.Mark(ctx, "aB3dE5f", now.Add(26*time.Hour)))
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(26*time.Hour), got, "a larger one raises it")

	other, err := s.HeldUntil(ctx, "promo25")
	require.NoError(t, err)
	assert.True(t, other.IsZero(), "each code has its own mark")
}

// Concurrent marks of one code leave the largest, whatever their order.
func TestConcurrentMarksLeaveTheLargest(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newStore(t)
	const n = 30
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { assert.NoError(t, s.Mark(ctx, "aB3dE5f", now.Add(time.Duration(i)*time.Minute))) })
	}
	wg.Wait()
	got, err := s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add((n-1)*time.Minute), got)
}

// TestCapacity measures what marks cost: the figures in the package doc
// of edgemarks.
func TestCapacity(t *testing.T) {
	ctx := context.Background()
	s, m, _, _ := newStore(t)
	// A code as long as an alias may be, so the item is as big as it gets.
	long := "spring-sale-2026-with-a-long-alias-of-sixty-four-characters-xyz"
	for _, code := range []string{"aB3dE5f", long} {
		require.NoError(t, s.Mark(ctx, code, now.Add(25*time.Hour))) // creates the item
		require.NoError(t, s.Mark(ctx, code, now.Add(26*time.Hour))) // raises it
		_, err := s.HeldUntil(ctx, code)                             // a check that finds a mark
		require.NoError(t, err)
	}
	_, err := s.HeldUntil(ctx, "never00") // a check that finds none
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 1, 1, 1}, m.wru, "WRU per mark")
	assert.Equal(t, []float64{1, 1, 1}, m.rru, "RRU per strongly consistent check")
	t.Logf("WRU per mark %v, RRU per check %v", m.wru, m.rru)
}

// A Check across Regions: held while any Region's mark runs, not once
// every mark has passed (an old mark, which TTL deletes in time, still
// reads back and says nothing), and held, with the error, when a Region
// cannot be read.
func TestCheckAcrossRegions(t *testing.T) {
	ctx := context.Background()
	east, _, _, _ := newStore(t)
	west, _, db, _ := newStore(t)

	c := edgemarks.Check{Regions: []edgemarks.Reader{east, west}}
	held, err := c.Held(ctx, "aB3dE5f", now)
	require.NoError(t, err)
	assert.False(t, held, "never marked")

	require.NoError(t, west.Mark(ctx, "aB3dE5f", now.Add(time.Minute)))
	held, err = c.Held(ctx, "aB3dE5f", now)
	require.NoError(t, err)
	assert.True(t, held, "one Region's mark runs")
	held, err = c.Held(ctx, "aB3dE5f", now.Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, held, "until its last second")
	held, err = c.Held(ctx, "aB3dE5f", now.Add(time.Minute+time.Second))
	require.NoError(t, err)
	assert.False(t, held, "expired: nothing held")

	gone := dynamomarks.New(db, dynamomarks.Config{Table: "no-such-table", Timeout: time.Second})
	c.Regions = append(c.Regions, gone)
	held, err = c.Held(ctx, "aB3dE5f", now.Add(time.Hour))
	require.Error(t, err)
	assert.True(t, held, "a Region that cannot be read counts as holding")
}

type failing struct{ dynamomarks.API }

func (failing) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errors.New("throttled")
}

// A mark that cannot be written is an error for the redirect to act on.
func TestMarkFailureIsAnError(t *testing.T) {
	s := dynamomarks.New(failing{}, dynamomarks.Config{Table: "t"})
	require.Error(t, s.Mark(context.Background(), "aB3dE5f", now))
}
