package infra

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/constructs-go/constructs/v10"

	"github.com/shortlink-dev/shortener/infra/auth"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// EdgeRegion is where the CloudFront-scoped resources live: a WAF web ACL
// with CLOUDFRONT scope and the viewer certificate must be in us-east-1.
const EdgeRegion = "us-east-1"

// Context keys. docs/deploy.md lists them with their defaults; cdk.json
// carries the defaults so `cdk synth` shows every knob in one place.
const (
	CtxAppName             = "appName"
	CtxAccount             = "account"
	CtxRegions             = "regions"
	CtxPrimaryRegion       = "primaryRegion"
	CtxFailoverRegion      = "failoverRegion"
	CtxDomainName          = "domainName"
	CtxCertificateARN      = "certificateArn"
	CtxHostedZoneID        = "hostedZoneId"
	CtxHostedZoneName      = "hostedZoneName"
	CtxAPIDomainName       = "apiDomainName"
	CtxCodeLength          = "codeLength"
	CtxDefaultTTL          = "defaultTtl"
	CtxTombstoneGrace      = "tombstoneGrace"
	CtxEdgeTTLSeconds      = "edgeTtlSeconds"
	CtxCacheTTL            = "cacheTtl"
	CtxWAF                 = "waf"
	CtxWAFRateLimit        = "wafRateLimit"
	CtxEdgeVersionKeys     = "edgeVersionKeys"
	CtxMissBudget          = "missBudget"
	CtxMissWindow          = "missWindow"
	CtxAlarmEmail          = "alarmEmail"
	CtxLogRetentionDays    = "logRetentionDays"
	CtxAssetDir            = "assetDir"
	CtxReclaimSchedule     = "reclaimSchedule"
	CtxAPIRateLimit        = "apiRateLimit"
	CtxAPIBurstLimit       = "apiBurstLimit"
	CtxAPIQuotaPerDay      = "apiQuotaPerDay"
	CtxNag                 = "nag"
	CtxOriginSecretVersion = "originSecretVersion"
	CtxRecord              = "record"
	// Storage and logging levers (docs/cost-model.md, "Levers").
	CtxLinksTableClass      = "linksTableClass"
	CtxAnalyticsTableClass  = "analyticsTableClass"
	CtxPITRLinks            = "pitrLinks"
	CtxPITRReservations     = "pitrReservations"
	CtxPITRAnalytics        = "pitrAnalytics"
	CtxOwnerIndexProjection = "ownerIndexProjection"
	CtxSystemLogLevel       = "systemLogLevel"
	CtxKinesisShards        = "kinesisShards"
	// CtxAuditRetentionDays: how long the audit table keeps an entry (TTL);
	// 0, the default, keeps entries for ever and the table has no TTL.
	CtxAuditRetentionDays = "auditRetentionDays"
	// CtxAuditArchive: the audit log's tamper-evident copy in an S3 bucket
	// with Object Lock (docs/audit.md); off by default.
	CtxAuditArchive = "auditArchive"
	// CtxAuditArchiveMode: the bucket's default retention mode,
	// COMPLIANCE (the default) or GOVERNANCE.
	CtxAuditArchiveMode = "auditArchiveMode"
	// CtxAuditArchiveRetentionDays: how long each object is locked.
	CtxAuditArchiveRetentionDays = "auditArchiveRetentionDays"
	// Alias length bounds (docs/deploy.md; link.CheckAliasLengths).
	CtxAliasMinLength = "aliasMinLength"
	CtxAliasMaxLength = "aliasMaxLength"
)

// Table classes and PITR placements the context accepts.
const (
	TableClassStandard   = "STANDARD"
	TableClassStandardIA = "STANDARD_INFREQUENT_ACCESS"
	PITRAll              = "all"     // every replica
	PITRPrimary          = "primary" // the primary Region's replica only
	PITROff              = "off"
)

// Config is everything the app reads from CDK context, resolved and
// checked. The zero value is not useful; use DefaultConfig or
// ConfigFromContext.
type Config struct {
	AppName string // prefix of the stack names; lets one account hold several installs
	Account string // empty: environment-agnostic account (the CLI's credentials decide)

	Regions        []string // every region with a regional stack and a links replica
	PrimaryRegion  string   // data stack, analytics, clicks, reclaim, webhook delivery; /v1 too, the only one without reservations
	FailoverRegion string   // the redirect origin CloudFront fails over to; "" with one region
	WitnessRegion  string   // the reservation table's MRSC witness with two regions (reservations.go)
	NoReservations bool     // -c reservations=false: no reservation table, writes in the primary only

	DomainName     string // custom domain for the distribution, optional
	CertificateARN string // ACM certificate in us-east-1 for DomainName

	// HostedZoneID and HostedZoneName are a Route 53 public hosted zone
	// (both or neither). With one, /v1 reaches every Region's API through
	// APIDomainName, latency records with a health check per Region, and
	// fails over without a redeploy (docs/deploy.md, "Failover").
	HostedZoneID   string
	HostedZoneName string
	APIDomainName  string // "api." + HostedZoneName unless given; "" without a zone

	CodeLength int
	// AliasMinLength and AliasMaxLength bound a new custom alias's length:
	// 3-64 by default, as wide as 1-100 for imports that keep YOURLS's own
	// keywords (docs/deploy.md).
	AliasMinLength int
	AliasMaxLength int
	DefaultTTL     time.Duration
	TombstoneGrace time.Duration
	EdgeTTLSeconds int           // s-maxage the redirect handler sends
	CacheTTL       time.Duration // redirect function's in-process cache

	WAF          bool
	WAFRateLimit int // requests per IP per 5 minutes on redirect paths

	// EdgeVersionKeys keys the redirect cache on link versions in a
	// CloudFront KeyValueStore, which manage writes instead of
	// invalidating; no edge marks are kept (docs/cost-model.md,
	// "Versioned cache keys"). Off by default until its propagation is
	// measured on AWS.
	EdgeVersionKeys bool

	// MissBudget unknown codes per MissWindow a viewer address may ask
	// the redirect for before it answers 429 (shared/missbudget): the
	// enumeration defence that pays only for misses.
	MissBudget int
	MissWindow time.Duration

	AlarmEmail       string
	LogRetentionDays int
	AssetDir         string // where `make build` leaves <fn>.zip
	ReclaimSchedule  string // EventBridge Scheduler expression

	APIRateLimit   float64 // per API key, requests per second
	APIBurstLimit  float64
	APIQuotaPerDay float64

	Nag bool // run cdk-nag AwsSolutionsChecks during synthesis

	// OriginSecretVersion is the origin secret's version CloudFront sends
	// (a rotation names the new one, docs/deploy.md); "" is AWSCURRENT as
	// of the edge stack's last update.
	OriginSecretVersion string

	// Deployments are the recorded installations (DeploymentFile, read by
	// the app's main) the configuration must not destroy; Record (context
	// record=true) writes this configuration's into them after synthesis.
	Deployments Deployments
	Record      bool

	// Storage, logging and stream levers, each priced in docs/cost-model.md.
	LinksTableClass      string // links (and its indexes): Standard-IA, storage dominates
	AnalyticsTableClass  string // analytics: Standard while writes dominate
	PITRLinks            string // PITRAll, PITRPrimary (one replica is enough to restore from) or PITROff
	PITRReservations     string // the reservation table's, the same three placements
	PITRAnalytics        bool
	OwnerIndexProjection string // INCLUDE (what a listing reads) or ALL (installations recorded before it)
	SystemLogLevel       string // the functions' Lambda system log level: WARN drops START/END/REPORT
	KinesisShards        int    // 0: the click stream on demand; N: provisioned with N shards
	AuditRetentionDays   int    // 0: audit entries are kept for ever (docs/audit.md)

	// AuditArchive copies the audit log to an S3 bucket with Object Lock
	// (functions/auditarchive; docs/audit.md), each object locked in
	// AuditArchiveMode for AuditArchiveRetentionDays.
	AuditArchive              bool
	AuditArchiveMode          string
	AuditArchiveRetentionDays int

	// Auth is the sign-in (context auth=true; infra/auth,
	// docs/identity.md); nil: none.
	Auth *auth.Options
}

// DefaultConfig is the configuration with no context given.
func DefaultConfig() Config {
	return Config{
		AppName:        "Shortener",
		Regions:        []string{"us-east-1", "us-west-2"},
		PrimaryRegion:  "us-east-1",
		FailoverRegion: "us-west-2",
		CodeLength:     shortcode.DefaultLength,
		AliasMinLength: link.MinAliasLen,
		AliasMaxLength: link.MaxAliasLen,
		DefaultTTL:     link.DefaultTTL,
		TombstoneGrace: 30 * 24 * time.Hour,
		EdgeTTLSeconds: 24 * 60 * 60,
		CacheTTL:       20 * time.Second,
		// Off: WAF bills every viewer request, the miss budget only misses
		// (docs/codes.md; docs/cost-model.md).
		WAF:              false,
		WAFRateLimit:     1000,
		MissBudget:       missbudget.DefaultBudget,
		MissWindow:       missbudget.DefaultWindow,
		LogRetentionDays: 30,
		AssetDir:         "build",
		ReclaimSchedule:  "rate(1 hour)",
		APIRateLimit:     100,
		APIBurstLimit:    200,
		APIQuotaPerDay:   1_000_000,
		Nag:              true,

		LinksTableClass:      TableClassStandardIA,
		AnalyticsTableClass:  TableClassStandard,
		PITRLinks:            PITRPrimary,
		PITRReservations:     PITRPrimary,
		PITRAnalytics:        false,
		OwnerIndexProjection: "INCLUDE",
		SystemLogLevel:       "WARN",

		AuditArchive:              false,
		AuditArchiveMode:          ArchiveCompliance,
		AuditArchiveRetentionDays: 2555, // 7 years
	}
}

// Object Lock retention modes of the audit archive
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html#object-lock-retention-modes).
const (
	ArchiveCompliance = "COMPLIANCE"
	ArchiveGovernance = "GOVERNANCE"
)

// MaxAuditArchiveRetentionDays bounds auditArchiveRetentionDays: S3 takes a
// default retention of up to 100 years
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DefaultRetention.html).
const MaxAuditArchiveRetentionDays = 36500

// ConfigFromContext reads the context of node (the App) over the defaults.
// Values given on the command line (-c key=value) arrive as strings, values
// in cdk.json as JSON; both are accepted.
func ConfigFromContext(node constructs.Node) (Config, error) {
	return configFrom(ctxReader{get: func(k string) any { return node.TryGetContext(&k) }}, DefaultConfig())
}

func configFrom(r ctxReader, c Config) (Config, error) {
	c.AppName = r.str(CtxAppName, c.AppName)
	c.Account = r.str(CtxAccount, c.Account)
	c.Regions = r.list(CtxRegions, c.Regions)
	c.PrimaryRegion = r.str(CtxPrimaryRegion, "")
	if c.PrimaryRegion == "" && len(c.Regions) > 0 {
		c.PrimaryRegion = c.Regions[0]
	}
	// Absent: the first other region. Given as "": no failover origin.
	c.FailoverRegion = r.str(CtxFailoverRegion, firstOther(c.Regions, c.PrimaryRegion))
	c.WitnessRegion = r.str(CtxWitnessRegion, "")
	c.NoReservations = !r.boolean(CtxReservations, true)
	c.DomainName = r.str(CtxDomainName, "")
	c.CertificateARN = r.str(CtxCertificateARN, "")
	c.HostedZoneID = r.str(CtxHostedZoneID, "")
	c.HostedZoneName = strings.TrimSuffix(r.str(CtxHostedZoneName, ""), ".")
	c.APIDomainName = strings.TrimSuffix(r.str(CtxAPIDomainName, ""), ".")
	if c.APIDomainName == "" && c.HostedZoneName != "" {
		c.APIDomainName = "api." + c.HostedZoneName
	}
	for _, gone := range []string{"distributionId", "distributionDomainName"} {
		if r.str(gone, "") != "" {
			// The second deploy pass is gone: the edge stack publishes
			// both values to the functions itself.
			r.errs = append(r.errs, fmt.Errorf("%s: no longer used (the edge stack tells the functions; docs/deploy.md step 4): remove it from the context", gone))
		}
	}
	c.CodeLength = r.integer(CtxCodeLength, c.CodeLength)
	c.AliasMinLength = r.integer(CtxAliasMinLength, c.AliasMinLength)
	c.AliasMaxLength = r.integer(CtxAliasMaxLength, c.AliasMaxLength)
	c.DefaultTTL = r.duration(CtxDefaultTTL, c.DefaultTTL)
	c.TombstoneGrace = r.duration(CtxTombstoneGrace, c.TombstoneGrace)
	c.EdgeTTLSeconds = r.integer(CtxEdgeTTLSeconds, c.EdgeTTLSeconds)
	c.CacheTTL = r.duration(CtxCacheTTL, c.CacheTTL)
	c.WAF = r.boolean(CtxWAF, c.WAF)
	c.WAFRateLimit = r.integer(CtxWAFRateLimit, c.WAFRateLimit)
	c.EdgeVersionKeys = r.boolean(CtxEdgeVersionKeys, c.EdgeVersionKeys)
	c.MissBudget = r.integer(CtxMissBudget, c.MissBudget)
	c.MissWindow = r.duration(CtxMissWindow, c.MissWindow)
	c.AlarmEmail = r.str(CtxAlarmEmail, "")
	c.LogRetentionDays = r.integer(CtxLogRetentionDays, c.LogRetentionDays)
	c.AssetDir = r.str(CtxAssetDir, c.AssetDir)
	c.ReclaimSchedule = r.str(CtxReclaimSchedule, c.ReclaimSchedule)
	c.APIRateLimit = float64(r.integer(CtxAPIRateLimit, int(c.APIRateLimit)))
	c.APIBurstLimit = float64(r.integer(CtxAPIBurstLimit, int(c.APIBurstLimit)))
	c.APIQuotaPerDay = float64(r.integer(CtxAPIQuotaPerDay, int(c.APIQuotaPerDay)))
	c.Nag = r.boolean(CtxNag, c.Nag)
	c.OriginSecretVersion = r.str(CtxOriginSecretVersion, "")
	c.Record = r.boolean(CtxRecord, false)
	c.LinksTableClass = r.str(CtxLinksTableClass, c.LinksTableClass)
	c.AnalyticsTableClass = r.str(CtxAnalyticsTableClass, c.AnalyticsTableClass)
	c.PITRLinks = r.str(CtxPITRLinks, c.PITRLinks)
	c.PITRReservations = r.str(CtxPITRReservations, c.PITRReservations)
	c.PITRAnalytics = r.boolean(CtxPITRAnalytics, c.PITRAnalytics)
	c.OwnerIndexProjection = r.str(CtxOwnerIndexProjection, c.OwnerIndexProjection)
	c.SystemLogLevel = r.str(CtxSystemLogLevel, c.SystemLogLevel)
	c.KinesisShards = r.integer(CtxKinesisShards, c.KinesisShards)
	c.AuditRetentionDays = r.integer(CtxAuditRetentionDays, c.AuditRetentionDays)
	c.AuditArchive = r.boolean(CtxAuditArchive, c.AuditArchive)
	c.AuditArchiveMode = strings.ToUpper(r.str(CtxAuditArchiveMode, c.AuditArchiveMode))
	c.AuditArchiveRetentionDays = r.integer(CtxAuditArchiveRetentionDays, c.AuditArchiveRetentionDays)
	c.Auth = readAuth(&r, c)
	if err := errors.Join(r.errs...); err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

func firstOther(regions []string, primary string) string {
	for _, r := range regions {
		if r != primary {
			return r
		}
	}
	return ""
}

// Validate checks the configuration as a whole. The function settings are
// checked again, by the functions' own loader, when the stacks build their
// environments (see functionEnv), so a value the handlers would refuse
// fails the synthesis instead of the cold start.
func (c Config) Validate() error {
	var errs []error
	if c.AppName == "" {
		errs = append(errs, errors.New("appName: empty"))
	}
	if len(c.Regions) == 0 {
		errs = append(errs, errors.New("regions: at least one region is needed"))
	}
	seen := map[string]bool{}
	for _, r := range c.Regions {
		if r == "" || strings.ContainsAny(r, " ,") {
			errs = append(errs, fmt.Errorf("regions: %q is not a region name", r))
		}
		if seen[r] {
			errs = append(errs, fmt.Errorf("regions: %s listed twice", r))
		}
		seen[r] = true
	}
	if c.AuditRetentionDays < 0 {
		errs = append(errs, fmt.Errorf("auditRetentionDays: %d is negative; 0 keeps audit entries for ever", c.AuditRetentionDays))
	}
	if c.AuditArchiveMode != ArchiveCompliance && c.AuditArchiveMode != ArchiveGovernance {
		errs = append(errs, fmt.Errorf("auditArchiveMode: %q is not %s or %s", c.AuditArchiveMode, ArchiveCompliance, ArchiveGovernance))
	}
	if c.AuditArchiveRetentionDays < 1 || c.AuditArchiveRetentionDays > MaxAuditArchiveRetentionDays {
		errs = append(errs, fmt.Errorf("auditArchiveRetentionDays: %d is outside 1-%d (days an archived audit object is locked)",
			c.AuditArchiveRetentionDays, MaxAuditArchiveRetentionDays))
	}
	if !slices.Contains(c.Regions, c.PrimaryRegion) {
		errs = append(errs, fmt.Errorf("primaryRegion: %q is not one of regions %v", c.PrimaryRegion, c.Regions))
	}
	if c.FailoverRegion != "" && (c.FailoverRegion == c.PrimaryRegion || !slices.Contains(c.Regions, c.FailoverRegion)) {
		errs = append(errs, fmt.Errorf("failoverRegion: %q must be one of regions %v other than the primary", c.FailoverRegion, c.Regions))
	}
	if _, err := c.Reservation(); err != nil {
		errs = append(errs, err)
	}
	if (c.DomainName == "") != (c.CertificateARN == "") {
		errs = append(errs, errors.New("domainName and certificateArn: give both or neither"))
	}
	if c.CertificateARN != "" && !strings.HasPrefix(c.CertificateARN, "arn:aws:acm:"+EdgeRegion+":") {
		errs = append(errs, fmt.Errorf("certificateArn: CloudFront needs an ACM certificate in %s, got %q", EdgeRegion, c.CertificateARN))
	}
	if (c.HostedZoneID == "") != (c.HostedZoneName == "") {
		errs = append(errs, errors.New("hostedZoneId and hostedZoneName: give both or neither"))
	}
	if c.APIDomainName != "" && (c.HostedZoneName == "" || !strings.HasSuffix(c.APIDomainName, "."+c.HostedZoneName)) {
		errs = append(errs, fmt.Errorf("apiDomainName: %q must be a name inside hostedZoneName %q", c.APIDomainName, c.HostedZoneName))
	}
	if c.APIDomainName != "" && c.APIDomainName == c.DomainName {
		errs = append(errs, fmt.Errorf("apiDomainName: %q is the distribution's domain; the regional API needs a name of its own", c.APIDomainName))
	}
	if c.CodeLength < shortcode.MinLength || c.CodeLength > shortcode.MaxLength {
		errs = append(errs, fmt.Errorf("codeLength: %d is outside %d-%d", c.CodeLength, shortcode.MinLength, shortcode.MaxLength))
	}
	if err := link.CheckAliasLengths(c.AliasMinLength, c.AliasMaxLength); err != nil {
		errs = append(errs, fmt.Errorf("aliasMinLength, aliasMaxLength: %w", err))
	}
	if c.TombstoneGrace <= 0 {
		errs = append(errs, errors.New("tombstoneGrace: must be positive"))
	}
	if c.EdgeTTLSeconds < 0 || c.EdgeTTLSeconds > maxEdgeTTLSeconds {
		errs = append(errs, fmt.Errorf("edgeTtlSeconds: %d is outside 0-%d", c.EdgeTTLSeconds, maxEdgeTTLSeconds))
	}
	if c.WAFRateLimit < 10 || c.WAFRateLimit > 2_000_000_000 {
		// WAF's own bounds for a rate-based rule's limit.
		errs = append(errs, fmt.Errorf("wafRateLimit: %d is outside 10-2000000000", c.WAFRateLimit))
	}
	if !slices.Contains(logRetentionDays, c.LogRetentionDays) {
		errs = append(errs, fmt.Errorf("logRetentionDays: %d is not one CloudWatch Logs accepts %v", c.LogRetentionDays, logRetentionDays))
	}
	if c.AssetDir == "" {
		errs = append(errs, errors.New("assetDir: empty"))
	}
	if !strings.HasPrefix(c.ReclaimSchedule, "rate(") && !strings.HasPrefix(c.ReclaimSchedule, "cron(") {
		errs = append(errs, fmt.Errorf("reclaimSchedule: %q is not a rate(...) or cron(...) expression", c.ReclaimSchedule))
	}
	if c.APIRateLimit <= 0 || c.APIBurstLimit <= 0 || c.APIQuotaPerDay <= 0 {
		errs = append(errs, errors.New("apiRateLimit, apiBurstLimit, apiQuotaPerDay: must be positive"))
	}
	if c.AlarmEmail != "" && !strings.Contains(c.AlarmEmail, "@") {
		errs = append(errs, fmt.Errorf("alarmEmail: %q is not an e-mail address", c.AlarmEmail))
	}
	for key, v := range map[string]string{CtxLinksTableClass: c.LinksTableClass, CtxAnalyticsTableClass: c.AnalyticsTableClass} {
		if v != TableClassStandard && v != TableClassStandardIA {
			errs = append(errs, fmt.Errorf("%s: %q is not %s or %s", key, v, TableClassStandard, TableClassStandardIA))
		}
	}
	for _, p := range [][2]string{{CtxPITRLinks, c.PITRLinks}, {CtxPITRReservations, c.PITRReservations}} {
		if !slices.Contains([]string{PITRAll, PITRPrimary, PITROff}, p[1]) {
			errs = append(errs, fmt.Errorf("%s: %q is not all, primary or off", p[0], p[1]))
		}
	}
	if c.OwnerIndexProjection != "INCLUDE" && c.OwnerIndexProjection != "ALL" {
		errs = append(errs, fmt.Errorf("ownerIndexProjection: %q is not INCLUDE or ALL", c.OwnerIndexProjection))
	}
	if !slices.Contains([]string{"DEBUG", "INFO", "WARN"}, c.SystemLogLevel) {
		errs = append(errs, fmt.Errorf("systemLogLevel: %q is not DEBUG, INFO or WARN", c.SystemLogLevel))
	}
	if c.KinesisShards < 0 {
		errs = append(errs, fmt.Errorf("kinesisShards: %d is negative", c.KinesisShards))
	}
	if c.Auth != nil {
		if err := c.Auth.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// maxEdgeTTLSeconds is the redirect cache policy's maximum TTL (one year).
const maxEdgeTTLSeconds = 365 * 24 * 60 * 60

// logRetentionDays are the values CloudWatch Logs accepts (0 is not one:
// "never expire" is refused here on purpose).
var logRetentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

// SecondaryRegions are the regions other than the primary.
func (c Config) SecondaryRegions() []string {
	var out []string
	for _, r := range c.Regions {
		if r != c.PrimaryRegion {
			out = append(out, r)
		}
	}
	return out
}

// BaseURL is the public origin of the short links when it is known at
// synthesis: the custom domain, or "" (the functions then learn the
// distribution's own domain from EdgeParameterName).
func (c Config) BaseURL() string {
	if c.DomainName != "" {
		return "https://" + c.DomainName
	}
	return ""
}

// EdgeParameterName is the SSM parameter the edge stack publishes the
// distribution's ID and domain in, in every Region (shared/edgeinfo). A
// fixed name rather than a reference: the functions that read it are in
// stacks the edge stack depends on.
func (c Config) EdgeParameterName() string { return "/" + c.AppName + "/edge" }

// EdgeMarksTableName is every Region's edge marks table's name, the same
// in each (tables.NewEdgeMarks).
func (c Config) EdgeMarksTableName() string { return c.AppName + "-edge-marks" }

// ctxReader converts context values and collects the conversion errors.
type ctxReader struct {
	get  func(string) any
	errs []error
}

func (r *ctxReader) str(key, def string) string {
	switch v := r.get(key).(type) {
	case nil:
		return def
	case string:
		return strings.TrimSpace(v)
	default:
		r.errs = append(r.errs, fmt.Errorf("%s: want a string, got %v", key, v))
		return def
	}
}

func (r *ctxReader) list(key string, def []string) []string {
	var raw []any
	switch v := r.get(key).(type) {
	case nil:
		return def
	case []any:
		raw = v
	case string:
		// -c regions=us-east-1,eu-west-1 or -c 'regions=["us-east-1"]'
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			if err := json.Unmarshal([]byte(v), &raw); err != nil {
				r.errs = append(r.errs, fmt.Errorf("%s: %w", key, err))
				return def
			}
			break
		}
		for _, s := range strings.Split(v, ",") {
			raw = append(raw, s)
		}
	default:
		r.errs = append(r.errs, fmt.Errorf("%s: want a list of strings, got %v", key, v))
		return def
	}
	out := make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			r.errs = append(r.errs, fmt.Errorf("%s: %v is not a string", key, e))
			continue
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// integer reads key as a whole number, from JSON or a string.
func (r *ctxReader) integer(key string, def int) int {
	return scalar(r, key, def, "a whole number", "a number", strconv.Atoi, func(v any) (int, bool) {
		f, ok := v.(float64)
		if ok && f != float64(int(f)) {
			r.errs = append(r.errs, fmt.Errorf("%s: %v is not a whole number", key, v))
		}
		return int(f), ok
	})
}

// boolean reads key as true or false, from JSON or a string.
func (r *ctxReader) boolean(key string, def bool) bool {
	return scalar(r, key, def, "true or false", "true or false", strconv.ParseBool, func(v any) (bool, bool) {
		b, ok := v.(bool)
		return b, ok
	})
}

// scalar reads key as a T: a JSON value fromJSON takes, or a string
// parse reads (context from the command line arrives as one). Absent, it is
// def; anything else is def and an error saying it is not notA, or that
// want was wanted.
func scalar[T any](r *ctxReader, key string, def T, notA, want string, parse func(string) (T, error), fromJSON func(any) (T, bool)) T {
	switch v := r.get(key).(type) {
	case nil:
		return def
	case string:
		x, err := parse(strings.TrimSpace(v))
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %q is not %s", key, v, notA))
			return def
		}
		return x
	default:
		if x, ok := fromJSON(v); ok {
			return x
		}
		r.errs = append(r.errs, fmt.Errorf("%s: want %s, got %v", key, want, v))
		return def
	}
}

func (r *ctxReader) duration(key string, def time.Duration) time.Duration {
	s := r.str(key, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		r.errs = append(r.errs, fmt.Errorf("%s: %q is not a positive Go duration such as 720h", key, s))
		return def
	}
	return d
}
