package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/workspace"
	"github.com/shortlink-dev/shortener/shared/workspace/workspacetest"
)

func TestMemory(t *testing.T) {
	workspacetest.Run(t, func(*testing.T) workspace.Store { return workspace.NewMemory() })
}

func TestAllows(t *testing.T) {
	tests := []struct {
		have, need string
		want       bool
	}{
		{workspace.RoleViewer, workspace.RoleViewer, true},
		{workspace.RoleViewer, workspace.RoleEditor, false},
		{workspace.RoleViewer, workspace.RoleAdmin, false},
		{workspace.RoleEditor, workspace.RoleViewer, true},
		{workspace.RoleEditor, workspace.RoleEditor, true},
		{workspace.RoleEditor, workspace.RoleAdmin, false},
		{workspace.RoleAdmin, workspace.RoleViewer, true},
		{workspace.RoleAdmin, workspace.RoleAdmin, true},
		{"", workspace.RoleViewer, false},
		{"owner", workspace.RoleViewer, false},
		{workspace.RoleAdmin, "owner", false},
	}
	for _, tt := range tests {
		t.Run(tt.have+">="+tt.need, func(t *testing.T) {
			assert.Equal(t, tt.want, workspace.Allows(tt.have, tt.need))
		})
	}
	assert.NoError(t, workspace.CheckRole(workspace.RoleEditor))
	assert.ErrorIs(t, workspace.CheckRole("Admin"), workspace.ErrInvalid)
}
