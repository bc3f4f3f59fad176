package link_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Seeds shared by f.Add; testdata/fuzz/FuzzNormalizeURL holds more.
var urlSeeds = []string{
	"https://example.com/path?q=1#frag",
	"HTTP://EXAMPLE.COM:8080/A",
	"https://bücher.example/straße",
	"http://[2001:db8::1]:443/x",
	"http://127.0.0.1/",
	"http://[::ffff:1.2.3.4]/",
	"https://user:pass@evil.com",
	"javascript:alert(1)",
	"https:///x",
	"http:foo",
	"https://sho.rt./abc",
	"https://ｓｈｏ.ｒｔ/abc",
	"https://example.com/\u00a0",
	"https://example.com:0/",
	"https://example.com/%zz",
	"https://a..b/",
	"https://xn--bcher-kva.example/%C3%9F?%E2%82%AC#%20",
	"https://example.com/\u202egnp.exe",
	"https://example.com/100%-off?d=5%&e=%zz#50%",
	"https://example.com/a[b]?q=<x>#{z}#y",
	"",
}

// checkNormalizedURL asserts the invariants of an accepted URL.
func checkNormalizedURL(t *testing.T, rules link.Rules, max int, raw, got string) {
	t.Helper()
	again, err := rules.NormalizeURL(got)
	if err != nil {
		t.Fatalf("NormalizeURL(%q) = %q, which is then refused: %v", raw, got, err)
	}
	if again != got {
		t.Fatalf("not idempotent: %q -> %q -> %q", raw, got, again)
	}
	if len(got) > max { // the limit holds for the normalised form
		t.Fatalf("NormalizeURL(%q) = %d bytes, over %d", raw, len(got), max)
	}
	if !utf8.ValidString(got) {
		t.Fatalf("NormalizeURL(%q) = %q, invalid UTF-8", raw, got)
	}
	for _, c := range got {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			t.Fatalf("NormalizeURL(%q) = %q, contains U+%04X", raw, got, c)
		}
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("NormalizeURL(%q) = %q, which does not parse: %v", raw, got, err)
	}
	if !rfc3986URI.MatchString(got) {
		t.Fatalf("NormalizeURL(%q) = %q, not an RFC 3986 URI", raw, got)
	}
	if loc := link.LocationURL(got); loc != got {
		t.Fatalf("NormalizeURL(%q) = %q, which the redirect would send as %q", raw, got, loc)
	}
	for _, c := range got {
		if unicode.Is(unicode.Cf, c) {
			t.Fatalf("NormalizeURL(%q) = %q, contains format character U+%04X", raw, got, c)
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		t.Fatalf("NormalizeURL(%q) = %q, scheme %q", raw, got, u.Scheme)
	}
	if u.User != nil {
		t.Fatalf("NormalizeURL(%q) = %q, carries user info", raw, got)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		t.Fatalf("NormalizeURL(%q) = %q, has no host", raw, got)
	}
	if host := u.Hostname(); host != strings.ToLower(host) {
		t.Fatalf("NormalizeURL(%q) = %q, host not lower-case", raw, got)
	}
	for _, own := range rules.ShortDomains {
		if strings.EqualFold(u.Hostname(), own) {
			t.Fatalf("NormalizeURL(%q) = %q, points at the short domain", raw, got)
		}
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	ruleSets := []struct {
		rules link.Rules
		max   int
	}{
		{rules: link.Rules{ShortDomains: []string{"sho.rt", "bücher.example"}}, max: link.DefaultMaxURLBytes},
		{rules: link.Rules{MaxURLBytes: 48, ShortDomains: []string{"sho.rt"}}, max: 48},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, rs := range ruleSets {
			got, err := rs.rules.NormalizeURL(raw)
			if err != nil {
				fe, ok := err.(*link.FieldError)
				if !ok || fe.Field != "url" {
					t.Fatalf("NormalizeURL(%q): error %T %v is not a url FieldError", raw, err, err)
				}
				if got != "" {
					t.Fatalf("NormalizeURL(%q) = %q with an error", raw, got)
				}
				continue
			}
			checkNormalizedURL(t, rs.rules, rs.max, raw, got)
		}
	})
}

func FuzzNormalizeAlias(f *testing.F) {
	for _, s := range []string{"spring-sale", "Promo25", "API", "_Local", "a.b", "ab", "café", "\u212Aelvin", strings.Repeat("x", 64), ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, alias string) {
		key, err := link.NormalizeAlias(alias)
		if err != nil {
			fe, ok := err.(*link.FieldError)
			if !ok || fe.Field != "alias" {
				t.Fatalf("NormalizeAlias(%q): error %T %v is not an alias FieldError", alias, err, err)
			}
			if key != "" {
				t.Fatalf("NormalizeAlias(%q) = %q with an error", alias, key)
			}
			return
		}
		if key != strings.ToLower(alias) {
			t.Fatalf("NormalizeAlias(%q) = %q, want %q", alias, key, strings.ToLower(alias))
		}
		if len(key) != len(alias) {
			t.Fatalf("NormalizeAlias(%q) = %q changed length", alias, key)
		}
		if !link.IsAliasSyntax(key) || !link.IsAliasSyntax(alias) {
			t.Fatalf("NormalizeAlias(%q) = %q, not alias syntax", alias, key)
		}
		for _, r := range link.ReservedAliases {
			if key == r {
				t.Fatalf("NormalizeAlias(%q) = %q, a reserved word", alias, key)
			}
		}
		again, err := link.NormalizeAlias(key)
		if err != nil || again != key {
			t.Fatalf("NormalizeAlias(%q) = %q, then NormalizeAlias(%q) = %q, %v", alias, key, key, again, err)
		}
	})
}

// FuzzWidenedAliasLengths: under the widest alias lengths a deployment may
// configure (1-100), an alias is taken exactly when it has alias syntax,
// is no reserved word and is taken by the defaults or lies outside them
// by length only; what it gives is the same key the defaults give, and
// one the redirect's lookup finds (LookupKeys).
func FuzzWidenedAliasLengths(f *testing.F) {
	for _, s := range []string{"a", "Z", "zz", "V1", "qr", "-", strings.Repeat("k", 100), strings.Repeat("k", 101), "a.b", ""} {
		f.Add(s)
	}
	wide := link.Rules{AliasMinLen: link.AliasSyntaxMinLen, AliasMaxLen: link.AliasSyntaxMaxLen}
	f.Fuzz(func(t *testing.T, alias string) {
		key, err := wide.NormalizeAlias(alias)
		narrow, narrowErr := link.NormalizeAlias(alias)
		if narrowErr == nil && (err != nil || key != narrow) {
			t.Fatalf("NormalizeAlias(%q) = %q under the defaults, but %q, %v widened", alias, narrow, key, err)
		}
		if err != nil {
			if fe, ok := err.(*link.FieldError); !ok || fe.Field != "alias" {
				t.Fatalf("widened NormalizeAlias(%q): error %T %v is not an alias FieldError", alias, err, err)
			}
			if link.IsAliasSyntax(alias) && !link.IsReserved(alias) {
				t.Fatalf("widened NormalizeAlias(%q) refused an alias of alias syntax: %v", alias, err)
			}
			return
		}
		if key != strings.ToLower(alias) || !link.IsAliasSyntax(key) || link.IsReserved(key) {
			t.Fatalf("widened NormalizeAlias(%q) = %q", alias, key)
		}
		if keys := link.LookupKeys(alias); len(keys) == 0 || keys[len(keys)-1] != key {
			t.Fatalf("LookupKeys(%q) = %v, never the stored key %q", alias, keys, key)
		}
	})
}
