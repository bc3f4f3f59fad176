package webhook_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// graveyard is a links store whose codes are tombstones.
type graveyard map[string]link.Tombstone

func (g graveyard) Get(_ context.Context, code string) (link.Link, error) {
	t, ok := g[code]
	if !ok {
		return link.Link{}, link.ErrNotFound
	}
	return t.AsLink(), nil
}

func (g graveyard) GetTombstone(_ context.Context, code string) (link.Tombstone, error) {
	t, ok := g[code]
	if !ok {
		return link.Tombstone{}, link.ErrNotFound
	}
	return t, nil
}

// TestClicksBeforeADeleteReachTheFormerOwner: a batch counted after a
// link died still holds clicks served before; they go to the link's
// former owner as link.clicked, though no owner was cached. Clicks served
// after (the edge's cache) go to no one.
func TestClicksBeforeADeleteReachTheFormerOwner(t *testing.T) {
	died := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	before, after := died.Add(-2*time.Second), died.Add(time.Second)
	tests := []struct {
		name   string
		reason string
		clicks webhook.CodeClicks
		want   *webhook.Clicks // nil: no event
	}{
		{name: "deleted, clicked before", reason: link.ReasonDeleted, clicks: humans("dead", before, died.Add(-time.Millisecond)),
			want: &webhook.Clicks{Code: "dead", Total: 2, Human: 2, From: before, To: died.Add(-time.Millisecond)}},
		{name: "expired, clicked before", reason: link.ReasonExpired, clicks: bots(humans("dead", before), before),
			want: &webhook.Clicks{Code: "dead", Total: 2, Human: 1, Bot: 1, From: before, To: before}},
		{name: "clicked before and after: only those before", reason: link.ReasonDeleted, clicks: humans("dead", before, died, after),
			want: &webhook.Clicks{Code: "dead", Total: 1, Human: 1, From: before, To: before}},
		{name: "clicked only after", reason: link.ReasonDeleted, clicks: humans("dead", died, after)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			store := webhook.NewMemory()
			require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_alice", Owner: "alice", Events: []string{webhook.LinkClicked}}))
			q := &sent{}
			p := &webhook.ClickPublisher{
				Links:     graveyard{"dead": link.NewTombstone("dead", "alice", tt.reason, died, time.Hour)},
				Publisher: &webhook.Publisher{Subscriptions: store, Queue: q},
			}
			rest, err := p.Clicked(ctx, webhook.ClickBatch{ID: "shard|1|9", Codes: []webhook.CodeClicks{tt.clicks}})
			require.NoError(t, err)
			assert.Empty(t, rest.Codes)
			if tt.want == nil {
				assert.Empty(t, q.msgs)
				return
			}
			require.Len(t, q.msgs, 1, "the former owner gets the clicks served before the delete")
			var c webhook.Clicks
			require.NoError(t, json.Unmarshal(q.msgs[0].Event.Data, &c))
			assert.Equal(t, *tt.want, c)
			assert.Equal(t, "alice", q.msgs[0].Event.Owner)
			assert.Equal(t, webhook.EventID("shard|1|9", "dead"), q.msgs[0].Event.ID)
		})
	}
}

// TestClickedReturnsWhatIsLeft: when queueing fails, Clicked returns the
// codes from the one that failed on, so that publishing them later sends
// the rest under the same IDs.
func TestClickedReturnsWhatIsLeft(t *testing.T) {
	ctx := context.Background()
	store := webhook.NewMemory()
	require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_a", Owner: "alice", Events: []string{webhook.LinkClicked}}))
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	q := &flaky{okFirst: 1}
	p := &webhook.ClickPublisher{Links: links{"a": "alice", "b": "alice", "c": "alice"},
		Publisher: &webhook.Publisher{Subscriptions: store, Queue: q}}
	b := webhook.ClickBatch{ID: "s|1|3", Codes: []webhook.CodeClicks{humans("a", at), humans("b", at), humans("c", at)}}
	rest, err := p.Clicked(ctx, b)
	require.Error(t, err)
	assert.Equal(t, webhook.ClickBatch{ID: "s|1|3", Codes: b.Codes[1:]}, rest)

	q.okFirst = 100
	rest, err = p.Clicked(ctx, rest)
	require.NoError(t, err)
	assert.Empty(t, rest.Codes)
	assert.Equal(t, []string{webhook.EventID("s|1|3", "a"), webhook.EventID("s|1|3", "b"), webhook.EventID("s|1|3", "c")}, q.ids)
}

// flaky is a queue that takes okFirst messages, then fails.
type flaky struct {
	okFirst int
	ids     []string
}

func (f *flaky) Send(_ context.Context, m webhook.Message, _ time.Duration) error {
	if len(f.ids) >= f.okFirst {
		return assert.AnError
	}
	f.ids = append(f.ids, m.Event.ID)
	return nil
}
