package apispec_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformanceRedirectRules checks the redirect-rule fields against the
// document: on create, batch, GET, list and PATCH, and the 400s that name
// the field at fault.
func TestConformanceRedirectRules(t *testing.T) {
	e := newEnv(t)
	post := func(path, body string, status int, invalid bool) []byte {
		_, b := e.do(call{method: "POST", path: path, key: keyA, body: body, status: status, invalid: invalid})
		return b
	}
	patch := func(code, body string, status int, invalid bool) []byte {
		_, b := e.do(call{method: "PATCH", path: "/v1/links/" + code, key: keyA, body: body, status: status, invalid: invalid})
		return b
	}
	get := func(path string) []byte {
		_, b := e.do(call{method: "GET", path: path, key: keyA, status: 200})
		return b
	}
	field := func(b []byte) string {
		var p struct{ Field string }
		require.NoError(t, json.Unmarshal(b, &p), string(b))
		return p.Field
	}

	full := `{"url":"https://example.com/","password":"correct-horse","max_clicks":5,
		"rules":[{"url":"https://de.example.com/","country":["DE","AT"],"device":["mobile"]},
		         {"url":"https://fr.example.com/","os":["ios","macos"],"language":["fr"]}],
		"targets":[{"url":"https://a.example.com/","weight":70},{"url":"https://b.example.com/","weight":30}],
		"expired_url":"https://example.com/over"}`
	b := post("/v1/links", full, 201, false)
	assert.NotContains(t, string(b), "correct-horse")
	var created struct {
		Code      string
		Protected bool
		MaxClicks int64 `json:"max_clicks"`
	}
	require.NoError(t, json.Unmarshal(b, &created))
	assert.True(t, created.Protected)
	assert.Equal(t, int64(5), created.MaxClicks)

	// device and os in any case: the document accepts what the service
	// accepts, and the service answers the lower-case form.
	mixed := `{"url":"https://example.com/","rules":[{"url":"https://m.example.com/","device":["Mobile","TABLET"],"os":["iOS","MacOS","Linux"]}]}`
	b = post("/v1/links", mixed, 201, false)
	assert.Contains(t, string(b), `"device":["mobile","tablet"]`)
	assert.Contains(t, string(b), `"os":["ios","macos","linux"]`)
	assert.Equal(t, "rules[0].os[0]", field(post("/v1/links", `{"url":"https://example.com/","rules":[{"url":"https://x.example.com/","os":["iPadOS"]}]}`, 400, true)))

	b = get("/v1/links/" + created.Code)
	assert.Contains(t, string(b), `"protected":true`)
	assert.NotContains(t, string(b), "correct-horse")
	assert.NotContains(t, string(b), "argon2")
	b = get("/v1/links")
	assert.Contains(t, string(b), `"protected":true`)

	b = post("/v1/links/batch", `{"links":[`+full+`,{"url":"https://example.com/","targets":[{"url":"https://a.example.com/","weight":50}]}]}`, 200, true)
	assert.Contains(t, string(b), `"status":201`)
	assert.Contains(t, string(b), `"field":"targets"`)

	// 400s naming the exact field; some the schema can say, some only the service.
	assert.Equal(t, "rules[0].country[0]", field(post("/v1/links", `{"url":"https://example.com/","rules":[{"url":"https://x.example.com/","country":["DEU"]}]}`, 400, true)))
	assert.Equal(t, "rules[0].country[0]", field(post("/v1/links", `{"url":"https://example.com/","rules":[{"url":"https://x.example.com/","country":["UK"]}]}`, 400, false)))
	assert.Equal(t, "rules[1]", field(post("/v1/links", `{"url":"https://example.com/","rules":[{"url":"https://x.example.com/","os":["linux"]},{"url":"https://y.example.com/"}]}`, 400, true)))
	assert.Equal(t, "rules[0].url", field(post("/v1/links", `{"url":"https://example.com/","rules":[{"url":"ftp://x.example.com/","os":["linux"]}]}`, 400, false)))
	assert.Equal(t, "targets[1].weight", field(post("/v1/links", `{"url":"https://example.com/","targets":[{"url":"https://a.example.com/","weight":50},{"url":"https://b.example.com/","weight":0}]}`, 400, true)))
	assert.Equal(t, "targets", field(post("/v1/links", `{"url":"https://example.com/","targets":[{"url":"https://a.example.com/","weight":50},{"url":"https://b.example.com/","weight":40}]}`, 400, false)))
	assert.Equal(t, "password", field(post("/v1/links", `{"url":"https://example.com/","password":"short"}`, 400, true)))
	assert.Equal(t, "max_clicks", field(post("/v1/links", `{"url":"https://example.com/","max_clicks":0}`, 400, true)))
	assert.Equal(t, "expired_url", field(post("/v1/links", `{"url":"https://example.com/","expired_url":"https://sho.rt/x"}`, 400, false)))

	// PATCH: set, then remove with null.
	plain := e.create(keyA, `{"url":"https://example.com/plain"}`)
	b = patch(plain, `{"password":"another-pass","rules":[{"url":"https://de.example.com/","country":["de"]}]}`, 200, false)
	assert.Contains(t, string(b), `"protected":true`)
	assert.Contains(t, string(b), `"country":["DE"]`)
	b = patch(plain, `{"password":null,"max_clicks":null,"rules":null,"targets":null,"expired_url":null}`, 200, false)
	assert.NotContains(t, string(b), "protected")
	assert.NotContains(t, string(b), "rules")
	assert.Equal(t, "rules[0].device[0]", field(patch(plain, `{"rules":[{"url":"https://x.example.com/","device":["watch"]}]}`, 400, true)))
	assert.Equal(t, "password", field(patch(plain, `{"password":""}`, 400, true)))
}
