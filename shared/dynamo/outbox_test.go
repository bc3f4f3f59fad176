package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

func newOutbox(t *testing.T) *dynamo.Outbox {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "analytics")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Analytics()))
	return dynamo.NewOutbox(db, dynamo.Config{Table: table, Timeout: 10 * time.Second})
}

// TestOutboxLifecycle: a kept batch is due at its due time, oldest first;
// a claim hides it until the claim ends and a second claim of the same
// read fails; a reschedule keeps what is left; a delete removes it.
func TestOutboxLifecycle(t *testing.T) {
	ctx := context.Background()
	o := newOutbox(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	b1 := webhook.ClickBatch{ID: "s|1|5", Codes: []webhook.CodeClicks{{Code: "a", Human: []int64{1, 2}}, {Code: "b", Bot: []int64{3}}}}
	b2 := webhook.ClickBatch{ID: "s|6|9", Codes: []webhook.CodeClicks{{Code: "c", Human: []int64{4}}}}
	require.NoError(t, o.Put(ctx, webhook.PendingClicks{Batch: b2, Since: now.Add(time.Second), Due: now.Add(time.Second)}))
	require.NoError(t, o.Put(ctx, webhook.PendingClicks{Batch: b1, Since: now, Due: now}))
	require.NoError(t, o.Put(ctx, webhook.PendingClicks{Batch: b1, Since: now, Due: now}), "kept twice, one item")

	due, err := o.Due(ctx, now.Add(-time.Millisecond), 10)
	require.NoError(t, err)
	assert.Empty(t, due, "nothing due before its time")
	due, err = o.Due(ctx, now.Add(time.Second), 10)
	require.NoError(t, err)
	require.Len(t, due, 2)
	assert.Equal(t, b1, due[0].Batch, "oldest first")
	assert.Equal(t, now, due[0].Since)
	assert.Equal(t, b2, due[1].Batch)
	first, err := o.Due(ctx, now.Add(time.Second), 1)
	require.NoError(t, err)
	assert.Len(t, first, 1, "limit")

	p := due[0]
	require.NoError(t, o.Claim(ctx, p, now.Add(time.Minute)))
	assert.ErrorIs(t, o.Claim(ctx, p, now.Add(time.Minute)), dynamo.ErrClaimed, "a second try of the same read loses")
	due, err = o.Due(ctx, now.Add(time.Second), 10)
	require.NoError(t, err)
	require.Len(t, due, 1, "a claimed batch is hidden")
	assert.Equal(t, b2, due[0].Batch)

	p.Batch.Codes, p.Due = p.Batch.Codes[1:], now.Add(2*time.Minute)
	require.NoError(t, o.Reschedule(ctx, p))
	due, err = o.Due(ctx, now.Add(2*time.Minute), 10)
	require.NoError(t, err)
	require.Len(t, due, 2)
	assert.Equal(t, webhook.ClickBatch{ID: "s|1|5", Codes: b1.Codes[1:]}, due[0].Batch, "what is left")
	assert.Equal(t, 1, due[0].Attempts, "the claim counted the attempt")

	require.NoError(t, o.Delete(ctx, due[0].Key))
	require.NoError(t, o.Delete(ctx, due[1].Key))
	due, err = o.Due(ctx, now.Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, due)
	require.NoError(t, o.Reschedule(ctx, p), "a reschedule of a deleted batch writes nothing")
	due, err = o.Due(ctx, now.Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, due)
}

// TestOutboxSplitsLargeBatches: a batch over one item's size is kept in
// parts of whole codes, which together hold every click.
func TestOutboxSplitsLargeBatches(t *testing.T) {
	ctx := context.Background()
	o := newOutbox(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	b := webhook.ClickBatch{ID: "s|1|40000"}
	clicks := 0
	for i := range 400 {
		c := webhook.CodeClicks{Code: fmt.Sprintf("code%04d", i)}
		for j := range 100 {
			c.Human = append(c.Human, now.UnixMilli()+int64(j))
			clicks++
		}
		b.Codes = append(b.Codes, c)
	}
	require.NoError(t, o.Put(ctx, webhook.PendingClicks{Batch: b, Since: now, Due: now}))
	due, err := o.Due(ctx, now, 100)
	require.NoError(t, err)
	require.Greater(t, len(due), 1, "in parts")
	var got []webhook.CodeClicks
	for _, p := range due {
		assert.Equal(t, b.ID, p.Batch.ID)
		got = append(got, p.Batch.Codes...)
	}
	assert.Equal(t, b.Codes, got)
}
