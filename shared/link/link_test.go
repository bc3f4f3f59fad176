package link_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/link"
)

func TestResolve(t *testing.T) {
	expires := now.Add(time.Hour)
	tests := []struct {
		name   string
		status link.Status
		at     time.Time
		want   link.Resolution
	}{
		{name: "active before expiry", status: link.StatusActive, at: now, want: link.Redirect},
		{name: "active a nanosecond before expiry", status: link.StatusActive, at: expires.Add(-time.Nanosecond), want: link.Redirect},
		{name: "active exactly at expiry", status: link.StatusActive, at: expires, want: link.Gone},
		{name: "active after expiry", status: link.StatusActive, at: expires.Add(time.Second), want: link.Gone},
		{name: "disabled", status: link.StatusDisabled, at: now, want: link.Gone},
		{name: "deleted", status: link.StatusDeleted, at: now, want: link.Gone},
		{name: "tombstone", status: link.StatusTombstone, at: now, want: link.Gone},
		{name: "unknown status", status: link.Status("paused"), at: now, want: link.Gone},
		{name: "empty status", status: "", at: now, want: link.Gone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := link.Link{Code: "aB3dE5f", URL: "https://example.com/", Status: tt.status, ExpiresAt: expires}

			assert.Equal(t, tt.want, l.Resolve(tt.at))
		})
	}
}

func TestResolveZeroExpiryIsGone(t *testing.T) {
	// A link stored without an expiry must not redirect forever by accident.
	l := link.Link{Code: "aB3dE5f", Status: link.StatusActive}
	assert.Equal(t, link.Gone, l.Resolve(now))
}

func TestPath(t *testing.T) {
	tests := []struct {
		name  string
		code  string
		alias string
		want  string
	}{
		{name: "generated code", code: "aB3dE5f", want: "aB3dE5f"},
		{name: "generated code of another length", code: "aB3dE5fG", want: "aB3dE5fG"},
		{name: "lower-case alias", code: "spring-sale", alias: "spring-sale", want: "spring-sale"},
		{name: "alias display form", code: "spring-sale", alias: "Spring-Sale", want: "Spring-Sale"},
		{name: "7-char alias with underscore shows display form", code: "my_link", alias: "My_Link", want: "My_Link"},
		{name: "7-char alnum alias with capitals shows key", code: "promo25", alias: "Promo25", want: "promo25"},
		{name: "7-char all-caps alias shows key", code: "abcdefg", alias: "ABCDEFG", want: "abcdefg"},
		// Whatever length is configured today: a code of this length may
		// be drawn after the next change.
		{name: "6-char alnum alias shows key", code: "promo2", alias: "Promo2", want: "promo2"},
		{name: "8-char alnum alias shows key", code: "promo250", alias: "Promo250", want: "promo250"},
		{name: "16-char alnum alias shows key", code: "summersale2026ab", alias: "SummerSale2026AB", want: "summersale2026ab"},
		{name: "17-char alnum alias shows display form", code: "summersale2026abc", alias: "SummerSale2026ABC", want: "SummerSale2026ABC"},
		{name: "5-char alias shows display form", code: "promo", alias: "Promo", want: "Promo"},
		{name: "short alias", code: "abc", alias: "ABC", want: "ABC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := link.Link{Code: tt.code, Alias: tt.alias}

			assert.Equal(t, tt.want, l.Path())
		})
	}
}

// TestEdgePaths: every spelling the edge may hold for long, this version's
// and the previous ones', whatever the configured length.
func TestEdgePaths(t *testing.T) {
	tests := []struct {
		name string
		l    link.Link
		want []string
	}{
		{name: "generated", l: link.Link{Code: "aB3dE5f"}, want: []string{"/aB3dE5f"}},
		{name: "generated of another length", l: link.Link{Code: "aB3dE5fGh9kL"}, want: []string{"/aB3dE5fGh9kL"}},
		{name: "lower-case alias", l: link.Link{Code: "spring-sale", Alias: "spring-sale"}, want: []string{"/spring-sale"}},
		{name: "alias shown as typed", l: link.Link{Code: "spring-sale", Alias: "Spring-Sale"}, want: []string{"/spring-sale", "/Spring-Sale"}},
		// Shown lower-cased now; an older version, configured for another
		// length, showed and cached the display form.
		{name: "code-shaped alias", l: link.Link{Code: "mybrand8", Alias: "MyBrand8"}, want: []string{"/mybrand8", "/MyBrand8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.EdgePaths())
		})
	}
}

func TestCustomAlias(t *testing.T) {
	tests := []struct {
		name string
		l    link.Link
		want bool
	}{
		{name: "generated", l: link.Link{Code: "aB3dE5f"}, want: false},
		{name: "alias", l: link.Link{Code: "sale", Alias: "Sale"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.CustomAlias())
		})
	}
}

// TestLookupKeys: a segment spelt like a generated code of any allowed
// length is tried as typed first, whatever length is configured today
// ( after 7 -> 8 the old codes were looked up
// lower-cased only).
func TestLookupKeys(t *testing.T) {
	tests := []struct {
		segment string
		want    []string
	}{
		{"Ab3dE5g", []string{"Ab3dE5g", "ab3de5g"}},                            // code-shaped with capitals: as typed, then an alias
		{"Ab3dE5", []string{"Ab3dE5", "ab3de5"}},                               // shortest allowed code length
		{"Ab3dE5gH", []string{"Ab3dE5gH", "ab3de5gh"}},                         // a code of 8
		{"Ab3dE5gH9jK1", []string{"Ab3dE5gH9jK1", "ab3de5gh9jk1"}},             // a code of 12
		{"Ab3dE5gH9jK1mN0p", []string{"Ab3dE5gH9jK1mN0p", "ab3de5gh9jk1mn0p"}}, // longest allowed
		{"SUMMERSALE", []string{"SUMMERSALE", "summersale"}},                   // could be a code of 10
		{"ab3de5g", []string{"ab3de5g"}},                                       // code-shaped, lower: one key serves both
		{"Summer-Sale", []string{"summer-sale"}},                               // only an alias can have it
		{"Promo", []string{"promo"}},                                           // too short for any code
		{"SummerSale2026ABC", []string{"summersale2026abc"}},                   // too long for any code
		{"v1", nil},      // too short and reserved
		{"Healthz", nil}, // reserved, in any case
		{"a.b", nil},     // not alias syntax
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.segment, func(t *testing.T) {
			assert.Equal(t, tt.want, link.LookupKeys(tt.segment))
		})
	}
}

func TestNamedBy(t *testing.T) {
	active := link.StatusActive
	tests := []struct {
		name    string
		l       link.Link
		segment string
		want    bool
	}{
		{name: "generated, as typed", l: link.Link{Code: "Ab3dE5g", Status: active}, segment: "Ab3dE5g", want: true},
		{name: "generated, another case", l: link.Link{Code: "ab3de5g", Status: active}, segment: "AB3DE5G", want: false},
		{name: "alias, another case", l: link.Link{Code: "promo25", Alias: "Promo25", Status: active}, segment: "PROMO25", want: true},
		{name: "alias typed lower", l: link.Link{Code: "promo25", Alias: "promo25", Status: active}, segment: "promo25", want: true},
		{name: "tombstone, another case", l: link.Link{Code: "ab3de5g", Status: link.StatusTombstone}, segment: "AB3DE5G", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.NamedBy(tt.segment))
		})
	}
}

func TestNewTombstone(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	got := link.NewTombstone("abc1234", "owner-1", link.ReasonExpired, now, 0)
	assert.Equal(t, link.Tombstone{Code: "abc1234", PrevOwner: "owner-1", Reason: link.ReasonExpired,
		TombstonedAt: time.Date(2026, 11, 30, 12, 0, 0, 123000000, time.UTC),
		ReclaimAfter: time.Date(2026, 12, 30, 12, 0, 0, 0, time.UTC)}, got, "zero grace is the default, 30 days")
	got = link.NewTombstone("abc1234", "", link.ReasonDeleted, now, time.Hour)
	assert.Equal(t, time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC), got.ReclaimAfter)
}
