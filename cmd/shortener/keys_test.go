package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeysUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		wantErr  string
	}{
		{name: "no keys command", args: []string{"keys"}, wantCode: exitUsage, wantErr: "no keys command"},
		{name: "unknown keys command", args: []string{"keys", "delete"}, wantCode: exitUsage, wantErr: "unknown keys command"},
		{name: "add without owner", args: []string{"keys", "add"}, wantCode: exitUsage, wantErr: "--owner"},
		{name: "add with a bad owner", args: []string{"keys", "add", "--owner", "team a"}, wantCode: exitUsage, wantErr: "--owner"},
		{name: "add with a short key", args: []string{"keys", "add", "--owner", "a", "--key", "short"}, wantCode: exitUsage, wantErr: "--key"},
		{name: "no table", args: []string{"keys", "add", "--owner", "a"}, wantCode: exitUsage, wantErr: "KeysTableName"},
		{name: "revoke with key and hash", args: []string{"keys", "revoke", "k", "--hash", "ab"}, wantCode: exitUsage, wantErr: "one of the two"},
		{name: "revoke with neither", args: []string{"keys", "revoke"}, wantCode: exitUsage, wantErr: "one of the two"},
		{name: "rotate with a bad hash", args: []string{"keys", "rotate", "--hash", "XYZ"}, wantCode: exitUsage, wantErr: "--hash"},
		{name: "ls with an argument", args: []string{"keys", "ls", "x"}, wantCode: exitUsage},
		{name: "table unreachable", args: []string{"keys", "ls"}, env: map[string]string{envDynamoDBEndpoint: "http://127.0.0.1:1"},
			wantCode: exitUnavailable, wantErr: "list api keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t, "http://127.0.0.1:1", tt.env)

			r := c.run(tt.args...)

			assert.Equal(t, tt.wantCode, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.wantErr)
			if tt.name != "no keys command" {
				assert.Empty(t, r.stdout, "nothing on stdout")
			}
		})
	}
}
