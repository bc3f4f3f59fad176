package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
)

// TestUsagePlanThroughTheLocalRun: the local run's gateway plays the /v1
// usage plan it is given, as the deployed API's does: once a key has made
// its daily quota of requests, the next is the QUOTA_EXCEEDED gateway
// response, through the edge. The quota is the deployment's, not the
// key's: the authorizer meters every caller on the one usage-plan key
// (docs/deploy.md), so another key has used it up too. The problems page
// (no key) is not counted.
func TestUsagePlanThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, map[string]string{"SHORTENER_API_QUOTA_PER_DAY": "2"})
	for range 2 {
		status, _, body := r.do(t, "GET", "/v1/links", r.key, "")
		require.Equal(t, http.StatusOK, status, string(body))
	}
	status, header, body := r.do(t, "GET", "/v1/links", r.key, "")
	require.Equal(t, http.StatusTooManyRequests, status, string(body))
	assert.Equal(t, apigw.ContentTypeProblem, header.Get("Content-Type"))
	var p apigw.Problem
	require.NoError(t, json.Unmarshal(body, &p))
	assert.Equal(t, apigw.ProblemRateLimited.Type, p.Type)
	assert.Equal(t, "Quota exceeded", p.Title)

	status, _, body = r.do(t, "GET", "/v1/links", "other-key", "")
	assert.Equal(t, http.StatusTooManyRequests, status, "one quota per deployment: %s", body)
	status, _, _ = r.do(t, "GET", apigw.ProblemsPath, "", "")
	assert.Equal(t, http.StatusOK, status)
}
