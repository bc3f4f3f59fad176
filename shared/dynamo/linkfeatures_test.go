package dynamo

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func plainLink() link.Link {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return link.Link{Code: "abc1234", URL: "https://example.com/", Owner: "o", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
}

func TestItemWithoutFeaturesReadsBackWithNone(t *testing.T) {
	item := marshalLink(plainLink(), time.Hour)
	for _, a := range []string{tableschema.AttrPasswordHash, tableschema.AttrMaxClicks, tableschema.AttrRules,
		tableschema.AttrTargets, tableschema.AttrExpiredURL, tableschema.AttrForwardQuery, tableschema.AttrQueryPrecedence} {
		assert.NotContains(t, item, a, "a link without features writes no %s", a)
	}
	got, err := unmarshalLink(item)
	require.NoError(t, err)
	assert.Equal(t, link.Features{}, got.Features)
	assert.False(t, got.Decided())
}

func TestItemFeaturesRoundTrip(t *testing.T) {
	l := plainLink()
	l.Features = link.Features{
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		MaxClicks:    5,
		Rules: []link.Rule{
			{URL: "https://de.example/", Country: []string{"DE", "AT"}, Device: []string{"mobile"}},
			{URL: "https://x.example/", OS: []string{"ios", "android"}, Language: []string{"fr", "de"}},
		},
		Targets:         []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
		ExpiredURL:      "https://example.com/over",
		KeepQueryOut:    true,
		QueryPrecedence: link.QueryVisitor,
	}
	got, err := unmarshalLink(marshalLink(l, time.Hour))
	require.NoError(t, err)
	assert.Equal(t, l, got)
}

func TestItemMalformedFeatureIsAnError(t *testing.T) {
	tests := []struct {
		name string
		set  func(map[string]types.AttributeValue)
	}{
		{"rules not a list", func(m map[string]types.AttributeValue) { m[tableschema.AttrRules] = str("x") }},
		{"forward_query not a BOOL", func(m map[string]types.AttributeValue) { m[tableschema.AttrForwardQuery] = str("false") }},
		{"query_precedence not a string", func(m map[string]types.AttributeValue) {
			m[tableschema.AttrQueryPrecedence] = &types.AttributeValueMemberBOOL{Value: true}
		}},
		{"rule not a map", func(m map[string]types.AttributeValue) {
			m[tableschema.AttrRules] = &types.AttributeValueMemberL{Value: []types.AttributeValue{str("x")}}
		}},
		{"rule without url", func(m map[string]types.AttributeValue) {
			m[tableschema.AttrRules] = &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"country": &types.AttributeValueMemberL{}}}}}
		}},
		{"country a string set", func(m map[string]types.AttributeValue) {
			m[tableschema.AttrRules] = &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{tableschema.AttrURL: str("https://a.example"),
					"country": &types.AttributeValueMemberSS{Value: []string{"DE"}}}}}}
		}},
		{"target without weight", func(m map[string]types.AttributeValue) {
			m[tableschema.AttrTargets] = &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{tableschema.AttrURL: str("https://a.example")}}}}
		}},
		{"max clicks a string", func(m map[string]types.AttributeValue) { m[tableschema.AttrMaxClicks] = str("5") }},
		{"password hash a number", func(m map[string]types.AttributeValue) { m[tableschema.AttrPasswordHash] = num(1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := marshalLink(plainLink(), time.Hour)
			tt.set(item)
			_, err := unmarshalLink(item)
			assert.Error(t, err)
		})
	}
}
