package link_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

var now = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// requireFieldError checks err is a *link.FieldError for field that also
// matches link.ErrInvalid.
func requireFieldError(t *testing.T, err error, field string) {
	t.Helper()
	require.Error(t, err)
	var fe *link.FieldError
	require.True(t, errors.As(err, &fe), "want *link.FieldError, got %T: %v", err, err)
	assert.Equal(t, field, fe.Field)
	assert.NotEmpty(t, fe.Reason)
	assert.ErrorIs(t, err, link.ErrInvalid)
	assert.True(t, strings.HasPrefix(err.Error(), field+": "), "error %q does not name %s", err, field)
}

// urlOfLen returns an https URL of exactly n bytes.
func urlOfLen(t *testing.T, n int) string {
	t.Helper()
	const prefix = "https://example.com/"
	require.GreaterOrEqual(t, n, len(prefix))
	u := prefix + strings.Repeat("a", n-len(prefix))
	require.Len(t, u, n)
	return u
}

func TestNormalizeURLAccepted(t *testing.T) {
	tests := []struct {
		name  string
		rules link.Rules
		raw   string
		want  string
	}{
		{name: "https", raw: "https://example.com/path?q=1#frag", want: "https://example.com/path?q=1#frag"},
		{name: "http no path", raw: "http://example.com", want: "http://example.com"},
		{name: "upper-case scheme and host", raw: "HTTPS://Example.COM/Path", want: "https://example.com/Path"},
		{name: "mixed-case scheme", raw: "hTtP://example.com/", want: "http://example.com/"},
		{name: "path case kept", raw: "https://example.com/AbC?X=Y", want: "https://example.com/AbC?X=Y"},
		{name: "IDN host punycoded", raw: "https://bücher.example/straße", want: "https://xn--bcher-kva.example/stra%C3%9Fe"},
		{name: "punycode host kept", raw: "https://xn--bcher-kva.example/", want: "https://xn--bcher-kva.example/"},
		{name: "IPv4 literal", raw: "http://127.0.0.1/x", want: "http://127.0.0.1/x"},
		{name: "IPv4 with port", raw: "http://192.0.2.1:8080/x", want: "http://192.0.2.1:8080/x"},
		{name: "IPv6 literal", raw: "http://[::1]/x", want: "http://[::1]/x"},
		{name: "IPv6 literal no path", raw: "http://[::1]", want: "http://[::1]"},
		{name: "IPv6 with port, lower-cased", raw: "https://[2001:DB8::1]:8443/", want: "https://[2001:db8::1]:8443/"},
		{name: "explicit default port kept", raw: "https://example.com:443/", want: "https://example.com:443/"},
		{name: "highest port", raw: "https://example.com:65535/", want: "https://example.com:65535/"},
		{name: "port 1", raw: "https://example.com:1/", want: "https://example.com:1/"},
		{name: "empty port dropped", raw: "https://example.com:/x", want: "https://example.com/x"},
		{name: "trailing dot on host dropped", raw: "https://example.com./", want: "https://example.com/"},
		{name: "ideographic full stop as trailing dot dropped", raw: "https://example.com\u3002/", want: "https://example.com/"},
		{name: "ideographic full stop between labels", raw: "https://example\u3002com/", want: "https://example.com/"},
		{name: "percent escapes kept", raw: "https://example.com/%7e?q=%41#F%20", want: "https://example.com/%7e?q=%41#F%20"},
		{name: "stray percent encoded", raw: "https://example.com/%zz", want: "https://example.com/%25zz"},
		{name: "subdomain of short domain is another host", rules: link.Rules{ShortDomains: []string{"sho.rt"}}, raw: "https://docs.sho.rt/", want: "https://docs.sho.rt/"},
		{name: "host that merely starts with the short domain", rules: link.Rules{ShortDomains: []string{"sho.rt"}}, raw: "https://sho.rt.example/", want: "https://sho.rt.example/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rules.NormalizeURL(tt.raw)

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := tt.rules.NormalizeURL(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "normalising is not idempotent")
		})
	}
}

func TestNormalizeURLRefused(t *testing.T) {
	short := link.Rules{ShortDomains: []string{"sho.rt"}}
	tests := []struct {
		name  string
		rules link.Rules
		raw   string
	}{
		{name: "empty", raw: ""},
		{name: "ftp", raw: "ftp://example.com/file"},
		{name: "javascript", raw: "javascript:alert(1)"},
		{name: "javascript with slashes", raw: "javascript://example.com/%0Aalert(1)"},
		{name: "data", raw: "data:text/html,<script>alert(1)</script>"},
		{name: "mailto", raw: "mailto:someone@example.com"},
		{name: "file", raw: "file:///etc/passwd"},
		{name: "relative path", raw: "/just/a/path"},
		{name: "relative host", raw: "example.com/x"},
		{name: "scheme-relative", raw: "//example.com/x"},
		{name: "no host, three slashes", raw: "https:///x"},
		{name: "opaque http", raw: "http:foo"},
		{name: "opaque https with host-like text", raw: "https:example.com"},
		{name: "scheme only", raw: "https://"},
		{name: "host is a dot", raw: "https://./"},
		{name: "host is two dots", raw: "http://.."},
		{name: "empty label", raw: "https://a..b/"},
		{name: "leading empty label", raw: "https://.example.com/"},
		{name: "empty labels from ideographic full stops", raw: "https://a\u3002\u3002b/"},
		{name: "own short domain with ideographic full stop", rules: short, raw: "https://sho.rt\u3002/abc1234"},
		{name: "own short domain with fullwidth full stop", rules: short, raw: "https://sho\uff0ert/abc1234"},
		{name: "user and password", raw: "https://user:pass@evil.com"},
		{name: "user only", raw: "https://user@x.com"},
		{name: "empty user info", raw: "https://@x.com"},
		{name: "user info posing as a host", raw: "https://bank.example@evil.com/"},
		{name: "space", raw: "https://example.com/a b"},
		{name: "leading space", raw: " https://example.com/"},
		{name: "trailing newline", raw: "https://example.com/\n"},
		{name: "tab", raw: "https://example.com/\tx"},
		{name: "newline", raw: "https://example.com/\nx"},
		{name: "carriage return", raw: "https://example.com/\rx"},
		{name: "NBSP", raw: "https://example.com/\u00a0x"},
		{name: "line separator U+2028", raw: "https://example.com/\u2028x"},
		{name: "NEL U+0085", raw: "https://example.com/\u0085x"},
		{name: "NUL", raw: "https://example.com/\x00x"},
		{name: "DEL", raw: "https://example.com/\x7fx"},
		{name: "escape", raw: "https://example.com/\x1bx"},
		{name: "C1 control", raw: "https://example.com/\u009bx"},
		{name: "invalid UTF-8", raw: "https://example.com/\xff"},
		{name: "truncated UTF-8", raw: "https://example.com/\xc3"},
		{name: "invalid UTF-8 in host", raw: "https://exa\xe2mple.com/"},
		{name: "percent-encoded invalid UTF-8 in host", raw: "HTTP://0%80"},
		{name: "percent-encoded lone continuation byte in host", raw: "https://example%80.com/"},
		{name: "over default max bytes", raw: urlOfLen(t, link.DefaultMaxURLBytes+1)},
		{name: "over configured max bytes", rules: link.Rules{MaxURLBytes: 40}, raw: urlOfLen(t, 41)},
		{name: "negative max falls back to default", rules: link.Rules{MaxURLBytes: -1}, raw: urlOfLen(t, link.DefaultMaxURLBytes+1)},
		{name: "own short domain", rules: short, raw: "https://sho.rt/abc1234"},
		{name: "own short domain over http", rules: short, raw: "http://sho.rt/abc1234"},
		{name: "own short domain upper-case", rules: short, raw: "https://SHO.RT/abc1234"},
		{name: "own short domain trailing dot", rules: short, raw: "https://sho.rt./abc1234"},
		{name: "own short domain with port", rules: short, raw: "https://sho.rt:443/abc1234"},
		{name: "own short domain in fullwidth letters", rules: short, raw: "https://ｓｈｏ.ｒｔ/abc1234"},
		{name: "configured short domain upper-case", rules: link.Rules{ShortDomains: []string{"Sho.RT"}}, raw: "https://sho.rt/x"},
		{name: "configured short domain trailing dot", rules: link.Rules{ShortDomains: []string{"sho.rt."}}, raw: "https://sho.rt/x"},
		{name: "second short domain", rules: link.Rules{ShortDomains: []string{"", "sho.rt", "lnk.example"}}, raw: "https://lnk.example/x"},
		{name: "IDN short domain configured as unicode", rules: link.Rules{ShortDomains: []string{"bücher.example"}}, raw: "https://bücher.example/x"},
		{name: "IDN short domain configured as punycode", rules: link.Rules{ShortDomains: []string{"xn--bcher-kva.example"}}, raw: "https://bücher.example/x"},
		{name: "port zero", raw: "https://example.com:0/"},
		{name: "port too large", raw: "https://example.com:65536/"},
		{name: "port not a number", raw: "https://example.com:abc/"},
		{name: "port negative", raw: "https://example.com:-1/"},
		{name: "underscore in host", raw: "https://bad_host.example/"},
		{name: "IPv6 zone", raw: "http://[fe80::1%25en0]/"},
		{name: "unclosed IPv6 bracket", raw: "http://[::1/"},
		{name: "backslash in host", raw: "https://good.example\\evil.example/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rules.NormalizeURL(tt.raw)

			requireFieldError(t, err, "url")
			assert.Empty(t, got)
		})
	}
}

func TestNormalizeURLMaxBytes(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		n       int
		wantErr bool
	}{
		{name: "default: exactly the max", max: 0, n: link.DefaultMaxURLBytes},
		{name: "default: one over", max: 0, n: link.DefaultMaxURLBytes + 1, wantErr: true},
		{name: "configured: exactly the max", max: 64, n: 64},
		{name: "configured: one under", max: 64, n: 63},
		{name: "configured: one over", max: 64, n: 65, wantErr: true},
		{name: "configured larger than default", max: 2 * link.DefaultMaxURLBytes, n: link.DefaultMaxURLBytes + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := urlOfLen(t, tt.n)

			got, err := link.Rules{MaxURLBytes: tt.max}.NormalizeURL(raw)

			if tt.wantErr {
				requireFieldError(t, err, "url")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, raw, got)
		})
	}
}

func TestNormalizeURLMaxBytesAfterNormalising(t *testing.T) {
	// The limit holds for the stored form: percent-encoding and punycode grow.
	tests := []struct {
		name    string
		max     int
		raw     string
		want    string
		wantErr bool
	}{
		{name: "path fits once encoded", max: 44, raw: "https://example.com/éééé", want: "https://example.com/%C3%A9%C3%A9%C3%A9%C3%A9"},
		{name: "path grows past the max", max: 43, raw: "https://example.com/éééé", wantErr: true},
		{name: "host fits once punycoded", max: 30, raw: "https://bücher.example/", want: "https://xn--bcher-kva.example/"},
		{name: "host grows past the max", max: 29, raw: "https://bücher.example/", wantErr: true},
		{name: "shrinking is fine at the max", max: 24, raw: "https://EXAMPLE.com./abc", want: "https://example.com/abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.LessOrEqual(t, len(tt.raw), tt.max, "the raw URL itself must fit")
			rules := link.Rules{MaxURLBytes: tt.max}

			got, err := rules.NormalizeURL(tt.raw)

			if tt.wantErr {
				requireFieldError(t, err, "url")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), tt.max)
		})
	}
}

func TestNormalizeAlias(t *testing.T) {
	tests := []struct {
		name    string
		alias   string
		want    string
		wantErr bool
	}{
		{name: "lower-case", alias: "spring-sale", want: "spring-sale"},
		{name: "mixed case lower-cased", alias: "Spring_Sale-2025", want: "spring_sale-2025"},
		{name: "shortest", alias: "abc", want: "abc"},
		{name: "longest", alias: strings.Repeat("A", 64), want: strings.Repeat("a", 64)},
		{name: "digits only", alias: "2025", want: "2025"},
		{name: "dashes and underscores only", alias: "-_-", want: "-_-"},
		{name: "reserved word as prefix is fine", alias: "api-docs", want: "api-docs"},
		{name: "reserved word inside is fine", alias: "my-admin", want: "my-admin"},
		{name: "empty", alias: "", wantErr: true},
		{name: "too short", alias: "ab", wantErr: true},
		{name: "too long", alias: strings.Repeat("a", 65), wantErr: true},
		{name: "dot", alias: "a.b", wantErr: true},
		{name: "slash", alias: "a/b", wantErr: true},
		{name: "space", alias: "a b", wantErr: true},
		{name: "percent", alias: "a%20b", wantErr: true},
		{name: "question mark", alias: "abc?", wantErr: true},
		{name: "hash", alias: "abc#", wantErr: true},
		{name: "tilde", alias: "~abc", wantErr: true},
		{name: "plus", alias: "a+b", wantErr: true},
		{name: "unicode letter", alias: "café", wantErr: true},
		{name: "unicode that lower-cases to ascii", alias: "\u212Aelvin", wantErr: true}, // KELVIN SIGN
		{name: "fullwidth letters", alias: "ａｂｃ", wantErr: true},
		{name: "NUL", alias: "ab\x00", wantErr: true},
		{name: "three bytes of one rune", alias: "€", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := link.NormalizeAlias(tt.alias)

			if tt.wantErr {
				requireFieldError(t, err, "alias")
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNormalizeAliasReserved(t *testing.T) {
	require.NotEmpty(t, link.ReservedAliases)
	for _, word := range link.ReservedAliases {
		spellings := []string{word, strings.ToUpper(word), titleCase(word)}
		for _, s := range slices.Compact(spellings) {
			t.Run(s, func(t *testing.T) {
				got, err := link.NormalizeAlias(s)

				requireFieldError(t, err, "alias")
				assert.Empty(t, got)
			})
		}
	}
}

func TestNormalizeAliasReservedSpellings(t *testing.T) {
	// The reserved words in other capitals, and the paths the service itself
	// serves, listed here independent of the list's contents.
	tests := []struct {
		name  string
		alias string
	}{
		{name: "V1", alias: "V1"}, // too short as well; refused either way
		{name: "Api", alias: "Api"},
		{name: "HEALTHZ", alias: "HEALTHZ"},
		{name: "_local", alias: "_local"},
		{name: "_LOCAL", alias: "_LOCAL"},
		{name: "Admin", alias: "aDmIn"},
		{name: "openapi", alias: "OpenAPI"},
		{name: "console", alias: "Console"}, // the web console is served at /console
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := link.NormalizeAlias(tt.alias)

			requireFieldError(t, err, "alias")
		})
	}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func TestIsAliasSyntax(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{name: "plain", s: "abc", want: true},
		{name: "mixed", s: "My_Alias-1", want: true},
		{name: "longest by default", s: strings.Repeat("x", 64), want: true},
		{name: "reserved still has alias syntax", s: "admin", want: true},
		// Every length a deployment may allow (link.AliasSyntaxMinLen to
		// AliasSyntaxMaxLen) is syntax, so an alias made under a wider range
		// still resolves once the range narrows.
		{name: "one", s: "a", want: true},
		{name: "two", s: "ab", want: true},
		{name: "longest allowed anywhere", s: strings.Repeat("x", 100), want: true},
		{name: "too long", s: strings.Repeat("x", 101)},
		{name: "empty", s: ""},
		{name: "dot", s: "robots.txt"},
		{name: "slash", s: "a/b"},
		{name: "unicode", s: "café"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, link.IsAliasSyntax(tt.s))
		})
	}
}

func TestExpiry(t *testing.T) {
	maxSeconds := int64(link.MaxTTL / time.Second)
	tests := []struct {
		name      string
		rules     link.Rules
		at        *time.Time
		ttl       *int64
		want      time.Time
		wantField string
	}{
		{name: "default five years", want: now.Add(5 * 365 * 24 * time.Hour)},
		{name: "configured default TTL", rules: link.Rules{DefaultTTL: 48 * time.Hour}, want: now.Add(48 * time.Hour)},
		{name: "negative configured default falls back", rules: link.Rules{DefaultTTL: -time.Hour}, want: now.Add(link.DefaultTTL)},
		{name: "ttl one second", ttl: ptr[int64](1), want: now.Add(time.Second)},
		{name: "ttl one day", ttl: ptr[int64](86400), want: now.Add(24 * time.Hour)},
		{name: "ttl exactly ten years", ttl: ptr(maxSeconds), want: now.Add(link.MaxTTL)},
		{name: "ttl ignores configured default", rules: link.Rules{DefaultTTL: time.Hour}, ttl: ptr[int64](60), want: now.Add(time.Minute)},
		{name: "expires_at one second ahead", at: ptr(now.Add(time.Second)), want: now.Add(time.Second)},
		{name: "expires_at exactly ten years ahead", at: ptr(now.Add(link.MaxTTL)), want: now.Add(link.MaxTTL)},
		{name: "expires_at in another zone returned as UTC", at: ptr(now.Add(time.Hour).In(time.FixedZone("X", 5*3600))), want: now.Add(time.Hour)},
		{name: "both given", at: ptr(now.Add(time.Hour)), ttl: ptr[int64](60), wantField: "expires_at"},
		{name: "ttl zero", ttl: ptr[int64](0), wantField: "ttl_seconds"},
		{name: "ttl negative", ttl: ptr[int64](-1), wantField: "ttl_seconds"},
		{name: "ttl most negative", ttl: ptr[int64](-1 << 63), wantField: "ttl_seconds"},
		{name: "ttl over ten years", ttl: ptr(maxSeconds + 1), wantField: "ttl_seconds"},
		{name: "ttl huge", ttl: ptr[int64](1<<63 - 1), wantField: "ttl_seconds"},
		{name: "expires_at equal to now", at: ptr(now), wantField: "expires_at"},
		{name: "expires_at in the past", at: ptr(now.Add(-time.Nanosecond)), wantField: "expires_at"},
		{name: "expires_at zero time", at: ptr(time.Time{}), wantField: "expires_at"},
		{name: "expires_at just over ten years", at: ptr(now.Add(link.MaxTTL + time.Nanosecond)), wantField: "expires_at"},
		{name: "expires_at far future", at: ptr(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)), wantField: "expires_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rules.Expiry(tt.at, tt.ttl, now)

			if tt.wantField != "" {
				requireFieldError(t, err, tt.wantField)
				assert.True(t, got.IsZero())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, time.UTC, got.Location())
		})
	}
}

func TestRedirectStatus(t *testing.T) {
	tests := []struct {
		name    string
		in      *int
		want    int
		wantErr bool
	}{
		{name: "nil is 302", in: nil, want: 302},
		{name: "301", in: ptr(301), want: 301},
		{name: "302", in: ptr(302), want: 302},
		{name: "307", in: ptr(307), want: 307},
		{name: "308", in: ptr(308), want: 308},
		{name: "300", in: ptr(300), wantErr: true},
		{name: "303", in: ptr(303), wantErr: true},
		{name: "304", in: ptr(304), wantErr: true},
		{name: "200", in: ptr(200), wantErr: true},
		{name: "0", in: ptr(0), wantErr: true},
		{name: "-302", in: ptr(-302), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := link.RedirectStatus(tt.in)

			if tt.wantErr {
				requireFieldError(t, err, "redirect_status")
				assert.Zero(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidate(t *testing.T) {
	rules := link.Rules{ShortDomains: []string{"sho.rt"}, DefaultTTL: 24 * time.Hour}
	tests := []struct {
		name      string
		req       link.CreateRequest
		want      link.Validated
		wantField string
	}{
		{
			name: "minimal",
			req:  link.CreateRequest{URL: "HTTPS://Example.com/x"},
			want: link.Validated{URL: "https://example.com/x", ExpiresAt: now.Add(24 * time.Hour), RedirectStatus: 302, Status: link.StatusActive},
		},
		{
			name: "everything",
			req: link.CreateRequest{
				URL: "https://bücher.example/", Alias: "Spring-Sale",
				TTLSeconds: ptr[int64](3600), RedirectStatus: ptr(301), Status: ptr("disabled"),
			},
			want: link.Validated{
				URL: "https://xn--bcher-kva.example/", Alias: "Spring-Sale", AliasKey: "spring-sale",
				ExpiresAt: now.Add(time.Hour), RedirectStatus: 301, Status: link.StatusDisabled,
			},
		},
		{
			name: "expires_at",
			req:  link.CreateRequest{URL: "https://example.com/", ExpiresAt: ptr(now.Add(time.Minute)), RedirectStatus: ptr(308)},
			want: link.Validated{URL: "https://example.com/", ExpiresAt: now.Add(time.Minute), RedirectStatus: 308, Status: link.StatusActive},
		},
		{name: "missing url", req: link.CreateRequest{Alias: "abc"}, wantField: "url"},
		{name: "url is checked first", req: link.CreateRequest{URL: "ftp://x", Alias: "a", RedirectStatus: ptr(200)}, wantField: "url"},
		{name: "own domain", req: link.CreateRequest{URL: "https://sho.rt/abc"}, wantField: "url"},
		{name: "bad alias", req: link.CreateRequest{URL: "https://example.com/", Alias: "a.b"}, wantField: "alias"},
		{name: "reserved alias", req: link.CreateRequest{URL: "https://example.com/", Alias: "Api"}, wantField: "alias"},
		{name: "both expiries", req: link.CreateRequest{URL: "https://example.com/", ExpiresAt: ptr(now.Add(time.Hour)), TTLSeconds: ptr[int64](1)}, wantField: "expires_at"},
		{name: "ttl zero", req: link.CreateRequest{URL: "https://example.com/", TTLSeconds: ptr[int64](0)}, wantField: "ttl_seconds"},
		{name: "bad redirect", req: link.CreateRequest{URL: "https://example.com/", RedirectStatus: ptr(303)}, wantField: "redirect_status"},
		{name: "paused", req: link.CreateRequest{URL: "https://example.com/", Status: ptr("paused")}, wantField: "status"},
		{name: "tombstone is never set", req: link.CreateRequest{URL: "https://example.com/", Status: ptr("tombstone")}, wantField: "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rules.Validate(tt.req, now)

			if tt.wantField != "" {
				requireFieldError(t, err, tt.wantField)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFieldError(t *testing.T) {
	fe := &link.FieldError{Field: "url", Reason: "is required"}
	tests := []struct {
		name   string
		target error
		want   bool
	}{
		{name: "invalid", target: link.ErrInvalid, want: true},
		{name: "not found", target: link.ErrNotFound},
		{name: "conflict", target: link.ErrConflict},
		{name: "gone", target: link.ErrGone},
		{name: "unavailable", target: link.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.Is(fe, tt.target))
			assert.Equal(t, tt.want, errors.Is(errors.Join(errors.New("ctx"), fe), tt.target), "through a wrapper")
		})
	}
	assert.Equal(t, "url: is required", fe.Error())
}

// TestExpiryIsWhatIsStored: links keep their expiry in whole seconds (the
// TTL attribute's unit), so Expiry answers the instant that is stored and
// checks that one, not the fraction asked for: a fraction of a second
// ahead must not create a link that is dead on arrival.
func TestExpiryIsWhatIsStored(t *testing.T) {
	at := now.Add(700 * time.Millisecond) // a clock between two seconds
	tests := []struct {
		name      string
		at        *time.Time
		ttl       *int64
		want      time.Time
		wantField string
	}{
		{name: "a fraction ahead that is stored as the past", at: ptr(at.Add(200 * time.Millisecond)), wantField: "expires_at"},
		{name: "a fraction ahead that is stored as now", at: ptr(now.Add(time.Second - time.Nanosecond)), wantField: "expires_at"},
		{name: "a fraction ahead that is stored as the next second", at: ptr(at.Add(500 * time.Millisecond)), want: now.Add(time.Second)},
		{name: "ttl from between two seconds", ttl: ptr[int64](1), want: now.Add(time.Second)},
		{name: "default from between two seconds", want: now.Add(link.DefaultTTL)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := link.Rules{}.Expiry(tt.at, tt.ttl, at)
			if tt.wantField != "" {
				requireFieldError(t, err, tt.wantField)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, got.Truncate(time.Second), "whole seconds, as stored")
			assert.True(t, got.After(at), "alive when created")
		})
	}
}

func TestRulesNormalizeAliasLengths(t *testing.T) {
	wide := link.Rules{AliasMinLen: 1, AliasMaxLen: 100}
	tests := []struct {
		name    string
		rules   link.Rules
		alias   string
		want    string
		wantMsg string
	}{
		{name: "default refuses one", alias: "a", wantMsg: "must be 3 to 64 characters, got 1"},
		{name: "default refuses two", alias: "zz", wantMsg: "must be 3 to 64 characters, got 2"},
		{name: "default refuses 65", alias: strings.Repeat("k", 65), wantMsg: "must be 3 to 64 characters, got 65"},
		{name: "default takes 3", alias: "abc", want: "abc"},
		{name: "wide takes one", rules: wide, alias: "A", want: "a"},
		{name: "wide takes two", rules: wide, alias: "zz", want: "zz"},
		{name: "wide takes 100", rules: wide, alias: strings.Repeat("K", 100), want: strings.Repeat("k", 100)},
		{name: "wide refuses 101", rules: wide, alias: strings.Repeat("k", 101), wantMsg: "must be 1 to 100 characters, got 101"},
		{name: "wide keeps the reserved words of two", rules: wide, alias: "V1", wantMsg: `"V1" is reserved`},
		{name: "wide keeps qr reserved", rules: wide, alias: "qr", wantMsg: `"qr" is reserved`},
		{name: "wide still checks the characters", rules: wide, alias: "a.", wantMsg: "may contain only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rules.NormalizeAlias(tt.alias)
			if tt.wantMsg != "" {
				requireFieldError(t, err, "alias")
				assert.Contains(t, err.Error(), tt.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			v, err := tt.rules.Validate(link.CreateRequest{URL: "https://example.com/", Alias: tt.alias}, time.Now())
			require.NoError(t, err)
			assert.Equal(t, tt.want, v.AliasKey)
		})
	}
}

func TestCheckAliasLengths(t *testing.T) {
	tests := []struct {
		name     string
		min, max int
		ok       bool
	}{
		{name: "defaults", min: 3, max: 64, ok: true},
		{name: "widest", min: 1, max: 100, ok: true},
		{name: "one length", min: 5, max: 5, ok: true},
		{name: "zero", min: 0, max: 64},
		{name: "past 100", min: 3, max: 101},
		{name: "inverted", min: 10, max: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := link.CheckAliasLengths(tt.min, tt.max)
			assert.Equal(t, tt.ok, err == nil, "%v", err)
		})
	}
}

func TestValidateImportedClicks(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		name    string
		clicks  *int64
		want    int64
		wantErr bool
	}{
		{name: "none", want: 0},
		{name: "zero", clicks: n(0), want: 0},
		{name: "a total", clicks: n(48213), want: 48213},
		{name: "the most", clicks: n(link.MaxImportedClicks), want: link.MaxImportedClicks},
		{name: "past the most", clicks: n(link.MaxImportedClicks + 1), wantErr: true},
		{name: "negative", clicks: n(-1), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := link.Rules{}.Validate(link.CreateRequest{URL: "https://example.com/", ImportedClicks: tt.clicks}, time.Now())
			if tt.wantErr {
				requireFieldError(t, err, "imported_clicks")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, v.ImportedClicks)
		})
	}
}
