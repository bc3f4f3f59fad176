package clicksfn_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// queue records what the publisher sends, per owner.
type queue struct {
	mu   sync.Mutex
	sent map[string]int
}

func (q *queue) SendMessage(_ context.Context, _, body string, _ int32) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent[body]++
	return "m", nil
}

func (q *queue) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, c := range q.sent {
		n += c
	}
	return n
}

// TestClickEventReads: the link.clicked publisher as the clicks function
// is wired, on DynamoDB Local with every read's consumed capacity counted,
// over a batch of 300 distinct codes of 100 owners (10 of them
// subscribed). The first batch of a cold function reads each code's owner
// and each owner's subscriptions; the same codes again in the next batch
// read only the subscriptions' version. A subscription created between
// two batches gets the second one's events: caching opens no window.
func TestClickEventReads(t *testing.T) {
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	plain := emulator.NewDynamoDBClient(endpoint)
	linksTable, hooksTable := testenv.UniqueName(t, "links"), testenv.UniqueName(t, "webhooks")
	require.NoError(t, localtable.Create(ctx, plain, linksTable, tableschema.Links()))
	require.NoError(t, localtable.Create(ctx, plain, hooksTable, tableschema.Webhooks()))

	now := time.Now().UTC().Truncate(time.Second)
	links := dynamo.NewLinkStore(plain, dynamo.LinkConfig{LinksTable: linksTable})
	const codes, owners = 300, 100
	for i := range codes {
		code := fmt.Sprintf("c%06d", i)
		require.NoError(t, links.Create(ctx, link.Link{Code: code, URL: "https://example.com/" + code,
			Owner: fmt.Sprintf("owner-%03d", i%owners), CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(24 * time.Hour),
			Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
	}
	subs := dynamo.NewWebhookStore(plain, dynamo.Config{Table: hooksTable})
	subscribe := func(owner string) {
		require.NoError(t, subs.Create(ctx, webhook.Subscription{ID: "wh_" + owner, Owner: owner,
			URL: "https://hooks.example.com/" + owner, Events: []string{webhook.LinkClicked}, Secret: "whsec_c2VjcmV0", CreatedAt: now}))
	}
	for o := range 10 {
		subscribe(fmt.Sprintf("owner-%03d", o))
	}

	env := map[string]string{"ANALYTICS_TABLE": "analytics", "LINKS_TABLE": linksTable, "WEBHOOKS_TABLE": hooksTable,
		"WEBHOOK_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/deliveries"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	var meter capacity.Meter
	q := &queue{sent: map[string]int{}}
	h, err := clicksfn.Build(cfg, fnclients.Clients{
		AWS: meter.Config(emulator.AWSConfig(endpoint)), SQS: q,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: io.Discard,
	})
	require.NoError(t, err)
	require.NotNil(t, h.Events)

	require.NotNil(t, h.Outbox)
	batch := make([]webhook.CodeClicks, codes)
	for i := range batch {
		batch[i] = webhook.CodeClicks{Code: fmt.Sprintf("c%06d", i), Human: []int64{now.UnixMilli()}}
	}
	publish := func(id string) (capacity.Usage, int) {
		before, sent := meter.Usage(), q.count()
		rest, err := h.Events.Clicked(ctx, webhook.ClickBatch{ID: id, Codes: batch})
		require.NoError(t, err)
		require.Empty(t, rest.Codes)
		return meter.Usage().Sub(before), q.count() - sent
	}

	cold, sent := publish("batch-1")
	assert.Equal(t, 30, sent, "10 subscribed owners, 3 codes each")
	warm, sent := publish("batch-2")
	assert.Equal(t, 30, sent)
	subscribe("owner-050")
	fresh, sent := publish("batch-3")
	assert.Equal(t, 33, sent, "a subscription created between batches gets the next batch's events")
	t.Logf("RRU per batch of %d codes of %d owners: cold %.1f, warm %.1f, after a subscription change %.1f",
		codes, owners, cold.RRU, warm.RRU, fresh.RRU)

	assert.Equal(t, 1.0, warm.RRU, "a batch of known codes reads only the subscriptions' version")
	assert.Less(t, fresh.RRU, cold.RRU, "a subscription change requeries owners, not codes")
}
