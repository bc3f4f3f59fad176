package rie_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretsManager answers GetSecretValue (the JSON 1.1 protocol the SDK
// speaks: a POST with X-Amz-Target) for one secret, by staging label; a
// label it lacks is ResourceNotFoundException, as a secret never rotated
// answers for AWSPREVIOUS.
type secretsManager struct {
	id     string
	stages map[string]string
	mu     sync.Mutex
	asked  []string
}

func (s *secretsManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct{ SecretId, VersionStage string }
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	s.mu.Lock()
	s.asked = append(s.asked, r.Header.Get("X-Amz-Target")+" "+in.SecretId+" "+in.VersionStage)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	v, ok := s.stages[in.VersionStage]
	if in.SecretId != s.id || !ok {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"ResourceNotFoundException","message":"Secrets Manager can't find the specified secret."}`)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"Name": in.SecretId, "SecretString": v, "VersionStages": []string{in.VersionStage}})
}

// testOriginAuth: the authorizer's bootstrap reads its secret from Secrets
// Manager (ORIGIN_SECRET_ID, the SDK's endpoint variables) and answers the
// HTTP API authorizer event with a simple response.
func testOriginAuth(t *testing.T, _ tables, _ *shared) {
	sm := &secretsManager{id: "origin-secret", stages: map[string]string{"AWSCURRENT": "c2VjcmV0LW9yaWdpbi12YWx1ZQ"}}
	srv := httptest.NewServer(sm)
	t.Cleanup(srv.Close)
	f := start(t, "originauth", env(t, "originauth", map[string]string{
		"ORIGIN_SECRET_ID":                 "origin-secret",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": srv.URL,
	}))

	var got struct {
		IsAuthorized bool `json:"isAuthorized"`
	}
	res := invoke(t, f, fixture(t, "originauth", "authorizer-v2-request.json", nil))
	require.NoError(t, json.Unmarshal(res.Body, &got), "%s", res.Body)
	assert.True(t, got.IsAuthorized, "the fixture carries the current secret")

	wrong := fixture(t, "originauth", "authorizer-v2-request.json", func(ev map[string]any) {
		ev["headers"].(map[string]any)["x-origin-verify"] = "guess"
	})
	res = invoke(t, f, wrong)
	require.NoError(t, json.Unmarshal(res.Body, &got))
	assert.False(t, got.IsAuthorized)
	assert.Contains(t, sm.asked, "secretsmanager.GetSecretValue origin-secret AWSCURRENT")
}
