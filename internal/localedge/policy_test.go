package localedge

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPolicyTTL(t *testing.T) {
	p := DeployedPolicy()
	tests := []struct {
		name   string
		status int
		cc     []string // Cache-Control values; nil sends none
		want   time.Duration
	}{
		{name: "redirect for its s-maxage", status: 302, cc: []string{"public, max-age=0, s-maxage=86400"}, want: 24 * time.Hour},
		{name: "s-maxage beats max-age", status: 301, cc: []string{"max-age=5, s-maxage=30"}, want: 30 * time.Second},
		{name: "max-age without s-maxage", status: 302, cc: []string{"max-age=42"}, want: 42 * time.Second},
		{name: "directives in any case and spacing", status: 302, cc: []string{"Public ,S-MAXAGE=7"}, want: 7 * time.Second},
		{name: "values split over headers", status: 302, cc: []string{"public", "s-maxage=9"}, want: 9 * time.Second},
		{name: "no Cache-Control: the policy default", status: 302, want: DefaultDefaultTTL},
		{name: "clamped to the policy maximum", status: 302, cc: []string{"s-maxage=999999999"}, want: DefaultMaxTTL},
		{name: "s-maxage=0 keeps nothing", status: 302, cc: []string{"public, max-age=0, s-maxage=0"}, want: 0},
		{name: "no-store", status: 302, cc: []string{"no-store"}, want: 0},
		{name: "no-cache", status: 200, cc: []string{"no-cache"}, want: 0},
		{name: "private", status: 302, cc: []string{"private, max-age=60"}, want: 0},
		{name: "malformed number falls back to the default", status: 302, cc: []string{"s-maxage=soon"}, want: DefaultDefaultTTL},
		{name: "307 needs Cache-Control", status: 307, want: 0},
		{name: "307 with Cache-Control", status: 307, cc: []string{"s-maxage=20"}, want: 20 * time.Second},
		{name: "308 needs Cache-Control", status: 308, want: 0},
		{name: "404 for its s-maxage", status: 404, cc: []string{"public, max-age=0, s-maxage=30"}, want: 30 * time.Second},
		{name: "404 at least the error minimum", status: 404, cc: []string{"s-maxage=3"}, want: DefaultErrorCachingMinTTL},
		{name: "404 without Cache-Control: the error minimum", status: 404, want: DefaultErrorCachingMinTTL},
		{name: "404 no-store is not kept", status: 404, cc: []string{"no-store"}, want: 0},
		{name: "410 for its s-maxage", status: 410, cc: []string{"s-maxage=60"}, want: time.Minute},
		{name: "410 no-store is not kept", status: 410, cc: []string{"no-store"}, want: 0},
		{name: "503 ignores no-store", status: 503, cc: []string{"no-store"}, want: DefaultErrorCachingMinTTL},
		{name: "502 without Cache-Control", status: 502, want: DefaultErrorCachingMinTTL},
		{name: "400 without Cache-Control", status: 400, want: 0},
		{name: "403 with Cache-Control", status: 403, cc: []string{"max-age=30"}, want: 30 * time.Second},
		{name: "201 is never kept", status: 201, cc: []string{"s-maxage=60"}, want: 0},
		{name: "204 is never kept", status: 204, cc: []string{"s-maxage=60"}, want: 0},
		// Not among the codes CloudFront caches, whatever the origin says:
		// one viewer's refusal (the redirect's miss budget) is never
		// another's answer.
		{name: "429 is never kept", status: 429, cc: []string{"s-maxage=60"}, want: 0},
		{name: "429 without Cache-Control", status: 429, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.cc {
				h.Add("Cache-Control", v)
			}
			assert.Equal(t, tt.want, p.TTL(tt.status, h))
		})
	}
}

func TestPolicyMinTTLKeepsForbiddenAnswers(t *testing.T) {
	// With Min TTL above zero CloudFront caches even no-store answers.
	p := Policy{MinTTL: 5 * time.Second, DefaultTTL: time.Minute, MaxTTL: time.Hour}
	h := http.Header{"Cache-Control": {"no-store"}}
	assert.Equal(t, 5*time.Second, p.TTL(302, h))
	h = http.Header{"Cache-Control": {"s-maxage=1"}}
	assert.Equal(t, 5*time.Second, p.TTL(302, h), "raised to Min")
}
