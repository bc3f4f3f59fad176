package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
)

// TestAuthorizerThroughTheLocalRun: through the local edge and gateway,
// as deployed, the /v1 authorizer runs for every request: no credential,
// a token while no identity provider is configured, and both credentials
// at once are the API's problem+json 401; an unknown key is its 403; a key
// of the keys table gets in. The problems page runs no authorizer.
func TestAuthorizerThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	tests := []struct {
		name     string
		key      string
		headers  []string
		status   int
		wantType string
	}{
		{name: "no credential", status: 401, wantType: "unauthenticated"},
		{name: "a token, no identity provider", headers: []string{"Authorization", "Bearer eyJ.e30.sig"}, status: 401, wantType: "unauthenticated"},
		{name: "both", key: r.key, headers: []string{"Authorization", "Bearer eyJ.e30.sig"}, status: 401, wantType: "unauthenticated"},
		{name: "an unknown key", key: "not-a-key-of-the-table-0", status: 403, wantType: "forbidden"},
		{name: "a key", key: r.key, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header, body := r.do(t, "GET", "/v1/links", tt.key, "", tt.headers...)
			require.Equal(t, tt.status, status, string(body))
			if tt.wantType == "" {
				return
			}
			assert.Equal(t, apigw.ContentTypeProblem, header.Get("Content-Type"))
			var p apigw.Problem
			require.NoError(t, json.Unmarshal(body, &p))
			assert.Equal(t, apigw.ProblemBase+tt.wantType, p.Type)
		})
	}
	status, _, _ := r.do(t, "GET", apigw.ProblemsPath, "", "")
	assert.Equal(t, http.StatusOK, status)
}

// TestKeysAPIThroughTheLocalRun: a key created with POST /v1/keys gets in
// at once, with its role and no more, and is revoked with DELETE. (That a
// revoked key is refused once the key cache lets go of it is
// TestKeysOfTheKeysAPI's, on a clock.)
func TestKeysAPIThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	status, _, body := r.do(t, "POST", "/v1/keys", r.key, `{"role":"viewer","note":"local"}`)
	require.Equal(t, http.StatusCreated, status, string(body))
	var created struct{ Key, ID string }
	require.NoError(t, json.Unmarshal(body, &created))

	status, _, body = r.do(t, "GET", "/v1/links", created.Key, "")
	assert.Equal(t, http.StatusOK, status, "a new key works at once: %s", body)
	status, _, body = r.do(t, "POST", "/v1/links", created.Key, `{"url":"https://example.com/"}`)
	assert.Equal(t, http.StatusForbidden, status, "a viewer key makes no link: %s", body)
	status, _, body = r.do(t, "GET", "/v1/keys", created.Key, "")
	assert.Equal(t, http.StatusForbidden, status, "nor lists keys: %s", body)

	status, _, body = r.do(t, "DELETE", "/v1/keys/"+created.ID, r.key, "")
	require.Equal(t, http.StatusNoContent, status, string(body))
}
