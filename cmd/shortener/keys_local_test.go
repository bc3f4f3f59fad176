package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

// TestKeyRotationThroughTheLocalRun rotates a key the way an operator
// does after a leak, through the CLI's keys commands against the local
// run's keys table: the new key sees and changes the old key's links (the
// owner outlives its key), a second key of the same owner sees them too,
// and a revoked key is refused with a 403 problem.
func TestKeyRotationThroughTheLocalRun(t *testing.T) {
	keysTable := testenv.UniqueName(t, "keys")
	// No key cache in the functions: the test sees a revocation at once
	// (the cache's bound is the resolver's unit tests' business).
	origin := startLocal(t, "dev-key=dev", "KEYS_TABLE="+keysTable, "SHORTENER_KEY_CACHE_TTL=1ns")
	admin := map[string]string{
		"SHORTENER_DYNAMODB_ENDPOINT": testenv.DynamoDBEndpoint(t),
		"SHORTENER_KEYS_TABLE":        keysTable,
	}
	as := func(key string) *cli {
		env := map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": key}
		for k, v := range admin {
			env[k] = v
		}
		return newCLI(t, origin, env)
	}
	old := as("dev-key")
	code := strings.TrimPrefix(strings.TrimSpace(old.ok("shorten", "https://example.com/before-rotation")), origin+"/")

	rotated := old.run("keys", "rotate", "dev-key")
	require.Equal(t, exitOK, rotated.code, "shortener keys rotate dev-key\nstdout: %s\nstderr: %s", rotated.stdout, rotated.stderr)
	newKey := strings.TrimSpace(rotated.stdout)
	require.Len(t, newKey, 40, "stdout is the new key alone")
	assert.Contains(t, rotated.stderr, "dev", "says whose key it is")
	assert.NotContains(t, rotated.stderr, newKey, "the key is printed once, on stdout")

	fresh := as(newKey)
	assert.Contains(t, fresh.ok("get", code), "https://example.com/before-rotation", "the new key sees the old key's link")
	assert.Contains(t, fresh.ok("ls"), code)
	fresh.ok("edit", code, "--url", "https://example.com/after-rotation")

	r := old.run("--json", "ls")
	assert.Equal(t, exitFailed, r.code, r.stderr)
	var e struct {
		Problem problem `json:"problem"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
	assert.Equal(t, 403, e.Problem.Status, "the revoked key is refused")
	assert.Contains(t, e.Problem.Type, "forbidden", "as a problem+json body")
	r = old.run("shorten", "https://example.com/with-a-revoked-key")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "403")

	// One owner, two keys: a key added for dev sees the same links.
	second := strings.TrimSpace(fresh.ok("keys", "add", "--owner", "dev", "--note", "ci"))
	assert.Contains(t, as(second).ok("get", code), "https://example.com/after-rotation")

	listed := fresh.ok("keys", "ls", "--owner", "dev")
	assert.Equal(t, 3, strings.Count(listed, "\n")-1, "a header and three keys of dev:\n%s", listed)
	assert.NotContains(t, listed, newKey, "the table holds hashes, never keys")
	assert.Contains(t, listed, "revoked")

	fresh.ok("keys", "revoke", second)
	r = as(second).run("get", code)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "403")
	assert.Contains(t, fresh.ok("get", code), code, "revoking one key leaves the owner's others working")

	fresh.checkTraffic(0)
}
