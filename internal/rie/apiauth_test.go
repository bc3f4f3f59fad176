package rie_test

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testAPIAuth: the /v1 authorizer's bootstrap reads the keys table
// (KEYS_TABLE) and answers the REST API REQUEST authorizer event: an
// Allow with the key's owner and the usage-plan key, a Deny for a key the
// table lacks, and the error "Unauthorized" (API Gateway's 401) for a
// request with no credential or a token where no issuer is configured.
func testAPIAuth(t *testing.T, tb tables, _ *shared) {
	e := tb.env()
	e["USAGE_PLAN_KEY"] = "shortener-usage-rie-test-key"
	f := start(t, "apiauth", env(t, "apiauth", e))

	withHeaders := func(h map[string]any) []byte {
		return fixture(t, "apiauth", "authorizer-request.json", func(ev map[string]any) {
			ev["headers"], ev["multiValueHeaders"] = h, nil
		})
	}
	var got events.APIGatewayCustomAuthorizerResponse
	res := invoke(t, f, withHeaders(map[string]any{"x-api-key": fixtureKey}))
	require.NoError(t, json.Unmarshal(res.Body, &got), "%s", res.Body)
	assert.Equal(t, "Allow", got.PolicyDocument.Statement[0].Effect)
	assert.Equal(t, owner, got.Context["owner"])
	assert.Equal(t, "shortener-usage-rie-test-key", got.UsageIdentifierKey)

	got = events.APIGatewayCustomAuthorizerResponse{}
	res = invoke(t, f, withHeaders(map[string]any{"x-api-key": "not-a-key-of-the-table-00"}))
	require.NoError(t, json.Unmarshal(res.Body, &got), "%s", res.Body)
	assert.Equal(t, "Deny", got.PolicyDocument.Statement[0].Effect)

	for _, h := range []map[string]any{{}, {"Authorization": "Bearer eyJ.e30.sig"}} {
		res, err := f.Invoke(t.Context(), withHeaders(h))
		require.NoError(t, err)
		assert.Contains(t, string(res.Body), `"errorMessage":"Unauthorized"`, "%v", h)
	}
}
