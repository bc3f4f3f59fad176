package dynamo

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TestLinkCrossesEveryBoundaryUnchanged follows a link with every feature,
// and a rule with every condition link.Conditions lists, through each
// mapping a link has: the API's JSON (linkapi) to the domain, the domain
// to its DynamoDB item and back, the memory store's copy, and the domain
// to the API's JSON again. A condition one of them forgets, or names
// otherwise, comes back missing. The values are not validated here (the
// stores and mappings take a link as it is; link's tests check that
// validation reads every condition), so any string serves.
func TestLinkCrossesEveryBoundaryUnchanged(t *testing.T) {
	every := map[string]any{"url": "https://every.example/"}
	for _, c := range link.Conditions {
		every[c.Name] = []string{c.Name + "-1", c.Name + "-2"}
	}
	body, err := json.Marshal(map[string]any{
		"url":         "https://example.com/",
		"password":    "correct horse",
		"max_clicks":  5,
		"rules":       []any{every, map[string]any{"url": "https://de.example/", link.Conditions[0].Name: []string{"one"}}},
		"targets":     []any{map[string]any{"url": "https://a.example/", "weight": 70}, map[string]any{"url": "https://b.example/", "weight": 30}},
		"expired_url": "https://example.com/over",
	})
	require.NoError(t, err)

	// API JSON -> domain, decoded as strictly as the handlers do.
	var wire linkapi.CreateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&wire))
	req, err := wire.Domain()
	require.NoError(t, err)
	want := plainLink()
	want.Features = link.Features{PasswordHash: "hash of " + *req.Features.Password, MaxClicks: *req.Features.MaxClicks,
		Rules: req.Features.Rules, Targets: req.Features.Targets, ExpiredURL: req.Features.ExpiredURL}
	for _, c := range link.Conditions {
		require.Equal(t, []string{c.Name + "-1", c.Name + "-2"}, *c.Values(&want.Rules[0]), "the API's JSON lost %s", c.Name)
	}

	// Domain -> DynamoDB item -> domain.
	fromItem, err := unmarshalLink(marshalLink(want, time.Hour))
	require.NoError(t, err)
	require.Equal(t, want, fromItem, "the DynamoDB item")

	// The memory store keeps and gives out its own copies.
	mem := linkstore.NewMemory(nil)
	require.NoError(t, mem.Create(context.Background(), fromItem, nil))
	for _, c := range link.Conditions {
		(*c.Values(&fromItem.Rules[0]))[0] = "changed after create"
	}
	fromMemory, err := mem.Get(context.Background(), want.Code)
	require.NoError(t, err)
	require.Equal(t, want, fromMemory, "the memory store's copy")

	// Domain -> API JSON: every field given comes back, the password as
	// only whether there is one.
	out, err := json.Marshal(linkapi.Presenter{BaseURL: "https://sho.rt"}.Link(fromMemory))
	require.NoError(t, err)
	var sent, shown map[string]any
	require.NoError(t, json.Unmarshal(body, &sent))
	require.NoError(t, json.Unmarshal(out, &shown))
	for _, field := range []string{"url", "max_clicks", "rules", "targets", "expired_url"} {
		assert.Equal(t, sent[field], shown[field], field)
	}
	assert.Equal(t, true, shown["protected"])
	assert.NotContains(t, shown, "password")
}

// TestItemWrittenBeforeReadsTheSame: a link item as the store writes it
// today, attribute by attribute, reads back as the link it was, and that
// link is written as the same item. Renaming a stored attribute (a
// condition's among them) would strand every link already in the table.
func TestItemWrittenBeforeReadsTheSame(t *testing.T) {
	l := func(v ...string) types.AttributeValue {
		out := make([]types.AttributeValue, len(v))
		for i, s := range v {
			out[i] = str(s)
		}
		return &types.AttributeValueMemberL{Value: out}
	}
	m := func(v map[string]types.AttributeValue) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: v}
	}
	created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	item := map[string]types.AttributeValue{
		"code":            str("abc1234"),
		"url":             str("https://example.com/"),
		"owner_id":        str("o"),
		"created_at":      num(created.UnixMilli()),
		"updated_at":      num(created.UnixMilli()),
		"expires_at":      num(created.Add(time.Hour).Unix()),
		"purge_at":        num(created.Add(2 * time.Hour).Unix()),
		"exp_shard":       str(shard("abc1234")),
		"status":          str("active"),
		"version":         num(1),
		"redirect_status": num(302),
		"custom_alias":    &types.AttributeValueMemberBOOL{Value: false},
		"password_hash":   str("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"),
		"max_clicks":      num(5),
		"expired_url":     str("https://example.com/over"),
		"rules": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			m(map[string]types.AttributeValue{"url": str("https://de.example/"), "country": l("DE", "AT"), "device": l("mobile"),
				"os": l("ios", "android"), "language": l("de", "fr")}),
			m(map[string]types.AttributeValue{"url": str("https://x.example/"), "os": l("linux")}),
		}},
		"targets": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			m(map[string]types.AttributeValue{"url": str("https://a.example/"), "weight": num(70)}),
			m(map[string]types.AttributeValue{"url": str("https://b.example/"), "weight": num(30)}),
		}},
	}
	want := plainLink()
	want.Features = link.Features{
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		MaxClicks:    5,
		Rules: []link.Rule{
			{URL: "https://de.example/", Country: []string{"DE", "AT"}, Device: []string{"mobile"}, OS: []string{"ios", "android"},
				Language: []string{"de", "fr"}},
			{URL: "https://x.example/", OS: []string{"linux"}},
		},
		Targets:    []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
		ExpiredURL: "https://example.com/over",
	}
	got, err := unmarshalLink(item)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, item, marshalLink(want, time.Hour), "today's link is written as today's item")
}
