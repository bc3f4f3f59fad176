// Package workspacetest is the behaviour suite every workspace.Store
// passes: the in-memory one and the DynamoDB adapter on DynamoDB Local.
package workspacetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Run runs the suite, each test on a fresh store from newStore.
func Run(t *testing.T, newStore func(*testing.T) workspace.Store) {
	ctx := context.Background()
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	member := func(ws, user, role string) workspace.Member {
		return workspace.Member{Workspace: ws, User: user, Role: role, AddedAt: at, AddedBy: "operator"}
	}

	t.Run("put, get, list and of-user", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Put(ctx, member("team-a", "alice", workspace.RoleAdmin)))
		require.NoError(t, s.Put(ctx, member("team-a", "bob", workspace.RoleViewer)))
		require.NoError(t, s.Put(ctx, member("team-b", "bob", workspace.RoleEditor)))

		got, err := s.Get(ctx, "team-a", "bob")
		require.NoError(t, err)
		assert.Equal(t, member("team-a", "bob", workspace.RoleViewer), got)
		_, err = s.Get(ctx, "team-b", "alice")
		assert.ErrorIs(t, err, workspace.ErrNotMember)

		list, err := s.List(ctx, "team-a")
		require.NoError(t, err)
		assert.Equal(t, []workspace.Member{member("team-a", "alice", workspace.RoleAdmin), member("team-a", "bob", workspace.RoleViewer)}, list)
		empty, err := s.List(ctx, "nobody")
		require.NoError(t, err)
		assert.Empty(t, empty)

		of, err := s.OfUser(ctx, "bob", 10)
		require.NoError(t, err)
		assert.Equal(t, []workspace.Member{member("team-a", "bob", workspace.RoleViewer), member("team-b", "bob", workspace.RoleEditor)}, of)
		one, err := s.OfUser(ctx, "bob", 1)
		require.NoError(t, err)
		assert.Len(t, one, 1)
		none, err := s.OfUser(ctx, "carol", 10)
		require.NoError(t, err)
		assert.Empty(t, none)

		w, err := s.Workspace(ctx, "team-a")
		require.NoError(t, err)
		assert.Equal(t, 1, w.Admins)
	})

	t.Run("a role change keeps when and by whom the member was added", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Put(ctx, member("team-a", "alice", workspace.RoleAdmin)))
		require.NoError(t, s.Put(ctx, member("team-a", "bob", workspace.RoleViewer)))
		later := member("team-a", "bob", workspace.RoleEditor)
		later.AddedAt, later.AddedBy = at.Add(time.Hour), "user:alice"
		require.NoError(t, s.Put(ctx, later))
		got, err := s.Get(ctx, "team-a", "bob")
		require.NoError(t, err)
		assert.Equal(t, member("team-a", "bob", workspace.RoleEditor), got)
	})

	t.Run("the last admin can be neither demoted nor removed", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.Put(ctx, member("team-a", "alice", workspace.RoleAdmin)))
		assert.ErrorIs(t, s.Put(ctx, member("team-a", "alice", workspace.RoleEditor)), workspace.ErrLastAdmin)
		assert.ErrorIs(t, s.Remove(ctx, "team-a", "alice"), workspace.ErrLastAdmin)
		got, err := s.Get(ctx, "team-a", "alice")
		require.NoError(t, err)
		assert.Equal(t, workspace.RoleAdmin, got.Role, "a refused change changes nothing")

		require.NoError(t, s.Put(ctx, member("team-a", "bob", workspace.RoleAdmin)))
		require.NoError(t, s.Put(ctx, member("team-a", "alice", workspace.RoleViewer)), "with a second admin, the first may step down")
		assert.ErrorIs(t, s.Remove(ctx, "team-a", "bob"), workspace.ErrLastAdmin)
		require.NoError(t, s.Remove(ctx, "team-a", "alice"))
		_, err = s.Get(ctx, "team-a", "alice")
		assert.ErrorIs(t, err, workspace.ErrNotMember)
		assert.ErrorIs(t, s.Remove(ctx, "team-a", "alice"), workspace.ErrNotMember)
		w, err := s.Workspace(ctx, "team-a")
		require.NoError(t, err)
		assert.Equal(t, 1, w.Admins)
	})

	t.Run("a bad member is refused", func(t *testing.T) {
		s := newStore(t)
		for _, m := range []workspace.Member{
			member("team-a", "alice", "owner"), member("", "alice", workspace.RoleAdmin),
			member("team-a", "", workspace.RoleAdmin), member("team a", "alice", workspace.RoleAdmin),
		} {
			assert.ErrorIs(t, s.Put(ctx, m), workspace.ErrInvalid, "%+v", m)
		}
		_, err := s.Workspace(ctx, "team-a")
		assert.ErrorIs(t, err, workspace.ErrNoWorkspace, "nothing was written")
	})

	t.Run("ensure creates a workspace once and never changes it", func(t *testing.T) {
		s := newStore(t)
		created, err := s.Ensure(ctx, workspace.Workspace{ID: "dev", CreatedAt: at, CreatedBy: "migration"})
		require.NoError(t, err)
		assert.True(t, created)
		created, err = s.Ensure(ctx, workspace.Workspace{ID: "dev", CreatedAt: at.Add(time.Hour), CreatedBy: "someone"})
		require.NoError(t, err)
		assert.False(t, created)
		w, err := s.Workspace(ctx, "dev")
		require.NoError(t, err)
		assert.Equal(t, workspace.Workspace{ID: "dev", CreatedAt: at, CreatedBy: "migration"}, w)

		require.NoError(t, s.Put(ctx, member("dev", "alice", workspace.RoleAdmin)))
		w, err = s.Workspace(ctx, "dev")
		require.NoError(t, err)
		assert.Equal(t, 1, w.Admins, "a member put on an ensured workspace counts")
		assert.Equal(t, "migration", w.CreatedBy)
		created, err = s.Ensure(ctx, workspace.Workspace{ID: "dev"})
		require.NoError(t, err)
		assert.False(t, created)
		w, err = s.Workspace(ctx, "dev")
		require.NoError(t, err)
		assert.Equal(t, 1, w.Admins, "ensuring again keeps the admin count")
	})
}
