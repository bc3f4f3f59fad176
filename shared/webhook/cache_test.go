package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// countingStore counts the reads the cache makes.
type countingStore struct {
	*webhook.Memory
	lists, versions int
}

func (c *countingStore) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	c.lists++
	return c.Memory.List(ctx, owner)
}

func (c *countingStore) Version(ctx context.Context) (int64, error) {
	c.versions++
	return c.Memory.Version(ctx)
}

// countingLinks counts owner lookups; a code in tomb is a tombstone.
type countingLinks struct {
	links
	tomb map[string]bool
	gets int
}

func (c *countingLinks) Get(ctx context.Context, code string) (link.Link, error) {
	c.gets++
	if c.tomb[code] {
		return link.Link{Code: code, Status: link.StatusTombstone}, nil
	}
	return c.links.Get(ctx, code)
}

// TestSubscriptionCache: owners' subscriptions, and that an owner has
// none, are read once while no subscription changes; any create, disable
// or delete is seen by the next batch, whichever owner it was for.
func TestSubscriptionCache(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{Memory: webhook.NewMemory()}
	require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_a", Owner: "alice", Events: []string{webhook.LinkClicked}}))
	cache := &webhook.SubscriptionCache{Store: store}
	list := func(owner string) []webhook.Subscription {
		t.Helper()
		b, err := cache.Batch(ctx)
		require.NoError(t, err)
		subs, err := b.List(ctx, owner)
		require.NoError(t, err)
		return subs
	}

	assert.Len(t, list("alice"), 1)
	assert.Empty(t, list("bob"))
	assert.Len(t, list("alice"), 1)
	assert.Empty(t, list("bob"))
	assert.Equal(t, 2, store.lists, "each owner read once while nothing changed")
	assert.Equal(t, 4, store.versions, "one version read per batch")

	require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_b", Owner: "bob", Events: []string{webhook.LinkClicked}}))
	assert.Len(t, list("bob"), 1, "a subscription created before the batch is in it")
	require.NoError(t, store.Disable(ctx, "bob", "wh_b"))
	assert.True(t, list("bob")[0].Disabled, "a disable too")
	require.NoError(t, store.Delete(ctx, "bob", "wh_b"))
	assert.Empty(t, list("bob"), "and a delete")
	require.NoError(t, store.Delete(ctx, "alice", "wh_a"))
	assert.Empty(t, list("alice"), "a change for another owner drops every owner's answer")

	small := &webhook.SubscriptionCache{Store: store, MaxOwners: 2}
	store.lists = 0
	for _, owner := range []string{"a", "b", "c", "a"} {
		b, err := small.Batch(ctx)
		require.NoError(t, err)
		_, err = b.List(ctx, owner)
		require.NoError(t, err)
	}
	assert.Equal(t, 4, store.lists, "past MaxOwners the cache starts over")
}

// TestClickPublisherCachesOwners: a code's owner is looked up once per
// OwnerTTL; an absent code and a tombstone are looked up every time (a
// create or a reissue may come at any moment).
func TestClickPublisherCachesOwners(t *testing.T) {
	ctx := context.Background()
	store := webhook.NewMemory()
	require.NoError(t, store.Create(ctx, webhook.Subscription{ID: "wh_a", Owner: "alice", Events: []string{webhook.LinkClicked}}))
	lk := &countingLinks{links: links{"abc": "alice", "def": "alice"}, tomb: map[string]bool{"old": true}}
	q := &sent{}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := &webhook.ClickPublisher{Links: lk, Publisher: &webhook.Publisher{Subscriptions: store, Queue: q},
		OwnerTTL: time.Minute, Now: func() time.Time { return now }}
	codes := []webhook.CodeClicks{humans("abc", now), humans("def", now), humans("old", now), humans("new", now)}
	clicked := func(p *webhook.ClickPublisher, id string, codes []webhook.CodeClicks) error {
		_, err := p.Clicked(ctx, webhook.ClickBatch{ID: id, Codes: codes})
		return err
	}

	require.NoError(t, clicked(p, "b1", codes))
	assert.Equal(t, 4, lk.gets)
	now = now.Add(59 * time.Second)
	require.NoError(t, clicked(p, "b2", codes))
	assert.Equal(t, 6, lk.gets, "the two live codes' owners kept; the tombstone and the absent code read again")
	assert.Len(t, q.msgs, 4, "alice's two codes, twice")

	lk.links["new"] = "alice" // created since
	now = now.Add(time.Second)
	require.NoError(t, clicked(p, "b3", codes))
	assert.Equal(t, 10, lk.gets, "past OwnerTTL every code is read again")
	assert.Len(t, q.msgs, 7, "the new link's clicks too")

	off := &webhook.ClickPublisher{Links: lk, Publisher: &webhook.Publisher{Subscriptions: store, Queue: q}, OwnerTTL: -1}
	require.NoError(t, clicked(off, "b4", codes[:1]))
	require.NoError(t, clicked(off, "b5", codes[:1]))
	assert.Equal(t, 12, lk.gets, "a negative OwnerTTL keeps nothing")
}

func TestOwnerTTLFor(t *testing.T) {
	assert.Equal(t, webhook.DefaultOwnerTTL, webhook.OwnerTTLFor(30*24*time.Hour))
	assert.Equal(t, 2500*time.Millisecond, webhook.OwnerTTLFor(5*time.Second), "below a short grace")
	assert.Less(t, webhook.OwnerTTLFor(time.Second), time.Second)
}
