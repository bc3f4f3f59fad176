package createfn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/password"
)

const featuresBody = `{"url":"https://example.com/","password":"hunter22-secret","max_clicks":5,
	"rules":[{"url":"https://DE.example/","country":["de","AT"],"device":["mobile"]}],
	"targets":[{"url":"https://a.example/","weight":70},{"url":"https://b.example/","weight":30}],
	"expired_url":"https://example.com/over"}`

func TestCreateWithRedirectRules(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), featuresBody))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.NotContains(t, resp.Body, "hunter22", "the password is write-only")
	assert.NotContains(t, resp.Body, "argon2", "the hash never leaves the service")

	got := apigwtest.Decode[linkapi.Link](t, resp)
	assert.Equal(t, linkapi.Features{
		Protected:  true,
		MaxClicks:  5,
		Rules:      []linkapi.Rule{{URL: "https://de.example/", Country: []string{"DE", "AT"}, Device: []string{"mobile"}}},
		Targets:    []linkapi.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
		ExpiredURL: "https://example.com/over",
	}, got.Features)

	stored, err := f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.True(t, stored.Decided())
	assert.NotContains(t, stored.PasswordHash, "hunter22")
	ok, err := password.Verify(stored.PasswordHash, "hunter22-secret")
	require.NoError(t, err)
	assert.True(t, ok, "the stored hash verifies the password")
	ok, err = password.Verify(stored.PasswordHash, "hunter22-secreT")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestCreateRefusesBadRedirectRules(t *testing.T) {
	tests := []struct{ body, field string }{
		{`{"url":"https://example.com/","rules":[{"url":"https://x.example/","country":["UK"]}]}`, "rules[0].country[0]"},
		{`{"url":"https://example.com/","rules":[{"url":"https://x.example/"}]}`, "rules[0]"},
		{`{"url":"https://example.com/","rules":[{"url":"https://x.example/","os":["ios"]},{"url":"ftp://x","os":["ios"]}]}`, "rules[1].url"},
		{`{"url":"https://example.com/","targets":[{"url":"https://a.example/","weight":70},{"url":"https://b.example/","weight":0}]}`, "targets[1].weight"},
		{`{"url":"https://example.com/","targets":[{"url":"https://a.example/","weight":70},{"url":"https://b.example/","weight":20}]}`, "targets"},
		{`{"url":"https://example.com/","password":"short"}`, "password"},
		{`{"url":"https://example.com/","max_clicks":0}`, "max_clicks"},
		{`{"url":"https://example.com/","expired_url":"https://sho.rt/loop"}`, "expired_url"},
		{`{"url":"https://example.com/","query_precedence":"both"}`, "query_precedence"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			f := newFixture(t, "Ab3dE5g")
			resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), tt.body))
			require.NoError(t, err)
			apigwtest.RequireProblem(t, resp, 400, tt.field)
			_, err = f.store.Get(context.Background(), "Ab3dE5g")
			assert.ErrorIs(t, err, link.ErrNotFound, "nothing written")
		})
	}
}

func TestIdempotencyFingerprintHoldsNoPassword(t *testing.T) {
	a := linkapi.CreateRequest{URL: "https://example.com/", Password: ptrTo("first-password")}
	b := linkapi.CreateRequest{URL: "https://example.com/", Password: ptrTo("other-password")}
	none := linkapi.CreateRequest{URL: "https://example.com/"}
	assert.NotContains(t, string(canonicalJSON(a)), "first-password")
	assert.Equal(t, fingerprint(a), fingerprint(b), "the password is not part of the fingerprint")
	assert.NotEqual(t, fingerprint(a), fingerprint(none), "whether there is one is")
	assert.Equal(t, "first-password", *a.Password, "the caller's request is left alone")

	raw := canonicalRaw(json.RawMessage(`{"url": 5, "password": "first-password"}`))
	assert.NotContains(t, string(raw), "first-password")
}

func TestBatchHashesPasswordsWithinBound(t *testing.T) {
	f := newFixture(t)
	f.h.Codes = &countingCodes{}
	var inFlight, peak atomic.Int32
	f.h.HashPassword = func(pw string) (string, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond) // hold the slot so overlap can show
		return "$argon2id$stub$" + strings.Repeat("x", len(pw)), nil
	}
	items := make([]map[string]any, 24)
	for i := range items {
		items[i] = map[string]any{"url": "https://example.com/", "password": "hunter22-secret"}
	}
	resp, err := f.h.Handle(context.Background(), batchEvent(t, map[string]any{"links": items}))
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	for _, r := range apigwtest.Decode[linkapi.BatchResponse](t, resp).Results {
		require.Equal(t, 201, r.Status)
		assert.True(t, r.Link.Protected)
	}
	assert.LessOrEqual(t, peak.Load(), int32(MaxConcurrentHashes))
	assert.Positive(t, peak.Load())
}

// countingCodes draws distinct codes forever.
type countingCodes struct{ n atomic.Int64 }

func (c *countingCodes) Next() (string, error) { return fmt.Sprintf("c%06d", c.n.Add(1)), nil }
func (c *countingCodes) Length() int           { return 7 }

func ptrTo[T any](v T) *T { return &v }

// TestCreateWithQueryFields: forward_query false and query_precedence
// visitor are kept on the link and shown; the defaults are neither stored
// nor shown.
func TestCreateWithQueryFields(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"),
		`{"url":"https://example.com/","forward_query":false,"query_precedence":"visitor"}`))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	off := false
	assert.Equal(t, linkapi.Features{ForwardQuery: &off, QueryPrecedence: link.QueryVisitor}, apigwtest.Decode[linkapi.Link](t, resp).Features)
	stored, err := f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.Equal(t, link.Features{KeepQueryOut: true, QueryPrecedence: link.QueryVisitor}, stored.Features)
	assert.False(t, stored.Decided(), "the query choice is the edge's: the redirect stays cached")

	f = newFixture(t, "Ab3dE5g")
	resp, err = f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"),
		`{"url":"https://example.com/","forward_query":true,"query_precedence":"destination"}`))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.NotContains(t, resp.Body, "query")
	stored, err = f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.Equal(t, link.Features{}, stored.Features)
}
