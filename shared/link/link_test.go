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
		name       string
		code       string
		alias      string
		codeLength int
		want       string
	}{
		{name: "generated code", code: "aB3dE5f", codeLength: 7, want: "aB3dE5f"},
		{name: "generated code of another length", code: "aB3dE5fG", codeLength: 7, want: "aB3dE5fG"},
		{name: "lower-case alias", code: "spring-sale", alias: "spring-sale", codeLength: 7, want: "spring-sale"},
		{name: "alias display form", code: "spring-sale", alias: "Spring-Sale", codeLength: 7, want: "Spring-Sale"},
		{name: "7-char alias with underscore shows display form", code: "my_link", alias: "My_Link", codeLength: 7, want: "My_Link"},
		{name: "7-char alnum alias with capitals shows key", code: "promo25", alias: "Promo25", codeLength: 7, want: "promo25"},
		{name: "7-char all-caps alias shows key", code: "abcdefg", alias: "ABCDEFG", codeLength: 7, want: "abcdefg"},
		{name: "7-char alnum alias, code length 8", code: "promo25", alias: "Promo25", codeLength: 8, want: "Promo25"},
		{name: "8-char alnum alias, code length 8", code: "promo250", alias: "Promo250", codeLength: 8, want: "promo250"},
		{name: "6-char alnum alias, code length 7", code: "promo2", alias: "Promo2", codeLength: 7, want: "Promo2"},
		{name: "short alias", code: "abc", alias: "ABC", codeLength: 7, want: "ABC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := link.Link{Code: tt.code, Alias: tt.alias}

			assert.Equal(t, tt.want, l.Path(tt.codeLength))
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

func TestLookupKeys(t *testing.T) {
	tests := []struct {
		segment string
		want    []string
	}{
		{"Ab3dE5g", []string{"Ab3dE5g", "ab3de5g"}}, // code-shaped with capitals: as typed, then an alias
		{"ab3de5g", []string{"ab3de5g"}},            // code-shaped, lower: one key serves both
		{"Summer-Sale", []string{"summer-sale"}},    // only an alias can have it
		{"SUMMERSALE", []string{"summersale"}},      // too long for a code of 7
		{"v1", nil},                                 // too short and reserved
		{"Healthz", nil},                            // reserved, in any case
		{"a.b", nil},                                // not alias syntax
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.segment, func(t *testing.T) {
			assert.Equal(t, tt.want, link.LookupKeys(tt.segment, 7))
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
