package link_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

var featureRules = link.Rules{ShortDomains: []string{"sho.rt"}}

func TestValidateFeaturesAccepted(t *testing.T) {
	tests := []struct {
		name string
		req  link.FeaturesRequest
		want link.ValidatedFeatures
	}{
		{name: "none", req: link.FeaturesRequest{}, want: link.ValidatedFeatures{}},
		{name: "empty lists mean none", req: link.FeaturesRequest{Rules: []link.Rule{}, Targets: []link.Target{}}, want: link.ValidatedFeatures{}},
		{
			name: "password and limit",
			req:  link.FeaturesRequest{Password: ptr("hunter22"), MaxClicks: ptr[int64](1)},
			want: link.ValidatedFeatures{Password: "hunter22", Features: link.Features{MaxClicks: 1}},
		},
		{
			name: "password of 128 characters, multi-byte",
			req:  link.FeaturesRequest{Password: ptr(strings.Repeat("ü", 128))},
			want: link.ValidatedFeatures{Password: strings.Repeat("ü", 128)},
		},
		{
			name: "rules normalised",
			req: link.FeaturesRequest{Rules: []link.Rule{
				{URL: "HTTPS://DE.Example/x", Country: []string{"de", "AT"}, Device: []string{"Mobile"}},
				{URL: "https://fr.example/", OS: []string{"iOS", "macos"}, Language: []string{"FR", "deu"}},
			}},
			want: link.ValidatedFeatures{Features: link.Features{Rules: []link.Rule{
				{URL: "https://de.example/x", Country: []string{"DE", "AT"}, Device: []string{"mobile"}},
				{URL: "https://fr.example/", OS: []string{"ios", "macos"}, Language: []string{"fr", "de"}},
			}}},
		},
		{
			name: "targets and expired url",
			req: link.FeaturesRequest{
				Targets:    []link.Target{{URL: "https://a.example", Weight: 70}, {URL: "https://B.example/", Weight: 30}},
				ExpiredURL: "https://Example.com/over",
			},
			want: link.ValidatedFeatures{Features: link.Features{
				Targets:    []link.Target{{URL: "https://a.example", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
				ExpiredURL: "https://example.com/over",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := featureRules.ValidateFeatures(tt.req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateFeaturesRefused(t *testing.T) {
	rule := func(mod func(*link.Rule)) []link.Rule {
		r := link.Rule{URL: "https://a.example/", Country: []string{"DE"}}
		mod(&r)
		return []link.Rule{{URL: "https://ok.example/", Device: []string{"mobile"}}, r}
	}
	many := func(n int) []link.Rule {
		rs := make([]link.Rule, n)
		for i := range rs {
			rs[i] = link.Rule{URL: "https://a.example/", Device: []string{"desktop"}}
		}
		return rs
	}
	tests := []struct {
		name  string
		req   link.FeaturesRequest
		field string
	}{
		{name: "password short", req: link.FeaturesRequest{Password: ptr("1234567")}, field: "password"},
		{name: "password empty", req: link.FeaturesRequest{Password: ptr("")}, field: "password"},
		{name: "password long", req: link.FeaturesRequest{Password: ptr(strings.Repeat("a", 129))}, field: "password"},
		{name: "password control char", req: link.FeaturesRequest{Password: ptr("abc\ndefgh")}, field: "password"},
		{name: "password bad UTF-8", req: link.FeaturesRequest{Password: ptr("abcdefg\xff")}, field: "password"},
		{name: "max clicks zero", req: link.FeaturesRequest{MaxClicks: ptr[int64](0)}, field: "max_clicks"},
		{name: "max clicks negative", req: link.FeaturesRequest{MaxClicks: ptr[int64](-5)}, field: "max_clicks"},
		{name: "21 rules", req: link.FeaturesRequest{Rules: many(21)}, field: "rules"},
		{name: "rule without url", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.URL = "" })}, field: "rules[1].url"},
		{name: "rule url javascript", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.URL = "javascript:alert(1)" })}, field: "rules[1].url"},
		{name: "rule url own domain", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.URL = "https://sho.rt/x" })}, field: "rules[1].url"},
		{name: "rule without condition", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = nil })}, field: "rules[1]"},
		{name: "rule with empty conditions", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country, r.OS = []string{}, []string{} })}, field: "rules[1]"},
		{name: "country UK", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = []string{"DE", "UK"} })}, field: "rules[1].country[1]"},
		{name: "country alpha-3", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = []string{"DEU"} })}, field: "rules[1].country[0]"},
		{name: "country empty", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = []string{""} })}, field: "rules[1].country[0]"},
		{name: "country EU", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = []string{"EU"} })}, field: "rules[1].country[0]"},
		{name: "country twice", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Country = []string{"de", "DE"} })}, field: "rules[1].country[1]"},
		{name: "device phone", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Device = []string{"phone"} })}, field: "rules[1].device[0]"},
		{name: "os symbian", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.OS = []string{"linux", "symbian"} })}, field: "rules[1].os[1]"},
		{name: "language tag", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Language = []string{"de-AT"} })}, field: "rules[1].language[0]"},
		{name: "language unknown", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Language = []string{"xx"} })}, field: "rules[1].language[0]"},
		{name: "language und", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Language = []string{"und"} })}, field: "rules[1].language[0]"},
		{name: "too many languages", req: link.FeaturesRequest{Rules: rule(func(r *link.Rule) { r.Language = make([]string, link.MaxConditionValues+1) })}, field: "rules[1].language"},
		{name: "one target", req: link.FeaturesRequest{Targets: []link.Target{{URL: "https://a.example", Weight: 100}}}, field: "targets"},
		{name: "eleven targets", req: link.FeaturesRequest{Targets: func() []link.Target {
			ts := make([]link.Target, 11)
			for i := range ts {
				ts[i] = link.Target{URL: "https://a.example", Weight: 9}
			}
			return ts
		}()}, field: "targets"},
		{name: "weight zero", req: link.FeaturesRequest{Targets: []link.Target{{URL: "https://a.example", Weight: 100}, {URL: "https://b.example", Weight: 0}}}, field: "targets[1].weight"},
		{name: "weight over 100", req: link.FeaturesRequest{Targets: []link.Target{{URL: "https://a.example", Weight: 101}, {URL: "https://b.example", Weight: -1}}}, field: "targets[0].weight"},
		{name: "weights sum 90", req: link.FeaturesRequest{Targets: []link.Target{{URL: "https://a.example", Weight: 60}, {URL: "https://b.example", Weight: 30}}}, field: "targets"},
		{name: "target url ftp", req: link.FeaturesRequest{Targets: []link.Target{{URL: "https://a.example", Weight: 50}, {URL: "ftp://b.example", Weight: 50}}}, field: "targets[1].url"},
		{name: "expired url user info", req: link.FeaturesRequest{ExpiredURL: "https://me@evil.example/"}, field: "expired_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := featureRules.ValidateFeatures(tt.req)
			requireFieldError(t, err, tt.field)
			assert.Equal(t, link.ValidatedFeatures{}, got)
		})
	}
}

func TestValidateCarriesFeatures(t *testing.T) {
	req := link.CreateRequest{URL: "https://example.com/", Features: link.FeaturesRequest{
		Rules: []link.Rule{{URL: "https://de.example/", Country: []string{"UK"}}},
	}}
	_, err := featureRules.Validate(req, now)
	requireFieldError(t, err, "rules[0].country[0]")

	req.Features.Rules[0].Country = []string{"gb"}
	v, err := featureRules.Validate(req, now)
	require.NoError(t, err)
	assert.Equal(t, []link.Rule{{URL: "https://de.example/", Country: []string{"GB"}}}, v.Features.Rules)
}

func TestCountryCodesInEitherCase(t *testing.T) {
	// Every code on the list is accepted, in either case, and comes back
	// upper-cased; 249 assigned codes and XK.
	codes := strings.Fields("AD AE AF ZA ZM ZW XK GB US")
	for _, c := range codes {
		v, err := featureRules.NormalizeRules([]link.Rule{{URL: "https://a.example/", Country: []string{strings.ToLower(c)}}})
		require.NoError(t, err, c)
		assert.Equal(t, []string{c}, v[0].Country)
	}
}

// TestQueryFeatures: forward_query and query_precedence are kept only
// when they are not the defaults (forward, the destination's values win).
func TestQueryFeatures(t *testing.T) {
	off, on := false, true
	tests := []struct {
		name    string
		req     link.FeaturesRequest
		want    link.Features
		wantErr bool
	}{
		{name: "defaults", req: link.FeaturesRequest{}},
		{name: "forward_query true is the default", req: link.FeaturesRequest{ForwardQuery: &on}},
		{name: "forward_query false", req: link.FeaturesRequest{ForwardQuery: &off}, want: link.Features{KeepQueryOut: true}},
		{name: "destination is the default", req: link.FeaturesRequest{QueryPrecedence: "destination"}},
		{name: "visitor", req: link.FeaturesRequest{QueryPrecedence: "visitor"}, want: link.Features{QueryPrecedence: link.QueryVisitor}},
		{name: "unknown precedence", req: link.FeaturesRequest{QueryPrecedence: "Visitor"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := featureRules.ValidateFeatures(tt.req)
			if tt.wantErr {
				var fe *link.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "query_precedence", fe.Field)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Features)
		})
	}
}
