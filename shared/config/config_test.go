package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// env is a Getenv over a map.
func env(m map[string]string) config.Getenv {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	want := config.Config{
		CodeLength:       7,
		MaxURLBytes:      8192,
		AliasMinLength:   3,
		AliasMaxLength:   64,
		DefaultTTL:       5 * 365 * 24 * time.Hour,
		DBTimeout:        2 * time.Second,
		RedirectTimeout:  500 * time.Millisecond,
		CacheTTL:         20 * time.Second,
		NegativeCacheTTL: 10 * time.Second,
		CacheSize:        50_000,
		EdgeTTL:          86_400,
		TombstoneGrace:   30 * 24 * time.Hour,
		KeyCacheTTL:      30 * time.Second,
		ClickStore:       config.ClickStorePacked,
		// FreshRead plus a second.
		InvalidationSettle:     2 * time.Second,
		EdgeVersionSweepMargin: time.Hour,
		Webhook:                webhook.Config{Schedule: webhook.DefaultSchedule, Timeout: webhook.DefaultTimeout},
		MissBudget:             100,
		MissWindow:             time.Hour,
	}

	got, err := config.Load(env(nil))

	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestLoadValues(t *testing.T) {
	got, err := config.Load(env(map[string]string{
		"LINKS_TABLE":                         "links",
		"IDEMPOTENCY_TABLE":                   "idem",
		"SHORTENER_BASE_URL":                  "https://sho.rt/",
		"SHORTENER_SHORT_DOMAINS":             " lnk.example , ,www.sho.rt,",
		"SHORTENER_CODE_LENGTH":               "9",
		"SHORTENER_MAX_URL_BYTES":             "2048",
		"SHORTENER_DEFAULT_TTL":               "720h",
		"SHORTENER_DB_TIMEOUT":                "3s",
		"SHORTENER_REDIRECT_DB_TIMEOUT":       "250ms",
		"SHORTENER_CACHE_TTL":                 "30s",
		"SHORTENER_NEGATIVE_CACHE_TTL":        "5s",
		"SHORTENER_CACHE_SIZE":                "1000",
		"SHORTENER_EDGE_TTL":                  "60",
		"SHORTENER_TOMBSTONE_GRACE":           "5s",
		"EDGE_PARAMETER":                      "/Shortener/edge",
		"KEYS_TABLE":                          "keys",
		"SHORTENER_KEY_CACHE_TTL":             "10s",
		"ANALYTICS_TABLE":                     "clicks",
		"SHORTENER_CLICK_STORE":               "items",
		"PRIMARY_REGION":                      "eu-west-1",
		"ORIGIN_SECRET_ID":                    "arn:aws:secretsmanager:eu-central-1:123456789012:secret:origin-AbCdEf",
		"SHORTENER_INVALIDATION_SETTLE":       "3500ms",
		"SHORTENER_EDGE_VERSION_SWEEP_MARGIN": "90m",
		"WEBHOOKS_TABLE":                      "webhooks",
		"WEBHOOK_QUEUE_URL":                   "https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries",
		"WEBHOOK_DLQ_URL":                     "https://sqs.eu-west-1.amazonaws.com/123456789012/dead-letters",
		"WEBHOOK_TIMEOUT":                     "5s",
		"MISSES_TABLE":                        "misses",
		"SHORTENER_MISS_BUDGET":               "20",
		"SHORTENER_MISS_WINDOW":               "10m",
		"EDGE_MARKS_TABLE":                    "marks",
		"SHORTENER_ALIAS_MIN_LENGTH":          "1",
		"SHORTENER_ALIAS_MAX_LENGTH":          "100",
		"EDGE_MARKS_TABLES":                   "arn:aws:dynamodb:eu-west-1:123456789012:table/marks,arn:aws:dynamodb:eu-central-1:123456789012:table/marks",
	}))

	require.NoError(t, err)
	want := config.Config{
		LinksTable:             "links",
		IdempotencyTable:       "idem",
		BaseURL:                "https://sho.rt",
		ShortDomains:           []string{"sho.rt", "lnk.example", "www.sho.rt"},
		CodeLength:             9,
		MaxURLBytes:            2048,
		AliasMinLength:         1,
		AliasMaxLength:         100,
		DefaultTTL:             720 * time.Hour,
		DBTimeout:              3 * time.Second,
		RedirectTimeout:        250 * time.Millisecond,
		CacheTTL:               30 * time.Second,
		NegativeCacheTTL:       5 * time.Second,
		CacheSize:              1000,
		EdgeTTL:                60,
		TombstoneGrace:         5 * time.Second,
		EdgeParameter:          "/Shortener/edge",
		InvalidationSettle:     3500 * time.Millisecond,
		EdgeVersionSweepMargin: 90 * time.Minute,
		KeysTable:              "keys",
		KeyCacheTTL:            10 * time.Second,
		AnalyticsTable:         "clicks",
		ClickStore:             config.ClickStoreItems,
		PrimaryRegion:          "eu-west-1",
		OriginSecretID:         "arn:aws:secretsmanager:eu-central-1:123456789012:secret:origin-AbCdEf",
		Webhook: webhook.Config{Table: "webhooks", QueueURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries",
			DLQURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/dead-letters", Schedule: webhook.DefaultSchedule, Timeout: 5 * time.Second},
		MissesTable: "misses",
		MissBudget:  20,
		MissWindow:  10 * time.Minute,

		EdgeMarksTable:  "marks",
		EdgeMarksTables: []edgemarks.Table{{Region: "eu-west-1", Name: "marks"}, {Region: "eu-central-1", Name: "marks"}},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, link.Rules{MaxURLBytes: 2048, ShortDomains: want.ShortDomains, DefaultTTL: 720 * time.Hour,
		AliasMinLen: 1, AliasMaxLen: 100}, got.Rules())
}

func TestLoadBounds(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		value   string
		wantErr bool
	}{
		{name: "code length min", key: "SHORTENER_CODE_LENGTH", value: "6"},
		{name: "edge marks tables by name", key: "EDGE_MARKS_TABLES", value: "marks", wantErr: true},
		{name: "code length max", key: "SHORTENER_CODE_LENGTH", value: "16"},
		{name: "code length too short", key: "SHORTENER_CODE_LENGTH", value: "5", wantErr: true},
		{name: "code length too long", key: "SHORTENER_CODE_LENGTH", value: "17", wantErr: true},
		{name: "code length not a number", key: "SHORTENER_CODE_LENGTH", value: "seven", wantErr: true},
		{name: "max url bytes not a number", key: "SHORTENER_MAX_URL_BYTES", value: "8k", wantErr: true},
		{name: "cache size not a number", key: "SHORTENER_CACHE_SIZE", value: "1e6", wantErr: true},
		{name: "edge ttl not a number", key: "SHORTENER_EDGE_TTL", value: "1d", wantErr: true},
		{name: "default ttl ten years", key: "SHORTENER_DEFAULT_TTL", value: "87600h"},
		{name: "default ttl over ten years", key: "SHORTENER_DEFAULT_TTL", value: "87601h", wantErr: true},
		{name: "default ttl not a duration", key: "SHORTENER_DEFAULT_TTL", value: "1y", wantErr: true},
		{name: "default ttl zero", key: "SHORTENER_DEFAULT_TTL", value: "0s", wantErr: true},
		{name: "default ttl negative", key: "SHORTENER_DEFAULT_TTL", value: "-1h", wantErr: true},
		{name: "db timeout bare number", key: "SHORTENER_DB_TIMEOUT", value: "2", wantErr: true},
		{name: "redirect timeout zero", key: "SHORTENER_REDIRECT_DB_TIMEOUT", value: "0", wantErr: true},
		{name: "key cache ttl 5m", key: "SHORTENER_KEY_CACHE_TTL", value: "5m"},
		{name: "key cache ttl over 5m", key: "SHORTENER_KEY_CACHE_TTL", value: "5m1s", wantErr: true},
		{name: "key cache ttl zero", key: "SHORTENER_KEY_CACHE_TTL", value: "0s", wantErr: true},
		{name: "cache ttl 30s", key: "SHORTENER_CACHE_TTL", value: "30s"},
		{name: "cache ttl 1ms", key: "SHORTENER_CACHE_TTL", value: "1ms"},
		{name: "cache ttl over 30s", key: "SHORTENER_CACHE_TTL", value: "31s", wantErr: true},
		{name: "cache ttl just over 30s", key: "SHORTENER_CACHE_TTL", value: "30.001s", wantErr: true},
		{name: "cache ttl a minute", key: "SHORTENER_CACHE_TTL", value: "1m", wantErr: true},
		{name: "negative cache ttl 5s", key: "SHORTENER_NEGATIVE_CACHE_TTL", value: "5s"},
		{name: "negative cache ttl 30s", key: "SHORTENER_NEGATIVE_CACHE_TTL", value: "30s"},
		{name: "negative cache ttl under 5s", key: "SHORTENER_NEGATIVE_CACHE_TTL", value: "4.999s", wantErr: true},
		{name: "negative cache ttl 1s", key: "SHORTENER_NEGATIVE_CACHE_TTL", value: "1s", wantErr: true},
		{name: "negative cache ttl over 30s", key: "SHORTENER_NEGATIVE_CACHE_TTL", value: "31s", wantErr: true},
		{name: "invalidation settle 2s", key: "SHORTENER_INVALIDATION_SETTLE", value: "2s"},
		{name: "invalidation settle 10s", key: "SHORTENER_INVALIDATION_SETTLE", value: "10s"},
		{name: "invalidation settle within FreshRead", key: "SHORTENER_INVALIDATION_SETTLE", value: "1s", wantErr: true},
		{name: "invalidation settle under 2s", key: "SHORTENER_INVALIDATION_SETTLE", value: "1.999s", wantErr: true},
		{name: "invalidation settle over 10s", key: "SHORTENER_INVALIDATION_SETTLE", value: "11s", wantErr: true},
		{name: "version sweep margin 1s", key: "SHORTENER_EDGE_VERSION_SWEEP_MARGIN", value: "1s"},
		{name: "version sweep margin zero", key: "SHORTENER_EDGE_VERSION_SWEEP_MARGIN", value: "0s", wantErr: true},
		{name: "version sweep margin negative", key: "SHORTENER_EDGE_VERSION_SWEEP_MARGIN", value: "-1h", wantErr: true},
		{name: "miss budget 1", key: "SHORTENER_MISS_BUDGET", value: "1"},
		{name: "miss budget zero", key: "SHORTENER_MISS_BUDGET", value: "0", wantErr: true},
		{name: "miss budget not a number", key: "SHORTENER_MISS_BUDGET", value: "lots", wantErr: true},
		{name: "alias min length 1", key: "SHORTENER_ALIAS_MIN_LENGTH", value: "1"},
		{name: "alias min length 0", key: "SHORTENER_ALIAS_MIN_LENGTH", value: "0", wantErr: true},
		{name: "alias min length past the max", key: "SHORTENER_ALIAS_MIN_LENGTH", value: "65", wantErr: true},
		{name: "alias max length 100", key: "SHORTENER_ALIAS_MAX_LENGTH", value: "100"},
		{name: "alias max length 101", key: "SHORTENER_ALIAS_MAX_LENGTH", value: "101", wantErr: true},
		{name: "alias max length not a number", key: "SHORTENER_ALIAS_MAX_LENGTH", value: "lots", wantErr: true},
		{name: "miss window 24h", key: "SHORTENER_MISS_WINDOW", value: "24h"},
		{name: "miss window over 24h", key: "SHORTENER_MISS_WINDOW", value: "25h", wantErr: true},
		{name: "miss window a fraction of a second", key: "SHORTENER_MISS_WINDOW", value: "1500ms", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(env(map[string]string{tt.key: tt.value}))

			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.key+":")
				assert.Contains(t, err.Error(), tt.value, "the bad value is quoted back")
				return
			}
			require.NoError(t, err)
		})
	}
}

func TestLoadReportsEveryBadValue(t *testing.T) {
	bad := map[string]string{
		"SHORTENER_CODE_LENGTH":         "99",
		"SHORTENER_MAX_URL_BYTES":       "lots",
		"SHORTENER_DEFAULT_TTL":         "forever",
		"SHORTENER_DB_TIMEOUT":          "-1s",
		"SHORTENER_REDIRECT_DB_TIMEOUT": "soon",
		"SHORTENER_CACHE_TTL":           "1h",
		"SHORTENER_NEGATIVE_CACHE_TTL":  "1s",
		"SHORTENER_CACHE_SIZE":          "big",
		"SHORTENER_EDGE_TTL":            "day",
		"SHORTENER_BASE_URL":            "https://sho.rt/path",
	}

	_, err := config.Load(env(bad))

	require.Error(t, err)
	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "want errors.Join, got %T", err)
	assert.Len(t, joined.Unwrap(), len(bad), "one error per bad setting: %v", err)
	for key := range bad {
		assert.Contains(t, err.Error(), key+":")
	}
}

func TestLoadBaseURL(t *testing.T) {
	tests := []struct {
		name        string
		base        string
		domains     string
		wantBase    string
		wantDomains []string
		wantErr     bool
	}{
		{name: "origin", base: "https://sho.rt", wantBase: "https://sho.rt", wantDomains: []string{"sho.rt"}},
		{name: "trailing slash trimmed", base: "https://sho.rt/", wantBase: "https://sho.rt", wantDomains: []string{"sho.rt"}},
		{name: "http with port", base: "http://localhost:3000", wantBase: "http://localhost:3000", wantDomains: []string{"localhost"}},
		{name: "IPv6 with port", base: "http://[::1]:3000", wantBase: "http://[::1]:3000", wantDomains: []string{"::1"}},
		{name: "plus short domains", base: "https://sho.rt", domains: "lnk.example,go.example", wantBase: "https://sho.rt", wantDomains: []string{"sho.rt", "lnk.example", "go.example"}},
		{name: "short domains only", domains: " lnk.example ", wantDomains: []string{"lnk.example"}},
		{name: "neither", wantDomains: nil},
		{name: "path", base: "https://sho.rt/s", wantErr: true},
		{name: "path with trailing slash", base: "https://sho.rt/s/", wantErr: true},
		{name: "double trailing slash", base: "https://sho.rt//", wantErr: true},
		{name: "query", base: "https://sho.rt?x=1", wantErr: true},
		{name: "empty query", base: "https://sho.rt?", wantErr: true},
		{name: "fragment", base: "https://sho.rt#top", wantErr: true},
		{name: "empty fragment", base: "https://sho.rt#", wantErr: true},
		{name: "user info", base: "https://admin@sho.rt", wantErr: true},
		{name: "no scheme", base: "sho.rt", wantErr: true},
		{name: "ftp", base: "ftp://sho.rt", wantErr: true},
		{name: "no host", base: "https://", wantErr: true},
		{name: "opaque", base: "https:sho.rt", wantErr: true},
		{name: "unparseable", base: "https://sho.rt:port", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Load(env(map[string]string{"SHORTENER_BASE_URL": tt.base, "SHORTENER_SHORT_DOMAINS": tt.domains}))

			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "SHORTENER_BASE_URL:")
				assert.Empty(t, got.ShortDomains, "a rejected base URL adds no short domain")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantBase, got.BaseURL)
			assert.Equal(t, tt.wantDomains, got.ShortDomains)
		})
	}
}

func TestRequire(t *testing.T) {
	cfg := config.Config{LinksTable: "links", BaseURL: "https://sho.rt"}
	tests := []struct {
		name        string
		names       []string
		wantMissing []string
	}{
		{name: "nothing asked", names: nil},
		{name: "present", names: []string{"LINKS_TABLE", "SHORTENER_BASE_URL"}},
		{name: "one missing", names: []string{"LINKS_TABLE", "IDEMPOTENCY_TABLE"}, wantMissing: []string{"IDEMPOTENCY_TABLE"}},
		{name: "unknown name is never set", names: []string{"NOT_A_SETTING"}, wantMissing: []string{"NOT_A_SETTING"}},
		{name: "several missing", names: []string{"IDEMPOTENCY_TABLE", "NOT_A_SETTING"}, wantMissing: []string{"IDEMPOTENCY_TABLE", "NOT_A_SETTING"}},
		{name: "the analytics table and the origin secret", names: []string{"ANALYTICS_TABLE", "ORIGIN_SECRET_ID"}, wantMissing: []string{"ANALYTICS_TABLE", "ORIGIN_SECRET_ID"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cfg.Require(tt.names...)

			if len(tt.wantMissing) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			var got []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				got = append(got, strings.TrimSuffix(e.Error(), " is not set"))
			}
			assert.Equal(t, tt.wantMissing, got)
		})
	}
}

func TestRequireEmptyConfig(t *testing.T) {
	err := config.Config{}.Require("LINKS_TABLE", "IDEMPOTENCY_TABLE", "SHORTENER_BASE_URL")
	require.Error(t, err)
	for _, name := range []string{"LINKS_TABLE", "IDEMPOTENCY_TABLE", "SHORTENER_BASE_URL"} {
		assert.Contains(t, err.Error(), name+" is not set")
	}
}

func TestLoadRefusesNonsensicalSizes(t *testing.T) {
	tests := []struct {
		name, key, value string
	}{
		{"zero url cap", "SHORTENER_MAX_URL_BYTES", "0"},
		{"negative url cap", "SHORTENER_MAX_URL_BYTES", "-5"},
		{"zero cache", "SHORTENER_CACHE_SIZE", "0"},
		{"negative edge ttl", "SHORTENER_EDGE_TTL", "-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(func(k string) string {
				if k == tt.key {
					return tt.value
				}
				return ""
			})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.key)
		})
	}
}

func TestClickStoreIsChecked(t *testing.T) {
	_, err := config.Load(func(k string) string {
		if k == "SHORTENER_CLICK_STORE" {
			return "rollups"
		}
		return ""
	})

	assert.ErrorContains(t, err, "SHORTENER_CLICK_STORE")
}

func TestLoadAliasLengthsInverted(t *testing.T) {
	_, err := config.Load(env(map[string]string{"SHORTENER_ALIAS_MIN_LENGTH": "10", "SHORTENER_ALIAS_MAX_LENGTH": "9"}))

	require.Error(t, err)
	assert.Contains(t, err.Error(), "SHORTENER_ALIAS_MIN_LENGTH: 10 is more than SHORTENER_ALIAS_MAX_LENGTH 9")
}
