package infra

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/costmodel"
)

// mapNode stands in for the App's construct node: ConfigFromContext reads
// context only through ctxReader.
func readConfig(ctx map[string]any) (Config, error) {
	c := DefaultConfig()
	return configFrom(ctxReader{get: func(k string) any { return ctx[k] }}, c)
}

func TestConfigDefaults(t *testing.T) {
	c, err := readConfig(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"us-east-1", "us-west-2"}, c.Regions)
	assert.Equal(t, "us-east-1", c.PrimaryRegion)
	assert.Equal(t, "us-west-2", c.FailoverRegion)
	assert.Equal(t, 7, c.CodeLength)
	assert.Equal(t, 5*365*24*time.Hour, c.DefaultTTL)
	assert.Equal(t, 30*24*time.Hour, c.TombstoneGrace)
	assert.False(t, c.WAF, "off: the redirect's miss budget pays only for misses")
	assert.Equal(t, 100, c.MissBudget)
	assert.Equal(t, time.Hour, c.MissWindow)
	assert.Equal(t, "", c.BaseURL())
	assert.False(t, c.AuditArchive, "the audit log's S3 copy is off by default")
	assert.Equal(t, ArchiveCompliance, c.AuditArchiveMode)
	assert.Equal(t, 2555, c.AuditArchiveRetentionDays)
}

func TestAuditArchiveContext(t *testing.T) {
	tests := []struct {
		name string
		ctx  map[string]any
		want Config // AuditArchive, Mode, Days
		err  string
	}{
		{name: "on from the CLI", ctx: map[string]any{CtxAuditArchive: "true"},
			want: Config{AuditArchive: true, AuditArchiveMode: ArchiveCompliance, AuditArchiveRetentionDays: 2555}},
		{name: "governance, a year, from cdk.json", ctx: map[string]any{CtxAuditArchive: true, CtxAuditArchiveMode: "governance",
			CtxAuditArchiveRetentionDays: float64(365)},
			want: Config{AuditArchive: true, AuditArchiveMode: ArchiveGovernance, AuditArchiveRetentionDays: 365}},
		{name: "one day", ctx: map[string]any{CtxAuditArchive: "true", CtxAuditArchiveRetentionDays: "1"},
			want: Config{AuditArchive: true, AuditArchiveMode: ArchiveCompliance, AuditArchiveRetentionDays: 1}},
		{name: "a hundred years", ctx: map[string]any{CtxAuditArchive: "true", CtxAuditArchiveRetentionDays: "36500"},
			want: Config{AuditArchive: true, AuditArchiveMode: ArchiveCompliance, AuditArchiveRetentionDays: 36500}},
		{name: "zero days", ctx: map[string]any{CtxAuditArchive: "true", CtxAuditArchiveRetentionDays: "0"},
			err: "auditArchiveRetentionDays: 0 is outside 1-36500"},
		{name: "past a hundred years", ctx: map[string]any{CtxAuditArchiveRetentionDays: "36501"},
			err: "auditArchiveRetentionDays: 36501 is outside 1-36500"},
		{name: "not a number", ctx: map[string]any{CtxAuditArchiveRetentionDays: "7y"},
			err: `auditArchiveRetentionDays: "7y" is not a whole number`},
		{name: "unknown mode", ctx: map[string]any{CtxAuditArchive: "true", CtxAuditArchiveMode: "LEGAL_HOLD"},
			err: `auditArchiveMode: "LEGAL_HOLD" is not COMPLIANCE or GOVERNANCE`},
		{name: "not a boolean", ctx: map[string]any{CtxAuditArchive: "yes please"},
			err: "auditArchive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readConfig(tt.ctx)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, Config{AuditArchive: c.AuditArchive, AuditArchiveMode: c.AuditArchiveMode,
				AuditArchiveRetentionDays: c.AuditArchiveRetentionDays})
		})
	}
}

func TestConfigFromContext(t *testing.T) {
	tests := []struct {
		name  string
		ctx   map[string]any
		check func(t *testing.T, c Config)
		err   string
	}{
		{name: "CLI strings", ctx: map[string]any{
			CtxRegions: "eu-west-1, eu-central-1", CtxCodeLength: "9", CtxWAF: "false",
			CtxDefaultTTL: "8760h", CtxEdgeTTLSeconds: "3600",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, []string{"eu-west-1", "eu-central-1"}, c.Regions)
			assert.Equal(t, "eu-west-1", c.PrimaryRegion, "the first region by default")
			assert.Equal(t, "eu-central-1", c.FailoverRegion)
			assert.Equal(t, 9, c.CodeLength)
			assert.False(t, c.WAF)
			assert.Equal(t, 365*24*time.Hour, c.DefaultTTL)
			assert.Equal(t, 3600, c.EdgeTTLSeconds)
		}},
		{name: "cdk.json JSON", ctx: map[string]any{
			CtxRegions: []any{"us-east-1"}, CtxCodeLength: float64(8), CtxWAF: true,
			CtxMissBudget: float64(20), CtxMissWindow: "10m",
		}, check: func(t *testing.T, c Config) {
			assert.True(t, c.WAF)
			assert.Equal(t, 20, c.MissBudget)
			assert.Equal(t, 10*time.Minute, c.MissWindow)
			assert.Equal(t, "", c.FailoverRegion, "one region: no failover origin")
			assert.Empty(t, c.SecondaryRegions())
		}},
		{name: "JSON list on the command line", ctx: map[string]any{CtxRegions: `["ap-southeast-2","us-east-1"]`, CtxPrimaryRegion: "us-east-1", CtxReservations: false},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "us-east-1", c.PrimaryRegion)
				assert.Equal(t, "ap-southeast-2", c.FailoverRegion)
			}},
		{name: "explicit no failover", ctx: map[string]any{CtxFailoverRegion: ""},
			check: func(t *testing.T, c Config) { assert.Equal(t, "", c.FailoverRegion) }},
		{name: "custom domain is the base URL", ctx: map[string]any{
			CtxDomainName: "sho.rt", CtxCertificateARN: "arn:aws:acm:us-east-1:123456789012:certificate/abc",
		}, check: func(t *testing.T, c Config) { assert.Equal(t, "https://sho.rt", c.BaseURL()) }},
		{name: "without a domain the functions learn it", ctx: map[string]any{CtxAppName: "ShortenerStaging"},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "", c.BaseURL())
				assert.Equal(t, "/ShortenerStaging/edge", c.EdgeParameterName(), "one parameter per installation")
			}},
		{name: "second-pass context is refused", ctx: map[string]any{"distributionId": "E2EXAMPLE12345"}, err: "distributionId: no longer used"},
		{name: "second-pass domain is refused", ctx: map[string]any{"distributionDomainName": "d111.cloudfront.net"}, err: "distributionDomainName: no longer used"},
		{name: "empty second-pass keys are ignored", ctx: map[string]any{"distributionId": "", "distributionDomainName": ""},
			check: func(t *testing.T, c Config) { assert.Equal(t, "", c.BaseURL()) }},
		{name: "hosted zone: the API name defaults into it", ctx: map[string]any{CtxHostedZoneID: "Z0123456789ABC", CtxHostedZoneName: "sho.rt."},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, "sho.rt", c.HostedZoneName)
				assert.Equal(t, "api.sho.rt", c.APIDomainName)
			}},
		{name: "hosted zone with an API name", ctx: map[string]any{CtxHostedZoneID: "Z0123456789ABC", CtxHostedZoneName: "sho.rt", CtxAPIDomainName: "v1.staging.sho.rt"},
			check: func(t *testing.T, c Config) { assert.Equal(t, "v1.staging.sho.rt", c.APIDomainName) }},
		{name: "no hosted zone: no API name", ctx: map[string]any{}, check: func(t *testing.T, c Config) { assert.Equal(t, "", c.APIDomainName) }},
		{name: "hosted zone ID alone", ctx: map[string]any{CtxHostedZoneID: "Z0123456789ABC"}, err: "hostedZoneId and hostedZoneName"},
		{name: "API name outside the zone", ctx: map[string]any{CtxHostedZoneID: "Z1", CtxHostedZoneName: "sho.rt", CtxAPIDomainName: "api.example.com"}, err: "apiDomainName"},
		{name: "API name without a zone", ctx: map[string]any{CtxAPIDomainName: "api.sho.rt"}, err: "apiDomainName"},
		{name: "API name is the distribution's", ctx: map[string]any{CtxHostedZoneID: "Z1", CtxHostedZoneName: "sho.rt", CtxAPIDomainName: "go.sho.rt",
			CtxDomainName: "go.sho.rt", CtxCertificateARN: "arn:aws:acm:us-east-1:123456789012:certificate/abc"}, err: "apiDomainName"},
		{name: "primary not a region", ctx: map[string]any{CtxPrimaryRegion: "eu-west-1"}, err: "primaryRegion"},
		{name: "failover is the primary", ctx: map[string]any{CtxFailoverRegion: "us-east-1"}, err: "failoverRegion"},
		{name: "domain without certificate", ctx: map[string]any{CtxDomainName: "sho.rt"}, err: "certificateArn"},
		{name: "certificate outside us-east-1", ctx: map[string]any{
			CtxDomainName: "sho.rt", CtxCertificateARN: "arn:aws:acm:eu-west-1:123456789012:certificate/abc"}, err: "us-east-1"},
		{name: "code too short", ctx: map[string]any{CtxCodeLength: 5}, err: "codeLength"},
		{name: "alias lengths widened for imports", ctx: map[string]any{CtxAliasMinLength: "1", CtxAliasMaxLength: "100"},
			check: func(t *testing.T, c Config) {
				assert.Equal(t, 1, c.AliasMinLength)
				assert.Equal(t, 100, c.AliasMaxLength)
				e, err := functionEnv(c, nil)
				require.NoError(t, err)
				assert.Equal(t, "1", e.common["SHORTENER_ALIAS_MIN_LENGTH"])
				assert.Equal(t, "100", e.common["SHORTENER_ALIAS_MAX_LENGTH"])
			}},
		{name: "alias lengths default", ctx: map[string]any{}, check: func(t *testing.T, c Config) {
			assert.Equal(t, 3, c.AliasMinLength)
			assert.Equal(t, 64, c.AliasMaxLength)
		}},
		{name: "alias length zero", ctx: map[string]any{CtxAliasMinLength: 0}, err: "aliasMinLength"},
		{name: "alias length past 100", ctx: map[string]any{CtxAliasMaxLength: "101"}, err: "aliasMaxLength"},
		{name: "not a number", ctx: map[string]any{CtxCodeLength: "seven"}, err: "codeLength"},
		{name: "not a duration", ctx: map[string]any{CtxTombstoneGrace: "30 days"}, err: "tombstoneGrace"},
		{name: "retention CloudWatch refuses", ctx: map[string]any{CtxLogRetentionDays: 10}, err: "logRetentionDays"},
		{name: "region twice", ctx: map[string]any{CtxRegions: "us-east-1,us-east-1"}, err: "twice"},
		{name: "bad schedule", ctx: map[string]any{CtxReclaimSchedule: "hourly"}, err: "reclaimSchedule"},
		{name: "bad boolean", ctx: map[string]any{CtxWAF: "yes please"}, err: "waf"},
		{name: "table class", ctx: map[string]any{CtxLinksTableClass: "GLACIER"}, err: "linksTableClass"},
		{name: "analytics class", ctx: map[string]any{CtxAnalyticsTableClass: "standard"}, err: "analyticsTableClass"},
		{name: "pitr placement", ctx: map[string]any{CtxPITRLinks: "replicas"}, err: "pitrLinks"},
		{name: "reservation pitr placement", ctx: map[string]any{CtxPITRReservations: "witness"},
			err: `pitrReservations: "witness" is not all, primary or off`},
		{name: "projection", ctx: map[string]any{CtxOwnerIndexProjection: "KEYS_ONLY"}, err: "ownerIndexProjection"},
		{name: "log level", ctx: map[string]any{CtxSystemLogLevel: "ERROR"}, err: "systemLogLevel"},
		{name: "shards", ctx: map[string]any{CtxKinesisShards: -1}, err: "kinesisShards"},
		{name: "levers from the command line", ctx: map[string]any{
			CtxLinksTableClass: "STANDARD", CtxPITRLinks: "all", CtxPITRAnalytics: "true", CtxKinesisShards: "12", CtxSystemLogLevel: "INFO",
			CtxPITRReservations: "off",
		}, check: func(t *testing.T, c Config) {
			assert.Equal(t, TableClassStandard, c.LinksTableClass)
			assert.Equal(t, PITRAll, c.PITRLinks)
			assert.Equal(t, PITROff, c.PITRReservations)
			assert.True(t, c.PITRAnalytics)
			assert.Equal(t, 12, c.KinesisShards)
			assert.Equal(t, "INFO", c.SystemLogLevel)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readConfig(tt.ctx)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
		})
	}
}

// TestLeverDefaultsAreTheCostModels: the storage and logging defaults are
// the ones docs/cost-model.md prices as the deployment's defaults, so the
// document and the deployment cannot drift apart.
func TestLeverDefaultsAreTheCostModels(t *testing.T) {
	c, a := DefaultConfig(), costmodel.DefaultAssumptions()
	assert.Equal(t, a.LinksClass, c.LinksTableClass)
	assert.Equal(t, a.AnalyticsClass, c.AnalyticsTableClass)
	assert.Equal(t, a.OwnerProjection, c.OwnerIndexProjection)
	assert.Equal(t, a.PITRAnalytics, c.PITRAnalytics)
	assert.Equal(t, map[string]int{PITRAll: a.Regions, PITRPrimary: 1, PITROff: 0}[c.PITRLinks], a.PITRLinksRegions)
	assert.Equal(t, map[string]int{PITRAll: a.Regions, PITRPrimary: 1, PITROff: 0}[c.PITRReservations], a.ReservationPITRRegions)
	assert.Equal(t, a.PlatformLogsOff, c.SystemLogLevel == "WARN")
	assert.Equal(t, a.KinesisProvisioned, c.KinesisShards > 0)
	assert.Equal(t, a.Regions, len(c.Regions))
}

func TestFunctionEnvIsCheckedByTheFunctionsLoader(t *testing.T) {
	c := DefaultConfig()
	c.CacheTTL = time.Minute // the redirect cache must stay within 30 s
	_, err := functionEnv(c, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SHORTENER_CACHE_TTL")

	c = DefaultConfig()
	c.DomainName, c.CertificateARN = "sho.rt", "arn:aws:acm:us-east-1:1:certificate/x"
	e, err := functionEnv(c, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"SHORTENER_BASE_URL":         "https://sho.rt",
		"SHORTENER_CODE_LENGTH":      "7",
		"SHORTENER_ALIAS_MIN_LENGTH": "3",
		"SHORTENER_ALIAS_MAX_LENGTH": "64",
		"SHORTENER_DEFAULT_TTL":      "43800h0m0s",
		"SHORTENER_TOMBSTONE_GRACE":  "720h0m0s",
		"SHORTENER_EDGE_TTL":         "86400",
		"SHORTENER_CACHE_TTL":        "20s",
		"PRIMARY_REGION":             "us-east-1",
		"SHORTENER_MISS_BUDGET":      "100",
		"SHORTENER_MISS_WINDOW":      "1h0m0s",
	}, e.common)

	c = DefaultConfig()
	c.MissBudget = 0
	_, err = functionEnv(c, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SHORTENER_MISS_BUDGET")
}
