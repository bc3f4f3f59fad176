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

type sent struct{ msgs []webhook.Message }

func (s *sent) Send(_ context.Context, m webhook.Message, _ time.Duration) error {
	s.msgs = append(s.msgs, m)
	return nil
}

type links map[string]string // code -> owner

func (l links) Get(_ context.Context, code string) (link.Link, error) {
	owner, ok := l[code]
	if !ok {
		return link.Link{}, link.ErrNotFound
	}
	return link.Link{Code: code, Owner: owner}, nil
}

func (l links) GetTombstone(context.Context, string) (link.Tombstone, error) {
	return link.Tombstone{}, link.ErrNotFound
}

// humans is code's human clicks at the given times.
func humans(code string, at ...time.Time) webhook.CodeClicks {
	c := webhook.CodeClicks{Code: code}
	for _, t := range at {
		c.Human = append(c.Human, t.UnixMilli())
	}
	return c
}

// bots adds bot clicks at the given times to c.
func bots(c webhook.CodeClicks, at ...time.Time) webhook.CodeClicks {
	for _, t := range at {
		c.Bot = append(c.Bot, t.UnixMilli())
	}
	return c
}

func TestClickPublisher(t *testing.T) {
	ctx := context.Background()
	store := webhook.NewMemory()
	for _, s := range []webhook.Subscription{
		{ID: "wh_all", Owner: "alice", Events: []string{webhook.LinkClicked}},
		{ID: "wh_human", Owner: "alice", Events: []string{webhook.LinkClicked}, HumanOnly: true},
		{ID: "wh_created", Owner: "alice", Events: []string{webhook.LinkCreated}},
		{ID: "wh_bob", Owner: "bob", Events: []string{webhook.LinkClicked}},
	} {
		require.NoError(t, store.Create(ctx, s))
	}
	q := &sent{}
	lists := &countingLister{Lister: store}
	p := &webhook.ClickPublisher{Links: links{"abc": "alice", "bots": "alice"}, Publisher: &webhook.Publisher{Subscriptions: lists, Queue: q}}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rest, err := p.Clicked(ctx, webhook.ClickBatch{ID: "shard|1|9", Codes: []webhook.CodeClicks{
		bots(humans("abc", at, at.Add(time.Second)), at),
		bots(webhook.CodeClicks{Code: "bots"}, at, at),
		humans("gone", at),
	}})
	require.NoError(t, err)
	assert.Empty(t, rest.Codes)
	var got []string
	for _, m := range q.msgs {
		var c webhook.Clicks
		require.NoError(t, json.Unmarshal(m.Event.Data, &c))
		got = append(got, m.Subscription+":"+c.Code)
		assert.Equal(t, webhook.LinkClicked, m.Event.Type)
		assert.Equal(t, webhook.EventID("shard|1|9", c.Code), m.Event.ID)
		if c.Code == "abc" {
			assert.Equal(t, webhook.Clicks{Code: "abc", Total: 3, Human: 2, Bot: 1, From: at, To: at.Add(time.Second)}, c)
			assert.Equal(t, at.Add(time.Second), m.Event.Timestamp, "stamped with the code's last click")
		}
	}
	assert.ElementsMatch(t, []string{"wh_all:abc", "wh_human:abc", "wh_all:bots"}, got,
		"human_only drops the bot-only batch; other types and other owners get nothing")
	assert.Equal(t, 1, lists.n, "one owner's subscriptions are read once per batch")
}

// countingLister counts List calls.
type countingLister struct {
	webhook.Lister
	n int
}

func (c *countingLister) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	c.n++
	return c.Lister.List(ctx, owner)
}
