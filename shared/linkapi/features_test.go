package linkapi_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

func TestPresenterShowsFeaturesButNeverThePassword(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := link.Link{Code: "abc1234", URL: "https://example.com/", CreatedAt: at, ExpiresAt: at, RedirectStatus: 302,
		Features: link.Features{
			PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
			MaxClicks:    5,
			Rules:        []link.Rule{{URL: "https://de.example/", Country: []string{"DE", "AT"}}},
			Targets:      []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
			ExpiredURL:   "https://example.com/over",
		}}
	b, err := json.Marshal(linkapi.Presenter{BaseURL: "https://sho.rt"}.Detail(l))
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"abc1234","short_url":"https://sho.rt/abc1234","url":"https://example.com/",
		"created_at":"2026-01-01T00:00:00Z","expires_at":"2026-01-01T00:00:00Z","redirect_status":302,
		"protected":true,"max_clicks":5,
		"rules":[{"url":"https://de.example/","country":["DE","AT"]}],
		"targets":[{"url":"https://a.example/","weight":70},{"url":"https://b.example/","weight":30}],
		"expired_url":"https://example.com/over",
		"status":"","version":0,"updated_at":"0001-01-01T00:00:00Z"}`, string(b))
	assert.NotContains(t, string(b), "argon2")
	assert.NotContains(t, string(b), "password")
}

func TestCreateRequestDomainFeatures(t *testing.T) {
	var req linkapi.CreateRequest
	require.NoError(t, apigw.DecodeStrict([]byte(`{"url":"https://example.com/","password":"hunter22","max_clicks":3,
		"rules":[{"url":"https://de.example/","country":["DE"],"language":["de"]}],
		"targets":[{"url":"https://a.example/","weight":50},{"url":"https://b.example/","weight":50}],
		"expired_url":"https://example.com/over"}`), &req))
	got, err := req.Domain()
	require.NoError(t, err)
	assert.Equal(t, link.FeaturesRequest{
		Password:   ptr("hunter22"),
		MaxClicks:  ptr[int64](3),
		Rules:      []link.Rule{{URL: "https://de.example/", Country: []string{"DE"}, Language: []string{"de"}}},
		Targets:    []link.Target{{URL: "https://a.example/", Weight: 50}, {URL: "https://b.example/", Weight: 50}},
		ExpiredURL: "https://example.com/over",
	}, got.Features)
}

func TestPatchRequestNullable(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, p linkapi.PatchRequest)
	}{
		{"absent", `{"url":"https://example.com/"}`, func(t *testing.T, p linkapi.PatchRequest) {
			assert.False(t, p.Password.Set || p.MaxClicks.Set || p.Rules.Set || p.Targets.Set || p.ExpiredURL.Set)
		}},
		{"null removes", `{"password":null,"max_clicks":null,"rules":null,"targets":null,"expired_url":null}`, func(t *testing.T, p linkapi.PatchRequest) {
			for _, n := range []linkapi.Nullable[string]{p.Password, p.ExpiredURL} {
				assert.Equal(t, linkapi.Null[string](), n)
			}
			assert.Equal(t, linkapi.Null[int64](), p.MaxClicks)
			assert.Equal(t, linkapi.Null[[]linkapi.Rule](), p.Rules)
			assert.Equal(t, linkapi.Null[[]linkapi.Target](), p.Targets)
			assert.False(t, p.Empty())
		}},
		{"values set", `{"password":"hunter22","max_clicks":9,"rules":[{"url":"https://x.example","os":["ios"]}]}`, func(t *testing.T, p linkapi.PatchRequest) {
			assert.Equal(t, linkapi.Of("hunter22"), p.Password)
			assert.Equal(t, linkapi.Of[int64](9), p.MaxClicks)
			assert.Equal(t, linkapi.Of([]linkapi.Rule{{URL: "https://x.example", OS: []string{"ios"}}}), p.Rules)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p linkapi.PatchRequest
			require.NoError(t, apigw.DecodeStrict([]byte(tt.body), &p))
			tt.check(t, p)
		})
	}
}

func TestPatchRequestStrictInsideRules(t *testing.T) {
	tests := []struct{ body, field string }{
		{`{"rules":[{"url":"https://x.example","lang":["de"]}]}`, "lang"},
		{`{"targets":[{"url":"https://x.example","weight":"50"}]}`, "targets.weight"},
		{`{"max_clicks":"5"}`, "max_clicks"},
		{`{"password":5}`, "password"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			var p linkapi.PatchRequest
			err := apigw.DecodeStrict([]byte(tt.body), &p)
			var fe *link.FieldError
			require.True(t, errors.As(err, &fe), "want a FieldError, got %v", err)
			assert.Equal(t, tt.field, fe.Field)
		})
	}
}

func TestPatchRequestMarshalsNullAndOmitsAbsent(t *testing.T) {
	b, err := json.Marshal(linkapi.PatchRequest{Password: linkapi.Null[string](), MaxClicks: linkapi.Of[int64](4)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"password":null,"max_clicks":4}`, string(b))
}

// TestRuleJSONBytes pins the wire form of a rule with every condition:
// the field names and their order.
func TestRuleJSONBytes(t *testing.T) {
	r := linkapi.Rule{URL: "https://x.example/", Country: []string{"DE"}, Device: []string{"mobile"}, OS: []string{"ios"},
		Language: []string{"de"}}
	b, err := json.Marshal(linkapi.Features{Rules: []linkapi.Rule{r, {URL: "https://y.example/", OS: []string{"linux"}}},
		Targets: []linkapi.Target{{URL: "https://a.example/", Weight: 100}}})
	require.NoError(t, err)
	assert.Equal(t, `{"rules":[{"url":"https://x.example/","country":["DE"],"device":["mobile"],"os":["ios"],"language":["de"]},`+
		`{"url":"https://y.example/","os":["linux"]}],"targets":[{"url":"https://a.example/","weight":100}]}`, string(b))
}

// TestQueryFields: forward_query and query_precedence are read on create
// and PATCH and shown only when they are not the defaults.
func TestQueryFields(t *testing.T) {
	var req linkapi.CreateRequest
	require.NoError(t, apigw.DecodeStrict([]byte(`{"url":"https://example.com/","forward_query":false,"query_precedence":"visitor"}`), &req))
	got, err := req.Domain()
	require.NoError(t, err)
	assert.Equal(t, link.FeaturesRequest{ForwardQuery: ptr(false), QueryPrecedence: "visitor"}, got.Features)

	var p linkapi.PatchRequest
	require.NoError(t, apigw.DecodeStrict([]byte(`{"forward_query":null,"query_precedence":"visitor"}`), &p))
	assert.False(t, p.Empty())
	assert.Equal(t, linkapi.Null[bool](), p.ForwardQuery)
	assert.Equal(t, linkapi.Of("visitor"), p.QueryPrecedence)

	b, err := json.Marshal(linkapi.PresentFeatures(link.Features{}))
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b), "the defaults are not shown")
	b, err = json.Marshal(linkapi.PresentFeatures(link.Features{KeepQueryOut: true, QueryPrecedence: link.QueryVisitor}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"forward_query":false,"query_precedence":"visitor"}`, string(b))
}
