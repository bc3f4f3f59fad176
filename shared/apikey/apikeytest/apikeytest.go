// Package apikeytest is the behaviour suite every keys table passes: the
// in-memory one and DynamoDB (on DynamoDB Local) alike.
package apikeytest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apikey"
)

// Run runs the suite; newStore returns an empty table for one test.
func Run(t *testing.T, newStore func(t *testing.T) apikey.Store) {
	ctx := context.Background()
	created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

	t.Run("a key's role is kept, through a rotation too; none is admin", func(t *testing.T) {
		s := newStore(t)
		key, rec, err := apikey.IssueRole(ctx, s, nil, "team", "", "ci", "viewer", created)
		require.NoError(t, err)
		got, err := s.Get(ctx, rec.Hash)
		require.NoError(t, err)
		assert.Equal(t, "viewer", got.Role)
		assert.Equal(t, "viewer", got.RoleOrAdmin())
		_, rotated, err := apikey.Rotate(ctx, s, nil, apikey.Hash(key), "", "", created.Add(time.Hour))
		require.NoError(t, err)
		got, err = s.Get(ctx, rotated.Hash)
		require.NoError(t, err)
		assert.Equal(t, "viewer", got.Role, "a rotated key keeps its role")

		_, legacy, err := apikey.Issue(ctx, s, nil, "team", "", "old", created)
		require.NoError(t, err)
		got, err = s.Get(ctx, legacy.Hash)
		require.NoError(t, err)
		assert.Empty(t, got.Role)
		assert.Equal(t, "admin", got.RoleOrAdmin(), "a key without a role is its workspace's admin")

		_, _, err = apikey.IssueRole(ctx, s, nil, "team", "", "", "owner", created)
		assert.Error(t, err, "not a role")
	})

	t.Run("an expiry is kept, and a rotation keeps the lifetime", func(t *testing.T) {
		s := newStore(t)
		expires := created.Add(90 * 24 * time.Hour)
		key, rec, err := apikey.IssueExpiring(ctx, s, nil, "team", "", "ci", "editor", created, expires)
		require.NoError(t, err)
		got, err := s.Get(ctx, rec.Hash)
		require.NoError(t, err)
		assert.Equal(t, expires, got.ExpiresAt)
		assert.False(t, got.Expired(expires.Add(-time.Millisecond)))
		assert.True(t, got.Expired(expires))

		later := created.Add(10 * 24 * time.Hour)
		_, rotated, err := apikey.Rotate(ctx, s, nil, apikey.Hash(key), "", "", later)
		require.NoError(t, err)
		got, err = s.Get(ctx, rotated.Hash)
		require.NoError(t, err)
		assert.Equal(t, later.Add(90*24*time.Hour), got.ExpiresAt, "the same lifetime from the rotation")

		_, _, err = apikey.IssueExpiring(ctx, s, nil, "team", "", "", "", created, created)
		assert.Error(t, err, "an expiry not after the creation")
	})

	t.Run("add then get", func(t *testing.T) {
		s := newStore(t)
		rec := apikey.Record{Hash: apikey.Hash("key-one-0123456789abc"), Owner: "alice", Status: apikey.StatusActive, CreatedAt: created, Note: "laptop"}
		require.NoError(t, s.Add(ctx, rec))

		got, err := s.Get(ctx, rec.Hash)

		require.NoError(t, err)
		assert.Equal(t, rec, got)
	})

	t.Run("unknown hash", func(t *testing.T) {
		s := newStore(t)

		_, err := s.Get(ctx, apikey.Hash("nobody-has-this-key-00"))

		assert.ErrorIs(t, err, apikey.ErrUnknown)
	})

	t.Run("a hash is added once", func(t *testing.T) {
		s := newStore(t)
		rec := apikey.Record{Hash: apikey.Hash("key-one-0123456789abc"), Owner: "alice", Status: apikey.StatusActive, CreatedAt: created}
		require.NoError(t, s.Add(ctx, rec))

		err := s.Add(ctx, apikey.Record{Hash: rec.Hash, Owner: "mallory", Status: apikey.StatusActive, CreatedAt: created})

		assert.ErrorIs(t, err, apikey.ErrExists)
		got, err := s.Get(ctx, rec.Hash)
		require.NoError(t, err)
		assert.Equal(t, "alice", got.Owner, "the first owner keeps the key")
	})

	t.Run("not a hash", func(t *testing.T) {
		s := newStore(t)

		err := s.Add(ctx, apikey.Record{Hash: "plain-key-never-stored", Owner: "alice", Status: apikey.StatusActive, CreatedAt: created})

		require.Error(t, err)
		assert.False(t, errors.Is(err, apikey.ErrExists))
	})

	t.Run("revoke keeps the owner and the first time", func(t *testing.T) {
		s := newStore(t)
		rec := apikey.Record{Hash: apikey.Hash("key-one-0123456789abc"), Owner: "alice", Status: apikey.StatusActive, CreatedAt: created}
		require.NoError(t, s.Add(ctx, rec))
		first := created.Add(time.Hour)

		got, err := s.Revoke(ctx, rec.Hash, first)
		require.NoError(t, err)
		again, err := s.Revoke(ctx, rec.Hash, first.Add(time.Hour))
		require.NoError(t, err)

		want := rec
		want.Status, want.RevokedAt = apikey.StatusRevoked, first
		assert.Equal(t, want, got)
		assert.Equal(t, want, again)
		read, err := s.Get(ctx, rec.Hash)
		require.NoError(t, err)
		assert.Equal(t, want, read)
	})

	t.Run("revoke unknown", func(t *testing.T) {
		s := newStore(t)

		_, err := s.Revoke(ctx, apikey.Hash("nobody-has-this-key-00"), created)

		assert.ErrorIs(t, err, apikey.ErrUnknown)
		_, err = s.Get(ctx, apikey.Hash("nobody-has-this-key-00"))
		assert.ErrorIs(t, err, apikey.ErrUnknown, "revoking never creates a key")
	})

	t.Run("list by owner, oldest first", func(t *testing.T) {
		s := newStore(t)
		recs := []apikey.Record{
			{Hash: apikey.Hash("key-b-0123456789abcdef"), Owner: "alice", Status: apikey.StatusActive, CreatedAt: created.Add(2 * time.Minute)},
			{Hash: apikey.Hash("key-a-0123456789abcdef"), Owner: "alice", Status: apikey.StatusActive, CreatedAt: created},
			{Hash: apikey.Hash("key-c-0123456789abcdef"), Owner: "bob", Status: apikey.StatusActive, CreatedAt: created.Add(time.Minute)},
		}
		for _, r := range recs {
			require.NoError(t, s.Add(ctx, r))
		}

		alice, err := s.List(ctx, "alice")
		require.NoError(t, err)
		all, err := s.List(ctx, "")
		require.NoError(t, err)

		assert.Equal(t, []apikey.Record{recs[1], recs[0]}, alice)
		assert.Equal(t, []apikey.Record{recs[1], recs[2], recs[0]}, all)
	})
}
