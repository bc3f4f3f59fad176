package managefn

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/password"
)

// withFeatures gives the seeded link every redirect-rule field.
func (f *fixture) withFeatures(t *testing.T, code string) link.Link {
	t.Helper()
	l := f.stored(t, code)
	hash, err := password.Hash("first-password")
	require.NoError(t, err)
	l.Features = link.Features{PasswordHash: hash, MaxClicks: 5,
		Rules:      []link.Rule{{URL: "https://de.example/", Country: []string{"DE"}}},
		Targets:    []link.Target{{URL: "https://a.example/", Weight: 50}, {URL: "https://b.example/", Weight: 50}},
		ExpiredURL: "https://example.com/over"}
	l.Version++
	require.NoError(t, f.store.Update(context.Background(), l, l.Version-1))
	return l
}

func TestPatchSetsRedirectRules(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.clock.Add(time.Minute)

	resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), `{"password":"new-password","max_clicks":3,
		"rules":[{"url":"https://fr.example/","country":["fr"],"language":["FR"]}],
		"targets":[{"url":"https://a.example/","weight":10},{"url":"https://b.example/","weight":90}],
		"expired_url":"https://example.com/gone"}`))

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.NotContains(t, resp.Body, "new-password")
	assert.NotContains(t, resp.Body, "argon2")
	got := apigwtest.Decode[linkapi.LinkDetail](t, resp)
	assert.Equal(t, linkapi.Features{Protected: true, MaxClicks: 3,
		Rules:      []linkapi.Rule{{URL: "https://fr.example/", Country: []string{"FR"}, Language: []string{"fr"}}},
		Targets:    []linkapi.Target{{URL: "https://a.example/", Weight: 10}, {URL: "https://b.example/", Weight: 90}},
		ExpiredURL: "https://example.com/gone"}, got.Features)
	assert.Equal(t, int64(2), got.Version)

	stored := f.stored(t, code)
	ok, err := password.Verify(stored.PasswordHash, "new-password")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Len(t, f.edge.Invalidations(), 1, "the edge drops the link's cached redirect: it is decided per click now")
}

func TestPatchNullRemovesRedirectRules(t *testing.T) {
	for _, body := range []string{
		`{"password":null,"max_clicks":null,"rules":null,"targets":null,"expired_url":null}`,
		`{"password":null,"max_clicks":null,"rules":[],"targets":[],"expired_url":null}`,
	} {
		t.Run(body, func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)
			f.withFeatures(t, code)

			resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), body))

			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, linkapi.Features{}, apigwtest.Decode[linkapi.LinkDetail](t, resp).Features)
			assert.NotContains(t, resp.Body, "protected")
			stored := f.stored(t, code)
			assert.Equal(t, link.Features{}, stored.Features)
			assert.Equal(t, int64(3), stored.Version)
		})
	}
}

func TestPatchLeavesUnnamedRedirectRules(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	before := f.withFeatures(t, code)

	resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), `{"url":"https://example.com/new","max_clicks":null}`))

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	stored := f.stored(t, code)
	want := before.Features
	want.MaxClicks = 0
	assert.Equal(t, want, stored.Features, "only max_clicks was named")
	assert.True(t, apigwtest.Decode[linkapi.LinkDetail](t, resp).Protected)
}

func TestPatchWithTheSameRedirectRulesWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	before := f.withFeatures(t, code)

	resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`),
		`{"max_clicks":5,"rules":[{"url":"https://de.example/","country":["de"]}]}`))

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, before, f.stored(t, code))
	assert.Empty(t, f.edge.Invalidations())
}

func TestPatchRefusesBadRedirectRules(t *testing.T) {
	tests := []struct{ body, field string }{
		{`{"rules":[{"url":"https://x.example/","country":["DE","XX"]}]}`, "rules[0].country[1]"},
		{`{"rules":[{"url":"https://x.example/","device":["watch"]}]}`, "rules[0].device[0]"},
		{`{"targets":[{"url":"https://a.example/","weight":100}]}`, "targets"},
		{`{"targets":[{"url":"https://a.example/","weight":50},{"url":"","weight":50}]}`, "targets[1].url"},
		{`{"password":"short"}`, "password"},
		{`{"max_clicks":0}`, "max_clicks"},
		{`{"expired_url":""}`, "expired_url"},
		{`{"rules":[{"url":"https://x.example/","countries":["DE"]}]}`, "countries"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			f := newFixture(t)
			before := f.seed(t, code, "", ownerA)

			resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), tt.body))

			apigwtest.RequireProblem(t, resp, 400, tt.field)
			assert.Equal(t, before, f.stored(t, code), "nothing written")
		})
	}
}

func TestGetAndListShowProtected(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.withFeatures(t, code)

	got := f.do(t, event(t, "get-link.json"))
	require.Equal(t, 200, got.StatusCode, got.Body)
	assert.True(t, apigwtest.Decode[linkapi.LinkDetail](t, got).Protected)
	assert.NotContains(t, got.Body, "argon2")

	list := f.do(t, event(t, "list-links.json"))
	require.Equal(t, 200, list.StatusCode, list.Body)
	page := apigwtest.Decode[linkapi.LinkPage](t, list)
	require.Len(t, page.Links, 1)
	assert.True(t, page.Links[0].Protected)
	assert.Equal(t, int64(5), page.Links[0].MaxClicks)
	assert.NotContains(t, list.Body, "argon2")
}

// TestPatchQueryFields: forward_query and query_precedence are set by
// PATCH, shown by its answer and the link, and null sets the defaults
// back; a change drops the cached redirect, which carries the old choice.
func TestPatchQueryFields(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.clock.Add(time.Minute)

	resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), `{"forward_query":false,"query_precedence":"visitor"}`))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	off := false
	assert.Equal(t, linkapi.Features{ForwardQuery: &off, QueryPrecedence: link.QueryVisitor},
		apigwtest.Decode[linkapi.LinkDetail](t, resp).Features)
	assert.Equal(t, link.Features{KeepQueryOut: true, QueryPrecedence: link.QueryVisitor}, f.stored(t, code).Features)
	assert.Len(t, f.edge.Invalidations(), 1)

	resp = f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), `{"forward_query":null,"query_precedence":null}`))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.NotContains(t, resp.Body, "forward_query")
	assert.Equal(t, link.Features{}, f.stored(t, code).Features)

	resp = f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"3"`), `{"query_precedence":"nobody"}`))
	apigwtest.RequireProblem(t, resp, 400, "query_precedence")
}
