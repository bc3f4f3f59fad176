package apiauthfn_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

type downMembers struct{ workspace.Store }

func (downMembers) Get(context.Context, string, string) (workspace.Member, error) {
	return workspace.Member{}, fmt.Errorf("get member: %w", link.ErrUnavailable)
}

func (downMembers) OfUser(context.Context, string, int) ([]workspace.Member, error) {
	return nil, fmt.Errorf("query members: %w", link.ErrUnavailable)
}

// TestWorkspaces: a signed-in user's workspace and role come from the
// members table: the one X-Workspace names (the user must be a member,
// or it is their personal one), else their only membership, else their
// personal workspace as its admin. A key's role is its record's, and a
// key names no other workspace than its own.
func TestWorkspaces(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	members := workspace.NewMemory()
	for _, m := range []workspace.Member{
		{Workspace: "team-a", User: "solo-sub", Role: workspace.RoleEditor},
		{Workspace: "team-a", User: "multi-sub", Role: workspace.RoleViewer},
		{Workspace: "team-b", User: "multi-sub", Role: workspace.RoleAdmin},
		{Workspace: "team-a", User: "boss-sub", Role: workspace.RoleAdmin},
	} {
		m.AddedAt = at
		require.NoError(t, members.Put(ctx, m))
	}
	keys := apikey.NewMemory(nil)
	viewerKey, _, err := apikey.IssueRole(ctx, keys, nil, "team-a", "", "dash", workspace.RoleViewer, at)
	require.NoError(t, err)
	legacyKey, _, err := apikey.Issue(ctx, keys, nil, "team-a", "", "old", at)
	require.NoError(t, err)
	verifier := fakeVerifier{
		"solo": {Subject: "solo-sub", TokenUse: "access"}, "multi": {Subject: "multi-sub", TokenUse: "access"},
		"none": {Subject: "none-sub", TokenUse: "access"},
	}
	tests := []struct {
		name      string
		headers   map[string]string
		members   apiauthfn.Members
		owner     string
		role      string
		deny, err bool
	}{
		{name: "one membership, no header", headers: bearer("solo", ""), owner: "team-a", role: "editor"},
		{name: "one membership, named", headers: bearer("solo", "team-a"), owner: "team-a", role: "editor"},
		{name: "one membership, the personal one named", headers: bearer("solo", "user:solo-sub"), owner: "user:solo-sub", role: "admin"},
		{name: "several memberships, no header: personal", headers: bearer("multi", ""), owner: "user:multi-sub", role: "admin"},
		{name: "several memberships, one named", headers: bearer("multi", "team-b"), owner: "team-b", role: "admin"},
		{name: "several memberships, the other named", headers: bearer("multi", "team-a"), owner: "team-a", role: "viewer"},
		{name: "no membership, no header: personal", headers: bearer("none", ""), owner: "user:none-sub", role: "admin"},
		{name: "not a member of the named workspace", headers: bearer("none", "team-a"), deny: true},
		{name: "a workspace that does not exist", headers: bearer("solo", "team-zzz"), deny: true},
		{name: "another user's personal workspace", headers: bearer("solo", "user:multi-sub"), deny: true},
		{name: "a malformed header", headers: bearer("solo", "team a"), deny: true},
		{name: "members table down", headers: bearer("solo", "team-a"), members: downMembers{}, err: true},
		{name: "members table down, no header", headers: bearer("solo", ""), members: downMembers{}, err: true},
		{name: "a viewer key", headers: map[string]string{"x-api-key": viewerKey}, owner: "team-a", role: "viewer"},
		{name: "a key written without a role is admin", headers: map[string]string{"x-api-key": legacyKey}, owner: "team-a", role: "admin"},
		{name: "a key naming its own workspace", headers: map[string]string{"x-api-key": viewerKey, "X-Workspace": "team-a"}, owner: "team-a", role: "viewer"},
		{name: "a key naming another workspace", headers: map[string]string{"x-api-key": legacyKey, "X-Workspace": "team-b"}, deny: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m apiauthfn.Members = members
			if tt.members != nil {
				m = tt.members
			}
			h := apiauthfn.New(apiauthfn.Options{Keys: apikey.NewResolver(keys, apikey.ResolverOptions{}), Members: m, Verifier: verifier, UsageKey: usageKey})
			resp, err := h.Handle(ctx, fixture(t, tt.headers))
			if tt.err {
				require.Error(t, err)
				assert.NotEqual(t, apiauthfn.ErrUnauthorized, err, "a table that cannot be read is a failure, not a refusal")
				return
			}
			require.NoError(t, err)
			if tt.deny {
				assert.Equal(t, "Deny", resp.PolicyDocument.Statement[0].Effect)
				assert.Empty(t, resp.Context, "a refusal carries no workspace")
				return
			}
			assert.Equal(t, "Allow", resp.PolicyDocument.Statement[0].Effect)
			assert.Equal(t, tt.owner, resp.Context["owner"])
			assert.Equal(t, tt.role, resp.Context["role"])
		})
	}
}

func bearer(token, ws string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token}
	if ws != "" {
		h["X-Workspace"] = ws
	}
	return h
}
