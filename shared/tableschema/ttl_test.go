package tableschema_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestTTLDeletionPattern: the pattern is JSON and names exactly what
// IsTTLDeletion accepts.
func TestTTLDeletionPattern(t *testing.T) {
	var p struct {
		EventName    []string `json:"eventName"`
		UserIdentity struct {
			Type        []string `json:"type"`
			PrincipalID []string `json:"principalId"`
		} `json:"userIdentity"`
	}
	require.NoError(t, json.Unmarshal([]byte(tableschema.TTLDeletionPattern), &p))
	require.Len(t, p.EventName, 1)
	require.Len(t, p.UserIdentity.Type, 1)
	require.Len(t, p.UserIdentity.PrincipalID, 1)

	assert.True(t, tableschema.IsTTLDeletion(p.EventName[0], p.UserIdentity.Type[0], p.UserIdentity.PrincipalID[0]))
}

func TestIsTTLDeletion(t *testing.T) {
	tests := []struct {
		name                  string
		event, typ, principal string
		want                  bool
	}{
		{name: "TTL deletion", event: "REMOVE", typ: "Service", principal: "dynamodb.amazonaws.com", want: true},
		{name: "user deletion", event: "REMOVE"},
		{name: "another service", event: "REMOVE", typ: "Service", principal: "replication.dynamodb.amazonaws.com"},
		{name: "not a service", event: "REMOVE", typ: "User", principal: "dynamodb.amazonaws.com"},
		{name: "modify", event: "MODIFY", typ: "Service", principal: "dynamodb.amazonaws.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tableschema.IsTTLDeletion(tt.event, tt.typ, tt.principal))
		})
	}
}
