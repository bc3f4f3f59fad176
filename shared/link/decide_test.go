package link_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/link"
)

func TestChoose(t *testing.T) {
	f := link.Features{
		Rules: []link.Rule{
			{URL: "https://de.example/mobile", Country: []string{"DE", "AT"}, Device: []string{"mobile"}},
			{URL: "https://de.example/", Country: []string{"DE", "AT"}},
			{URL: "https://fr.example/", Language: []string{"fr"}},
			{URL: "https://apple.example/", OS: []string{"ios", "macos"}},
		},
	}
	tests := []struct {
		name string
		v    link.Viewer
		want link.Destination
	}{
		{"every condition of the first rule", link.Viewer{Country: "AT", Device: "mobile"}, link.Destination{Kind: link.ToRule, Index: 0, URL: "https://de.example/mobile"}},
		{"one condition of the first missing", link.Viewer{Country: "DE", Device: "desktop"}, link.Destination{Kind: link.ToRule, Index: 1, URL: "https://de.example/"}},
		{"the first match wins", link.Viewer{Country: "DE", Language: "fr", OS: "ios"}, link.Destination{Kind: link.ToRule, Index: 1, URL: "https://de.example/"}},
		{"language", link.Viewer{Country: "CH", Language: "fr"}, link.Destination{Kind: link.ToRule, Index: 2, URL: "https://fr.example/"}},
		{"any value of a condition", link.Viewer{OS: "macos"}, link.Destination{Kind: link.ToRule, Index: 3, URL: "https://apple.example/"}},
		{"no match: the link's URL", link.Viewer{Country: "US", Device: "desktop", OS: "windows", Language: "en"}, link.Destination{Kind: link.ToDefault, URL: "https://dflt.example/"}},
		{"an unknown viewer meets no condition", link.Viewer{}, link.Destination{Kind: link.ToDefault, URL: "https://dflt.example/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.Choose("https://dflt.example/", tt.v, 0))
		})
	}
}

func TestChooseTargetsByDraw(t *testing.T) {
	f := link.Features{
		Rules:   []link.Rule{{URL: "https://de.example/", Country: []string{"DE"}}},
		Targets: []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 20}, {URL: "https://c.example/", Weight: 10}},
	}
	got := map[int]int{}
	for draw := range 100 {
		d := f.Choose("https://dflt.example/", link.Viewer{Country: "FR"}, draw)
		assert.Equal(t, link.ToTarget, d.Kind)
		assert.Equal(t, f.Targets[d.Index].URL, d.URL)
		got[d.Index]++
	}
	assert.Equal(t, map[int]int{0: 70, 1: 20, 2: 10}, got, "each target gets its weight of the 100 draws")
	assert.Equal(t, link.ToRule, f.Choose("u", link.Viewer{Country: "DE"}, 5).Kind, "a matching rule beats the targets")
	assert.Equal(t, 2, f.Choose("u", link.Viewer{}, 150).Index, "a draw past the weights: the last target")
}

func TestDestinationLabel(t *testing.T) {
	for _, tt := range []struct {
		d    link.Destination
		want string
	}{
		{link.Destination{Kind: link.ToDefault}, "default"},
		{link.Destination{Kind: link.ToRule, Index: 19}, "rule-19"},
		{link.Destination{Kind: link.ToTarget, Index: 1}, "target-1"},
		{link.Destination{Kind: link.ToExpired}, "expired"},
	} {
		assert.Equal(t, tt.want, tt.d.Label())
		assert.True(t, link.ValidLabel(tt.want), tt.want)
	}
	for _, bad := range []string{"", "rule-", "rule-20", "target-10", "rule-01", "rule--1", "rule-+1", "Default", "x"} {
		assert.False(t, link.ValidLabel(bad), bad)
	}
}

// FuzzChoose: whatever the viewer and the draw, Choose picks a rule the
// viewer matches and none before it matches, or a target or the default
// when none matches, and its URL is the one it names.
func FuzzChoose(f *testing.F) {
	f.Add("DE", "mobile", "ios", "de", 0)
	f.Add("FR", "desktop", "windows", "fr", 99)
	f.Add("", "", "", "", -5)
	f.Add("AT", "tablet", "android", "en", 1000)
	feat := link.Features{
		Rules: []link.Rule{
			{URL: "r0", Country: []string{"DE", "AT"}, Device: []string{"mobile"}},
			{URL: "r1", Language: []string{"fr", "de"}, OS: []string{"ios"}},
			{URL: "r2", Country: []string{"FR"}},
		},
		Targets: []link.Target{{URL: "t0", Weight: 30}, {URL: "t1", Weight: 70}},
	}
	f.Fuzz(func(t *testing.T, country, device, os, lang string, draw int) {
		v := link.Viewer{Country: country, Device: device, OS: os, Language: lang}
		d := feat.Choose("dflt", v, draw)
		switch d.Kind {
		case link.ToRule:
			if !feat.Rules[d.Index].Matches(v) || d.URL != feat.Rules[d.Index].URL {
				t.Fatalf("rule %d chosen for %+v", d.Index, v)
			}
			for i := range d.Index {
				if feat.Rules[i].Matches(v) {
					t.Fatalf("rule %d chosen though %d matches first", d.Index, i)
				}
			}
		case link.ToTarget:
			for _, r := range feat.Rules {
				if r.Matches(v) {
					t.Fatalf("a target chosen though a rule matches %+v", v)
				}
			}
			if d.URL != feat.Targets[d.Index].URL {
				t.Fatalf("target %d has URL %q", d.Index, d.URL)
			}
			if draw >= 0 && draw < 30 && d.Index != 0 || draw >= 30 && draw < 100 && d.Index != 1 {
				t.Fatalf("draw %d chose target %d", draw, d.Index)
			}
		default:
			t.Fatalf("kind %d with targets present", d.Kind)
		}
		if !link.ValidLabel(d.Label()) {
			t.Fatalf("label %q", d.Label())
		}
	})
}
