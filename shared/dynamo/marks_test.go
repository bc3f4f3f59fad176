package dynamo_test

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
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// markMeter asks DynamoDB for the capacity each call consumed.
type markMeter struct {
	dynamo.API
	mu       sync.Mutex
	wru, rru []float64
}

func (m *markMeter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.UpdateItem(ctx, in, optFns...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
		m.wru = append(m.wru, *out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func (m *markMeter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.GetItem(ctx, in, optFns...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
		m.rru = append(m.rru, *out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func newMarkStore(t *testing.T) (*dynamo.MarkStore, *markMeter, *dynamodb.Client, string) {
	t.Helper()
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "marks")
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.EdgeMarks()))
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.EdgeMarks()), "an existing table is left alone")
	m := &markMeter{API: db}
	return dynamo.NewMarkStore(m, dynamo.Config{Table: table, Timeout: 5 * time.Second}), m, db, table
}

var markNow = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

// stamp is when the link the answers are built from was last changed.
var stamp = markNow.Add(-time.Hour)

// A mark is written in whole seconds rounded up, read back strongly
// consistently, and only ever raised: a smaller mark written after a
// larger one (a 410 for a minute after a redirect for a day) leaves the
// larger.
func TestMarksRiseAndReadBack(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newMarkStore(t)

	got, err := s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.True(t, got.IsZero(), "no mark: the zero time")

	day := markNow.Add(25*time.Hour + 300*time.Millisecond)
	require.NoError(t, s.Mark(ctx, "aB3dE5f", stamp, day))
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(25*time.Hour+time.Second), got, "rounded up to the second")

	require.NoError(t, s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(time.Hour+time.Minute)), "a smaller mark is no error")
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(25*time.Hour+time.Second), got, "and leaves the larger")

	require.NoError(t, s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(26*time.Hour)))
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(26*time.Hour), got, "a larger one raises it")

	other, err := s.HeldUntil(ctx, "promo25")
	require.NoError(t, err)
	assert.True(t, other.IsZero(), "each code has its own mark")
}

// Concurrent marks of one code leave the largest, whatever their order.
func TestConcurrentMarksLeaveTheLargest(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newMarkStore(t)
	const n = 30
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { assert.NoError(t, s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(time.Duration(i)*time.Minute))) })
	}
	wg.Wait()
	got, err := s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add((n-1)*time.Minute), got)
}

// TestCapacity measures what marks and fences cost: the figures in the
// package doc of edgemarks and in docs/lifecycle.md.
func TestCapacity(t *testing.T) {
	ctx := context.Background()
	s, m, _, _ := newMarkStore(t)
	// A code as long as an alias may be, so the item is as big as it gets.
	long := "spring-sale-2026-with-a-long-alias-of-sixty-four-characters-xyz"
	for _, code := range []string{"aB3dE5f", long} {
		require.NoError(t, s.Mark(ctx, code, stamp, markNow.Add(25*time.Hour))) // creates the item
		require.NoError(t, s.Mark(ctx, code, stamp, markNow.Add(26*time.Hour))) // raises it
		_, err := s.HeldUntil(ctx, code)                                        // a check that finds a mark
		require.NoError(t, err)
	}
	_, err := s.HeldUntil(ctx, "never00") // a check that finds none
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 1, 1, 1}, m.wru, "WRU per mark")
	assert.Equal(t, []float64{1, 1, 1}, m.rru, "RRU per strongly consistent check")
	t.Logf("WRU per mark %v, RRU per check %v", m.wru, m.rru)

	m.wru, m.rru = nil, nil
	_, err = s.Fence(ctx, "never00", markNow, markNow.Add(24*time.Hour)) // a change of a link no edge holds
	require.NoError(t, err)
	_, err = s.Fence(ctx, long, markNow, markNow.Add(24*time.Hour)) // of a held one: its mark reaches past the fence's life
	require.NoError(t, err)
	_, err = s.Fence(ctx, "aB3dE5f", markNow, markNow.Add(27*time.Hour)) // of a held one, the fence kept longer than its mark
	require.NoError(t, err)
	// The held code's first write fails its condition (its mark reaches
	// further) and is billed 1 WRU too, which the SDK's error does not
	// report: four in all.
	assert.Equal(t, []float64{1, 1, 1}, m.wru, "WRU per fence: one write, two when a mark reaches past the fence's life")
	assert.Empty(t, m.rru, "a fence reads nothing: it returns the mark it replaced")
	t.Logf("WRU per fence %v", m.wru)
}

// A fence refuses the marks of answers built from data older than its
// change, and only those, and reports the mark as it stood.
func TestFence(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newMarkStore(t)
	changed := markNow.Add(-1500 * time.Millisecond)

	before, err := s.Fence(ctx, "never00", changed, markNow.Add(24*time.Hour))
	require.NoError(t, err)
	assert.True(t, before.IsZero(), "no mark before")
	got, err := s.HeldUntil(ctx, "never00")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(24*time.Hour), got, "kept a day (its TTL)")

	assert.ErrorIs(t, s.Mark(ctx, "never00", stamp, markNow.Add(25*time.Hour)), edgemarks.ErrFenced, "older data")
	assert.ErrorIs(t, s.Mark(ctx, "never00", changed.Add(-time.Millisecond), markNow.Add(25*time.Hour)), edgemarks.ErrFenced,
		"a millisecond older")
	before, err = s.Fence(ctx, "never00", changed.Add(time.Second), markNow.Add(24*time.Hour+time.Minute))
	require.NoError(t, err)
	assert.True(t, before.IsZero(), "a second change, nobody asked since the first: the first fence's keep is no mark")

	require.NoError(t, s.Mark(ctx, "never00", changed.Add(time.Second), markNow.Add(2*time.Hour)), "the changed data marks")
	got, err = s.HeldUntil(ctx, "never00")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(2*time.Hour), got, "below the fence's keep: a mark lowers a keep")
	require.NoError(t, s.Mark(ctx, "never00", changed.Add(time.Second), markNow.Add(time.Hour)), "a smaller mark of it is no error")
	got, err = s.HeldUntil(ctx, "never00")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(2*time.Hour), got, "and never lowers a mark")
	before, err = s.Fence(ctx, "never00", changed.Add(2*time.Second), markNow.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(2*time.Hour), before, "a third change sees the answer's mark")

	// A mark that lands on the fence's keep to the second is a mark.
	_, err = s.Fence(ctx, "keep000", changed, markNow.Add(24*time.Hour))
	require.NoError(t, err)
	require.NoError(t, s.Mark(ctx, "keep000", changed, markNow.Add(24*time.Hour)))
	before, err = s.Fence(ctx, "keep000", changed.Add(time.Second), markNow.Add(24*time.Hour+time.Minute))
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(24*time.Hour), before, "the mark equal to the keep is seen")

	// A held code: the mark reaches past the fence's life, and is what
	// the fence reports; a later change's fence is never lowered.
	require.NoError(t, s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(25*time.Hour)))
	before, err = s.Fence(ctx, "aB3dE5f", changed, markNow.Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(25*time.Hour), before)
	assert.ErrorIs(t, s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(26*time.Hour)), edgemarks.ErrFenced)
	before, err = s.Fence(ctx, "aB3dE5f", stamp, markNow.Add(48*time.Hour))
	require.NoError(t, err, "an older change fenced after a later one")
	assert.Equal(t, markNow.Add(25*time.Hour), before)
	assert.ErrorIs(t, s.Mark(ctx, "aB3dE5f", stamp.Add(time.Minute), markNow.Add(26*time.Hour)), edgemarks.ErrFenced,
		"the later fence stands")
	got, err = s.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, markNow.Add(48*time.Hour), got, "kept as long as the older change asked")
}

// Marks racing a fence: every mark of old data either landed before the
// fence, and the fence reports it, or is refused.
func TestMarksRacingAFence(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := newMarkStore(t)
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	var before time.Time
	var ferr error
	for i := range n {
		wg.Go(func() { errs[i] = s.Mark(ctx, "aB3dE5f", stamp, markNow.Add(time.Duration(25*60+i)*time.Minute)) })
		if i == n/2 {
			wg.Go(func() { before, ferr = s.Fence(ctx, "aB3dE5f", markNow, markNow.Add(time.Hour)) })
		}
	}
	wg.Wait()
	require.NoError(t, ferr)
	for i, err := range errs {
		if err == nil {
			assert.False(t, before.Before(markNow.Add(25*time.Hour)), "mark %d landed, so the fence reports a mark", i)
			continue
		}
		assert.ErrorIs(t, err, edgemarks.ErrFenced, "mark %d", i)
	}
}

// A Check across Regions: held while any Region's mark runs, not once
// every mark has passed (an old mark, which TTL deletes in time, still
// reads back and says nothing), and held, with the error, when a Region
// cannot be read.
func TestCheckAcrossRegions(t *testing.T) {
	ctx := context.Background()
	east, _, _, _ := newMarkStore(t)
	west, _, db, _ := newMarkStore(t)

	c := edgemarks.Check{Regions: []edgemarks.Reader{east, west}}
	held, err := c.Held(ctx, "aB3dE5f", markNow)
	require.NoError(t, err)
	assert.False(t, held, "never marked")

	require.NoError(t, west.Mark(ctx, "aB3dE5f", stamp, markNow.Add(time.Minute)))
	held, err = c.Held(ctx, "aB3dE5f", markNow)
	require.NoError(t, err)
	assert.True(t, held, "one Region's mark runs")
	held, err = c.Held(ctx, "aB3dE5f", markNow.Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, held, "until its last second")
	held, err = c.Held(ctx, "aB3dE5f", markNow.Add(time.Minute+time.Second))
	require.NoError(t, err)
	assert.False(t, held, "expired: nothing held")

	gone := dynamo.NewMarkStore(db, dynamo.Config{Table: "no-such-table", Timeout: time.Second})
	c.Regions = append(c.Regions, gone)
	held, err = c.Held(ctx, "aB3dE5f", markNow.Add(time.Hour))
	require.Error(t, err)
	assert.True(t, held, "a Region that cannot be read counts as holding")
}

type failing struct{ dynamo.API }

func (failing) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errors.New("throttled")
}

// A mark that cannot be written is an error for the redirect to act on.
func TestMarkFailureIsAnError(t *testing.T) {
	s := dynamo.NewMarkStore(failing{}, dynamo.Config{Table: "t"})
	require.Error(t, s.Mark(context.Background(), "aB3dE5f", stamp, markNow))
}
