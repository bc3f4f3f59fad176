package link_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

// urlCorpus is testdata/url-corpus.json: long URLs as callers send them
// and what is stored, and URLs stored raw by older versions and the
// Location the redirect sends for them.
type urlCorpus struct {
	Normalize []struct {
		In      string `json:"in"`
		Stored  string `json:"stored"`
		Refused string `json:"refused"`
	} `json:"normalize"`
	Legacy []struct {
		Stored   string `json:"stored"`
		Location string `json:"location"`
	} `json:"legacy"`
}

func readURLCorpus(t *testing.T) urlCorpus {
	t.Helper()
	b, err := os.ReadFile("testdata/url-corpus.json")
	require.NoError(t, err)
	var c urlCorpus
	require.NoError(t, json.Unmarshal(b, &c))
	require.NotEmpty(t, c.Normalize)
	require.NotEmpty(t, c.Legacy)
	return c
}

// RFC 3986 section 3, for the absolute http(s) URIs NormalizeURL accepts:
// scheme "://" authority path-abempty [ "?" query ] [ "#" fragment ], where
// every character is one the grammar allows there or a %HH escape.
const (
	pctEncoded = `%[0-9A-Fa-f]{2}`
	pchar      = `(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|` + pctEncoded + `)`
	regName    = `(?:[A-Za-z0-9\-._~!$&'()*+,;=]|` + pctEncoded + `)*`
	ipLiteral  = `\[[0-9A-Fa-f:.]+\]`
)

var rfc3986URI = regexp.MustCompile(`^https?://(?:` + ipLiteral + `|` + regName + `)(?::[0-9]*)?` +
	`(?:/` + pchar + `*)*` +
	`(?:\?(?:` + pchar + `|[/?])*)?` +
	`(?:#(?:` + pchar + `|[/?])*)?$`)

// uriChars are the characters RFC 3986 allows anywhere in a URI
// (unreserved and reserved), with % only as the start of an escape.
var uriChars = regexp.MustCompile(`^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|` + pctEncoded + `)*$`)

func TestRFC3986Checker(t *testing.T) {
	// The checker the corpus and the fuzz target rely on must itself refuse.
	for _, bad := range []string{"https://example.com/é", "https://example.com/a b", "https://example.com/%", "https://example.com/%zz",
		"https://example.com/a[b", "https://example.com/?<", "https://example.com/#a#b", "https://example.com/\u202e"} {
		assert.False(t, rfc3986URI.MatchString(bad), bad)
	}
	assert.True(t, rfc3986URI.MatchString("https://xn--bcher-kva.example:8443/a%C3%A9/b?c=d/e?f#g/h?i"))
	assert.False(t, uriChars.MatchString("https://example.com/%"))
	assert.True(t, uriChars.MatchString("http://[::1]/a?b#c"))
}

func TestNormalizeURLCorpus(t *testing.T) {
	rules := link.Rules{ShortDomains: []string{"sho.rt"}}
	for _, tt := range readURLCorpus(t).Normalize {
		t.Run(tt.In, func(t *testing.T) {
			got, err := rules.NormalizeURL(tt.In)

			if tt.Refused != "" {
				requireFieldError(t, err, "url")
				assert.Contains(t, err.Error(), tt.Refused)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.Stored, got)
			assert.Regexp(t, rfc3986URI, got, "the stored form is not an RFC 3986 URI")
			again, err := rules.NormalizeURL(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "normalising is not idempotent")
			assert.Equal(t, got, link.LocationURL(got), "a normalised URL must leave the redirect unchanged")
		})
	}
}

func TestLocationURLCorpus(t *testing.T) {
	for _, tt := range readURLCorpus(t).Legacy {
		t.Run(tt.Stored, func(t *testing.T) {
			got := link.LocationURL(tt.Stored)

			assert.Equal(t, tt.Location, got)
			assert.Regexp(t, uriChars, got)
			assert.Equal(t, got, link.LocationURL(got), "not idempotent")
		})
	}
}

func FuzzLocationURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	f.Add("https://example.com/\u202egnp.exe?d=5%&e=%4")
	f.Fuzz(func(t *testing.T, stored string) {
		got := link.LocationURL(stored)
		if !uriChars.MatchString(got) {
			t.Fatalf("LocationURL(%q) = %q, not RFC 3986 characters", stored, got)
		}
		if again := link.LocationURL(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", stored, got, again)
		}
		if uriChars.MatchString(stored) && got != stored {
			t.Fatalf("LocationURL(%q) = %q changed a valid URI", stored, got)
		}
		if strings.Count(got, "?") < strings.Count(stored, "?") || strings.Count(got, "/") != strings.Count(stored, "/") {
			t.Fatalf("LocationURL(%q) = %q changed the URL's structure", stored, got)
		}
	})
}
