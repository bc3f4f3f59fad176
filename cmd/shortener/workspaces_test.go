package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// TestMigrateWorkspacesNeverRaisesARole: an owner whose first active key
// was given a lesser role still gets its workspace, the key keeps its
// role, and the migration says so with an error; a revoked first key is
// passed over for the first active one.
func TestMigrateWorkspacesNeverRaisesARole(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := apikey.NewMemory(nil)
	_, viewer, err := apikey.IssueRole(ctx, keys, nil, "team-v", "", "", workspace.RoleViewer, at)
	require.NoError(t, err)
	_, old, err := apikey.Issue(ctx, keys, nil, "team-r", "", "", at)
	require.NoError(t, err)
	_, err = keys.Revoke(ctx, old.Hash, at.Add(time.Hour))
	require.NoError(t, err)
	_, _, err = apikey.IssueRole(ctx, keys, nil, "team-r", "", "", workspace.RoleEditor, at.Add(2*time.Hour))
	require.NoError(t, err)
	_, _, err = apikey.Issue(ctx, keys, nil, "team-ok", "", "", at)
	require.NoError(t, err)

	members := workspace.NewMemory()
	done, merr := migrateWorkspaces(ctx, keys, members)
	require.ErrorIs(t, merr, errNoAdminKey)
	assert.Contains(t, merr.Error(), "team-v")
	assert.Contains(t, merr.Error(), "team-r")
	assert.NotContains(t, merr.Error(), "team-ok")
	assert.Equal(t, exitFailed, exitCode(merr))
	require.Len(t, done, 3)
	for _, m := range done {
		assert.True(t, m.Created, m.Workspace)
		_, werr := members.Workspace(ctx, m.Workspace)
		assert.NoError(t, werr)
	}
	got, err := keys.Get(ctx, viewer.Hash)
	require.NoError(t, err)
	assert.Equal(t, workspace.RoleViewer, got.Role, "the key keeps its role")
}
