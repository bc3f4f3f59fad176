package webhookstreamfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

func load(t *testing.T, name string) events.DynamoDBEvent {
	t.Helper()
	return eventtest.Load[events.DynamoDBEvent](t, filepath.Join("testdata", name))
}

func TestMap(t *testing.T) {
	tests := []struct {
		fixture string
		typ     string // "" for no event
		owner   string
		status  string
	}{
		{fixture: "insert.json", typ: webhook.LinkCreated, status: "active"},
		{fixture: "modify.json", typ: webhook.LinkUpdated, status: "active"},
		{fixture: "soft-delete.json", typ: webhook.LinkDeleted, status: "tombstone"},
		{fixture: "expiry-sweep.json", typ: webhook.LinkExpired, status: "tombstone"},
		{fixture: "ttl-remove.json", typ: webhook.LinkExpired},
		{fixture: "user-remove.json", typ: webhook.LinkDeleted},
		{fixture: "tombstone-insert.json"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ev := load(t, tt.fixture)
			e, ok := webhookstreamfn.Map(&ev.Records[0])
			if tt.typ == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.typ, e.Type)
			assert.NotEmpty(t, e.Owner)
			assert.Regexp(t, `^msg_[0-9a-f]{24}$`, e.ID)
			var d webhookstreamfn.LinkData
			require.NoError(t, json.Unmarshal(e.Data, &d))
			assert.NotEmpty(t, d.Code)
			if tt.status != "" {
				assert.Equal(t, tt.status, d.Status)
			}
			again, _ := webhookstreamfn.Map(&ev.Records[0])
			assert.Equal(t, e.ID, again.ID, "a redelivered record has the same webhook-id")
		})
	}
}

// publisher records events and fails those of one type.
type publisher struct {
	got  []webhook.Event
	fail string
}

func (p *publisher) Publish(_ context.Context, e webhook.Event) (int, error) {
	if e.Type == p.fail {
		return 0, errors.New("queue down")
	}
	p.got = append(p.got, e)
	return 1, nil
}

func TestHandleReportsFailures(t *testing.T) {
	var batch events.DynamoDBEvent
	for _, f := range []string{"insert.json", "tombstone-insert.json", "modify.json", "ttl-remove.json"} {
		batch.Records = append(batch.Records, load(t, f).Records...)
	}
	p := &publisher{fail: webhook.LinkUpdated}
	h := webhookstreamfn.New(webhookstreamfn.Options{Events: p, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "webhookstream")})
	resp, err := h.Handle(context.Background(), batch)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 1)
	assert.Equal(t, batch.Records[2].Change.SequenceNumber, resp.BatchItemFailures[0].ItemIdentifier)
	require.Len(t, p.got, 2)
	assert.Equal(t, []string{webhook.LinkCreated, webhook.LinkExpired}, []string{p.got[0].Type, p.got[1].Type})
}

// counting is a subscription store that counts its reads.
type counting struct {
	*webhook.Memory
	lists, versions int
}

func (c *counting) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	c.lists++
	return c.Memory.List(ctx, owner)
}

func (c *counting) Version(ctx context.Context) (int64, error) {
	c.versions++
	return c.Memory.Version(ctx)
}

type queued struct{ n int }

func (q *queued) Send(context.Context, webhook.Message, time.Duration) error {
	q.n++
	return nil
}

// TestHandleReadsSubscriptionsOncePerBatch: with the subscriptions cached,
// a batch reads the version once and an owner's subscriptions once until
// one changes; a subscription created between two batches gets the second
// one's events.
func TestHandleReadsSubscriptionsOncePerBatch(t *testing.T) {
	var batch events.DynamoDBEvent
	for _, f := range []string{"insert.json", "modify.json", "ttl-remove.json"} {
		batch.Records = append(batch.Records, load(t, f).Records...)
	}
	ctx := context.Background()
	store := &counting{Memory: webhook.NewMemory()}
	q := &queued{}
	p := &webhook.Publisher{Subscriptions: store, Queue: q, Cache: &webhook.SubscriptionCache{Store: store}}
	h := webhookstreamfn.New(webhookstreamfn.Options{Events: p, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "webhookstream")})

	for range 2 {
		resp, err := h.Handle(ctx, batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
	}
	assert.Equal(t, 2, store.versions, "one version read a batch")
	assert.Equal(t, 1, store.lists, "one owner, read once while no subscription changed")
	assert.Zero(t, q.n)

	require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_1", Owner: "p6r4ocs3d1",
		Events: []string{webhook.LinkCreated, webhook.LinkUpdated, webhook.LinkExpired}}))
	_, err := h.Handle(ctx, batch)
	require.NoError(t, err)
	assert.Equal(t, 3, q.n, "the new subscription gets the next batch's three events")
}

// TestLinkDataCarriesImportedClicks: a link imported with another
// shortener's click total tells its receivers that total, and a link
// without one sends none.
func TestLinkDataCarriesImportedClicks(t *testing.T) {
	tests := []struct {
		fixture string
		want    int64
	}{
		{fixture: "imported-insert.json", want: 48213},
		{fixture: "insert.json"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ev := load(t, tt.fixture)
			e, ok := webhookstreamfn.Map(&ev.Records[0])
			require.True(t, ok)
			assert.Equal(t, webhook.LinkCreated, e.Type)
			var raw map[string]any
			require.NoError(t, json.Unmarshal(e.Data, &raw))
			if tt.want == 0 {
				assert.NotContains(t, raw, "imported_clicks")
				return
			}
			assert.Equal(t, float64(tt.want), raw["imported_clicks"])
		})
	}
}
