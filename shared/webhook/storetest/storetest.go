// Package storetest is the behaviour every webhook.Store must have, run
// against the in-memory store and against DynamoDB Local.
package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Run runs the suite; newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) webhook.Store) {
	runSubscriptions(t, newStore)
	runDeliveries(t, newStore)
}

// at is when every subscription of the suite was created.
var at = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// sub is owner's subscription id, with every field set.
func sub(owner, id string) webhook.Subscription {
	return webhook.Subscription{ID: id, Owner: owner, URL: "https://hooks.example.com/" + id,
		Events: []string{webhook.LinkCreated, webhook.LinkClicked}, HumanOnly: true,
		Secret: "whsec_c2VjcmV0", CreatedAt: at}
}

// runSubscriptions runs the cases of a subscription's life: create,
// get, list, delete, disable, every change and the cap.
func runSubscriptions(t *testing.T, newStore func(t *testing.T) webhook.Store) {
	ctx := context.Background()

	t.Run("create, get, list, owner-scoped", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Create(ctx, sub("alice", "wh_1")))
		require.NoError(t, s.Create(ctx, sub("alice", "wh_2")))
		require.NoError(t, s.Create(ctx, sub("bob", "wh_3")))
		assert.ErrorIs(t, s.Create(ctx, sub("alice", "wh_1")), link.ErrConflict)

		got, err := s.Get(ctx, "alice", "wh_1")
		require.NoError(t, err)
		assert.Equal(t, sub("alice", "wh_1"), got)
		_, err = s.Get(ctx, "bob", "wh_1")
		assert.ErrorIs(t, err, link.ErrNotFound, "another owner's subscription is not found")

		list, err := s.List(ctx, "alice")
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, []string{"wh_1", "wh_2"}, []string{list[0].ID, list[1].ID})
		list, err = s.List(ctx, "carol")
		require.NoError(t, err)
		assert.Empty(t, list)
	})

	// The fan-out (webhookstream, clicks) and the API's listing read List;
	// only Get, for the delivery function, carries the signing secret.
	t.Run("list leaves the secret out, get has it", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Create(ctx, sub("alice", "wh_1")))
		list, err := s.List(ctx, "alice")
		require.NoError(t, err)
		require.Len(t, list, 1)
		want := sub("alice", "wh_1")
		want.Secret = ""
		assert.Equal(t, want, list[0], "every other field, no secret")
		got, err := s.Get(ctx, "alice", "wh_1")
		require.NoError(t, err)
		assert.Equal(t, "whsec_c2VjcmV0", got.Secret)
	})

	t.Run("delete and disable", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Create(ctx, sub("alice", "wh_1")))
		assert.ErrorIs(t, s.Delete(ctx, "bob", "wh_1"), link.ErrNotFound)
		assert.ErrorIs(t, s.Disable(ctx, "bob", "wh_1"), link.ErrNotFound)
		require.NoError(t, s.Disable(ctx, "alice", "wh_1"))
		got, err := s.Get(ctx, "alice", "wh_1")
		require.NoError(t, err)
		assert.True(t, got.Disabled)
		assert.False(t, got.Wants(webhook.LinkCreated))
		require.NoError(t, s.Delete(ctx, "alice", "wh_1"))
		assert.ErrorIs(t, s.Delete(ctx, "alice", "wh_1"), link.ErrNotFound)
	})

	t.Run("every change raises the version", func(t *testing.T) {
		s := newStore(t)
		v0, err := s.Version(ctx)
		require.NoError(t, err)
		last := v0
		raised := func(what string) {
			t.Helper()
			v, err := s.Version(ctx)
			require.NoError(t, err)
			assert.Greater(t, v, last, what)
			last = v
		}
		require.NoError(t, s.Create(ctx, sub("alice", "wh_1")))
		raised("create")
		require.NoError(t, s.Disable(ctx, "alice", "wh_1"))
		raised("disable")
		require.NoError(t, s.Delete(ctx, "alice", "wh_1"))
		raised("delete")

		require.NoError(t, s.Create(ctx, sub("alice", "wh_2")))
		raised("another create")
		require.NoError(t, s.Record(ctx, "alice", webhook.Delivery{Subscription: "wh_2", EventID: "msg_a", Attempt: 1, At: at}))
		assert.ErrorIs(t, s.Delete(ctx, "alice", "wh_1"), link.ErrNotFound)
		assert.ErrorIs(t, s.Disable(ctx, "alice", "wh_1"), link.ErrNotFound)
		assert.ErrorIs(t, s.Create(ctx, sub("alice", "wh_2")), link.ErrConflict)
		v, err := s.Version(ctx)
		require.NoError(t, err)
		assert.Equal(t, last, v, "a delivery's record and a refused change leave it")
		list, err := s.List(ctx, "alice")
		require.NoError(t, err)
		assert.Len(t, list, 1, "the version is no owner's subscription")
	})

	t.Run("cap", func(t *testing.T) {
		s := newStore(t)
		for i := range webhook.MaxSubscriptions {
			require.NoError(t, s.Create(ctx, sub("alice", fmt.Sprintf("wh_%02d", i))))
		}
		assert.ErrorIs(t, s.Create(ctx, sub("alice", "wh_more")), link.ErrConflict)
		assert.NoError(t, s.Create(ctx, sub("bob", "wh_more")), "the cap is per owner")
	})
}

// runDeliveries runs the cases of the deliveries kept for a
// subscription.
func runDeliveries(t *testing.T, newStore func(t *testing.T) webhook.Store) {
	ctx := context.Background()

	t.Run("deliveries newest first", func(t *testing.T) {
		s := newStore(t)
		for i := 1; i <= 3; i++ {
			d := webhook.Delivery{Subscription: "wh_1", EventID: "msg_a", Event: webhook.LinkCreated, Attempt: i,
				Status: webhook.StatusRetrying, ResponseCode: 500, At: at.Add(time.Duration(i) * time.Minute),
				NextRetry: at.Add(time.Duration(i)*time.Minute + 5*time.Second)}
			if i == 3 {
				d.Status, d.ResponseCode, d.NextRetry = webhook.StatusDelivered, 204, time.Time{}
			}
			require.NoError(t, s.Record(ctx, "alice", d))
		}
		require.NoError(t, s.Record(ctx, "alice", webhook.Delivery{Subscription: "wh_10", EventID: "msg_b", Attempt: 1, At: at}))
		ds, err := s.Deliveries(ctx, "alice", "wh_1", 2)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		assert.Equal(t, webhook.Delivery{Subscription: "wh_1", EventID: "msg_a", Event: webhook.LinkCreated, Attempt: 3,
			Status: webhook.StatusDelivered, ResponseCode: 204, At: at.Add(3 * time.Minute)}, ds[0])
		assert.Equal(t, 2, ds[1].Attempt)
		assert.Equal(t, at.Add(2*time.Minute+5*time.Second), ds[1].NextRetry)
		ds, err = s.Deliveries(ctx, "bob", "wh_1", 10)
		require.NoError(t, err)
		assert.Empty(t, ds)
	})
}
