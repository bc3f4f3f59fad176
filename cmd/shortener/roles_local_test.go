package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

// TestKeyRolesThroughTheLocalRun: keys added with a role, through the
// local edge, gateway and authorizer as deployed: a viewer key reads the
// workspace's links and is refused a create with the 403 missing-role
// naming editor; an editor key creates; neither manages webhooks.
func TestKeyRolesThroughTheLocalRun(t *testing.T) {
	keysTable := testenv.UniqueName(t, "keys")
	origin := startLocal(t, "dev-key=dev", "KEYS_TABLE="+keysTable, "SHORTENER_KEY_CACHE_TTL=1ns")
	admin := map[string]string{"SHORTENER_DYNAMODB_ENDPOINT": testenv.DynamoDBEndpoint(t), "SHORTENER_KEYS_TABLE": keysTable}
	as := func(key string) *cli {
		env := map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": key}
		for k, v := range admin {
			env[k] = v
		}
		return newCLI(t, origin, env)
	}
	owner := as("dev-key")
	code := strings.TrimPrefix(strings.TrimSpace(owner.ok("shorten", "https://example.com/team-link")), origin+"/")
	viewerKey := strings.TrimSpace(owner.ok("keys", "add", "--owner", "dev", "--role", "viewer", "--note", "dashboard"))
	editorKey := strings.TrimSpace(owner.ok("keys", "add", "--owner", "dev", "--role", "editor"))

	viewer := as(viewerKey)
	assert.Contains(t, viewer.ok("get", code), "https://example.com/team-link", "a viewer reads the workspace's links")
	assert.Contains(t, viewer.ok("ls"), code)
	r := viewer.run("--json", "shorten", "https://example.com/by-a-viewer")
	require.Equal(t, exitFailed, r.code, r.stderr)
	var e struct {
		Problem struct {
			Type, Detail string
			Status       int
		} `json:"problem"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	assert.Equal(t, 403, e.Problem.Status)
	assert.True(t, strings.HasSuffix(e.Problem.Type, "#missing-role"), e.Problem.Type)
	assert.Contains(t, e.Problem.Detail, "editor")

	editor := as(editorKey)
	editor.ok("shorten", "https://example.com/by-an-editor")
	editor.ok("edit", code, "--url", "https://example.com/edited")
	assert.Contains(t, viewer.ok("get", code), "https://example.com/edited")

	r = owner.run("--json", "keys", "ls", "--owner", "dev")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"role": "viewer"`)
	assert.Contains(t, r.stdout, `"role": "admin"`, "the seeded key, written without a role, is admin")
	r = owner.run("keys", "add", "--owner", "dev", "--role", "owner")
	assert.Equal(t, exitUsage, r.code, r.stderr)
}
