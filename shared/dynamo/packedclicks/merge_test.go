package packedclicks_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
)

// countReads counts the items the store's chain merges read back (Query
// and GetItem at LevelChain) and their bytes: what their read units are
// made of.
type countReads struct {
	*dynamodb.Client
	mu           sync.Mutex
	items, bytes int
}

func (c *countReads) add(ctx context.Context, items ...map[string]types.AttributeValue) {
	if packedclicks.LevelOf(ctx) != packedclicks.LevelChain {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range items {
		if it == nil {
			continue
		}
		c.items++
		for k, v := range it {
			c.bytes += len(k)
			switch v := v.(type) {
			case *types.AttributeValueMemberB:
				c.bytes += len(v.Value)
			case *types.AttributeValueMemberS:
				c.bytes += len(v.Value)
			default:
				c.bytes += 8
			}
		}
	}
}

// take returns the counts so far and starts over.
func (c *countReads) take() (items, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	items, bytes = c.items, c.bytes
	c.items, c.bytes = 0, 0
	return items, bytes
}

func (c *countReads) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.Client.Query(ctx, in, opts...)
	if err == nil {
		c.add(ctx, out.Items...)
	}
	return out, err
}

func (c *countReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := c.Client.GetItem(ctx, in, opts...)
	if err == nil {
		c.add(ctx, out.Item)
	}
	return out, err
}

// TestChainMergeReadsDoNotGrowWithTheDay: a merge reads what arrived
// since the group's last merge and the tops of the chains it extends,
// not the day so far, so the 40th merge of a day reads what the second
// does (the first has no marker and no chain to read).
func TestChainMergeReadsDoNotGrowWithTheDay(t *testing.T) {
	f := newFixture(t, packedclicks.Config{Groups: 1, MergeBytes: 1, Buckets: 4})
	rec := &countReads{Client: f.db}
	s := f.another(rec)
	ctx := context.Background()
	cs := codes(30)
	const merges = 40
	var items, bytes [merges]int
	for i := range merges {
		seq := fmt.Sprint(10 * (i + 1))
		require.NoError(t, s.Apply(ctx, chunkOf(shard0, seq, seq, cs, now, 1)))
		res, err := s.Compact(ctx)
		require.NoError(t, err)
		require.Equal(t, 4, res.Merged, "merge %d: a chain item a bucket", i)
		items[i], bytes[i] = rec.take()
	}
	assert.LessOrEqual(t, items[merges-1], items[1], "items read by the last merge and the second")
	assert.LessOrEqual(t, bytes[merges-1], bytes[1]+bytes[1]/10, "bytes read by the last merge and the second")
	for code, n := range dayCounts(t, f.store, cs) {
		assert.Equal(t, int64(merges), n, code)
	}
}

// failMergePuts fails, at LevelChain, the nth PutItem whose partition key
// starts with prefix and every one after it: a compaction dying between
// two day item writes of a merge ("#d#"), or after them all and before it
// records the merge in its group's segment partition ("#s#").
type failMergePuts struct {
	*dynamodb.Client
	prefix string
	mu     sync.Mutex
	n      int
}

func (f *failMergePuts) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	pk, _ := in.Item["code"].(*types.AttributeValueMemberS)
	if packedclicks.LevelOf(ctx) == packedclicks.LevelChain && pk != nil && strings.HasPrefix(pk.Value, f.prefix) {
		f.mu.Lock()
		f.n--
		n := f.n
		f.mu.Unlock()
		if n <= 0 {
			return nil, errCrash
		}
	}
	return f.Client.PutItem(ctx, in, opts...)
}

// TestMergeThatDiedBeforeItsMarkerCountsOnce: a chain merge that dies
// after some or all of its day items and before the record of the merge
// is resumed exactly once, and the merges after it still count every
// click once.
func TestMergeThatDiedBeforeItsMarkerCountsOnce(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		n      int
	}{
		{"after one of four day items", "#d#", 2},
		{"after every day item", "#s#", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, packedclicks.Config{Groups: 1, MergeBytes: 1, Buckets: 4})
			ctx := context.Background()
			cs := codes(30)
			apply := func(s *packedclicks.Store, i int) {
				seq := fmt.Sprint(10 * (i + 1))
				require.NoError(t, s.Apply(ctx, chunkOf(shard0, seq, seq, cs, now, 1)))
			}
			for i := range 3 {
				apply(f.store, i)
				_, err := f.store.Compact(ctx)
				require.NoError(t, err)
			}
			apply(f.store, 3)
			want, err := f.store.Counts(ctx)
			require.NoError(t, err)

			_, err = f.another(&failMergePuts{Client: f.db, prefix: tt.prefix, n: tt.n}).Compact(ctx)
			require.ErrorIs(t, err, errCrash)
			got, err := f.store.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got, "while the merge is half done")

			f.clock.Add(packedclicks.DefaultLease + time.Second)
			res, err := f.store.Compact(ctx)
			require.NoError(t, err)
			assert.True(t, res.Resumed)
			got, err = f.store.Counts(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got, "resumed")
			for i := 4; i < 7; i++ {
				apply(f.store, i)
				_, err := f.store.Compact(ctx)
				require.NoError(t, err)
			}
			for code, n := range dayCounts(t, f.store, cs) {
				assert.Equal(t, int64(7), n, code)
			}
			// And once the day is folded.
			f.clock.Add(48 * time.Hour)
			_, err = f.store.Compact(ctx)
			require.NoError(t, err)
			assert.Equal(t, 4, f.dayItems(t), "one item a bucket-day")
			for code, n := range dayCounts(t, f.store, cs) {
				assert.Equal(t, int64(7), n, code)
			}
		})
	}
}
