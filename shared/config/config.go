package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/shortcode"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Config is every setting a function may need; each reads what it uses.
type Config struct {
	LinksTable       string // LINKS_TABLE
	IdempotencyTable string // IDEMPOTENCY_TABLE
	// LinkTagsTable is LINK_TAGS_TABLE, the tags table
	// (tableschema.LinkTags): with it, links' tags are indexed for the
	// tag listing and GET /v1/tags. Empty: tags are kept on links only.
	LinkTagsTable string
	// ReservationTable is RESERVATION_TABLE, the MRSC reservation table
	// (linkstore.Reserved): with it, create, manage and reclaim decide
	// codes, versions and Idempotency-Keys there before they write the
	// links table, so every Region can take writes. Empty: one write
	// Region, the links and idempotency tables alone.
	ReservationTable string
	// CountersTable is COUNTERS_TABLE: where the redirect keeps click
	// limits and password attempts (shared/linkcounter), the idempotency
	// table as deployed. Empty: links that need them answer 503.
	CountersTable    string
	BaseURL          string        // SHORTENER_BASE_URL
	ShortDomains     []string      // SHORTENER_SHORT_DOMAINS; the base URL's host is always included
	CodeLength       int           // SHORTENER_CODE_LENGTH
	MaxURLBytes      int           // SHORTENER_MAX_URL_BYTES
	DefaultTTL       time.Duration // SHORTENER_DEFAULT_TTL
	DBTimeout        time.Duration // SHORTENER_DB_TIMEOUT: bound on each DynamoDB call of the API
	RedirectTimeout  time.Duration // SHORTENER_REDIRECT_DB_TIMEOUT: bound on the redirect's lookup
	CacheTTL         time.Duration // SHORTENER_CACHE_TTL: in-process redirect cache
	NegativeCacheTTL time.Duration // SHORTENER_NEGATIVE_CACHE_TTL
	CacheSize        int           // SHORTENER_CACHE_SIZE
	EdgeTTL          int           // SHORTENER_EDGE_TTL: seconds CloudFront keeps a redirect
	TombstoneGrace   time.Duration // SHORTENER_TOMBSTONE_GRACE: how long a dead code is held back
	// EdgeParameter is EDGE_PARAMETER, the SSM parameter in which the edge
	// stack publishes the distribution's ID and domain (shared/edgeinfo):
	// what create and manage invalidate, and the short links' host when
	// SHORTENER_BASE_URL is not set.
	EdgeParameter  string
	KeysTable      string        // KEYS_TABLE: API key hash -> owner (shared/apikey)
	MembersTable   string        // MEMBERS_TABLE: workspaces and their members (shared/workspace)
	KeyCacheTTL    time.Duration // SHORTENER_KEY_CACHE_TTL: how long a function trusts a key's owner and status
	AnalyticsTable string        // ANALYTICS_TABLE: click counters (clicks writes, stats reads)
	// ClickStore is SHORTENER_CLICK_STORE, the analytics table's layout:
	// ClickStorePacked (the default: rollups compacted into segments and
	// bucket-day items, clickstore/packedclicks; see docs/cost-model.md for
	// what it costs) or ClickStoreItems (one item per code and bucket,
	// shared/dynamo, 6.8 WRU a click). The clicks and stats
	// functions must agree, and a table keeps the layout it started with.
	ClickStore string
	// PrimaryRegion is PRIMARY_REGION, the one write Region of the global
	// links table: ttlstream and reclaim write there so that their
	// conditions are checked against the replica every create is checked
	// against (docs/lifecycle.md). Empty: this Region.
	PrimaryRegion  string
	OriginSecretID string // ORIGIN_SECRET_ID: the Secrets Manager secret originauth accepts
	// Webhook are the webhook settings (WEBHOOKS_TABLE, WEBHOOK_QUEUE_URL,
	// WEBHOOK_DLQ_URL, ...: webhook.LoadConfig). With the queue set, the
	// clicks function publishes link.clicked events.
	Webhook webhook.Config
	// InvalidationSettle is SHORTENER_INVALIDATION_SETTLE: how long the API
	// waits after saving a change before it asks the edge to invalidate
	// (see FreshRead).
	InvalidationSettle time.Duration
	// MissesTable is MISSES_TABLE, the Region's miss budgets
	// (shared/missbudget); empty: the redirect counts no misses.
	MissesTable string
	// MissBudget unknown codes per MissWindow a client may ask for before
	// the redirect answers it 429 (SHORTENER_MISS_BUDGET,
	// SHORTENER_MISS_WINDOW).
	MissBudget int
	MissWindow time.Duration
	// EdgeMarksTable is EDGE_MARKS_TABLE, the Region's edge marks
	// (shared/edgemarks), which the redirect writes before an answer with
	// a long edge life leaves; empty: the redirect writes none.
	EdgeMarksTable string
	// EdgeMarksTables is EDGE_MARKS_TABLES, the marks tables of every
	// Region whose redirect serves the edge, by ARN: the management API
	// invalidates a change only when one of them says an edge may hold
	// the link. Empty: it invalidates every change.
	EdgeMarksTables []edgemarks.Table
	// EdgeVersionKeys is EDGE_VERSION_KEYS=true (deployment context
	// edgeVersionKeys): the redirect cache is keyed on link versions in
	// the CloudFront KeyValueStore the edge parameter names, and the
	// management API puts a changed link's new versions there
	// (shared/edgeversion) instead of invalidating. False: it invalidates.
	// With it the reclaim run also sweeps the store's old versions.
	EdgeVersionKeys bool
	// EdgeVersionSweepMargin is SHORTENER_EDGE_VERSION_SWEEP_MARGIN: how
	// long past the edge life (EdgeTTL) a link version stays in the store
	// before the reclaim run's sweep may delete it
	// (edgeversion.Sweeper.Margin; edgeversion.DefaultSweepMargin, an
	// hour, unless set). The deployment leaves it at its default; the
	// local run's tests shorten it.
	EdgeVersionSweepMargin time.Duration

	// AuditTable is AUDIT_TABLE, the audit log (shared/audit) every change
	// of a link, key, member or webhook is recorded in.
	AuditTable string
	// AuditRetentionDays is AUDIT_RETENTION_DAYS: how long DynamoDB keeps
	// an audit entry before TTL deletes it; 0 (unset) keeps entries for
	// ever.
	AuditRetentionDays int
	// AuditArchiveBucket is AUDIT_ARCHIVE_BUCKET: the S3 bucket, with
	// Object Lock, that functions/auditarchive copies the audit log's
	// entries to (deployment context auditArchive); "" without the copy.
	AuditArchiveBucket string

	// AliasMinLength and AliasMaxLength bound a new custom alias's length
	// (SHORTENER_ALIAS_MIN_LENGTH, SHORTENER_ALIAS_MAX_LENGTH; 3 and 64
	// unless set, 1-100 at the widest: link.CheckAliasLengths).
	AliasMinLength int
	AliasMaxLength int
}

// FreshRead is how young the data behind a redirect must be, counted from
// the moment its read from DynamoDB began, for the edge to keep the answer
// for its full TTL. An answer built from older data (an entry of the
// redirect's in-process cache) is kept at the edge no longer than that
// entry stays fresh. The API waits InvalidationSettle, at least
// MinInvalidationSettle, between saving a change and invalidating the
// edge, so an answer read before the change and given the full TTL reaches
// the edge before the invalidation is even sent, and the invalidation
// removes it. docs/lifecycle.md ("How fast a change shows") has the
// argument.
const FreshRead = time.Second

// ChangesShowWithin is the promise docs/api.md makes: after a 2xx PATCH or DELETE,
// every path serves the new state within this long (plus CloudFront's own
// invalidation time on AWS). The redirect's in-process cache, fresh and
// stale together, never keeps an entry longer.
const ChangesShowWithin = 30 * time.Second

// Bounds and default of SHORTENER_INVALIDATION_SETTLE. The least is
// FreshRead plus a second for what a redirect's clock cannot see: the
// answer's way from the function to the edge. Another Region's replica
// lag is not in it: the edge marks' fence refuses long edge lives to data
// older than the change (docs/lifecycle.md, "A replica that lags"). The
// most keeps a PATCH or DELETE well inside the management function's
// timeout.
const (
	MinInvalidationSettle     = FreshRead + time.Second
	DefaultInvalidationSettle = MinInvalidationSettle
	MaxInvalidationSettle     = 10 * time.Second
)

// Layouts of the analytics table (Config.ClickStore).
const (
	ClickStoreItems  = "items"
	ClickStorePacked = "packed"
)

// Getenv reads one variable; os.Getenv in production, a map in tests.
type Getenv func(string) string

// Load reads and checks the configuration.
func Load(getenv Getenv) (Config, error) {
	c := Config{
		LinksTable:         getenv("LINKS_TABLE"),
		IdempotencyTable:   getenv("IDEMPOTENCY_TABLE"),
		LinkTagsTable:      getenv("LINK_TAGS_TABLE"),
		ReservationTable:   getenv("RESERVATION_TABLE"),
		CountersTable:      getenv("COUNTERS_TABLE"),
		KeysTable:          getenv("KEYS_TABLE"),
		MembersTable:       getenv("MEMBERS_TABLE"),
		AnalyticsTable:     getenv("ANALYTICS_TABLE"),
		ClickStore:         getenv("SHORTENER_CLICK_STORE"),
		PrimaryRegion:      getenv("PRIMARY_REGION"),
		OriginSecretID:     getenv("ORIGIN_SECRET_ID"),
		MissesTable:        getenv("MISSES_TABLE"),
		EdgeMarksTable:     getenv("EDGE_MARKS_TABLE"),
		AuditTable:         getenv("AUDIT_TABLE"),
		AuditArchiveBucket: getenv("AUDIT_ARCHIVE_BUCKET"),
		EdgeParameter:      getenv("EDGE_PARAMETER"),
		BaseURL:            strings.TrimSuffix(getenv("SHORTENER_BASE_URL"), "/"),
	}
	r := &reader{getenv: getenv}
	switch c.ClickStore {
	case "":
		c.ClickStore = ClickStorePacked
	case ClickStoreItems, ClickStorePacked:
	default:
		r.fail(fmt.Errorf("SHORTENER_CLICK_STORE: %q is not %s or %s", c.ClickStore, ClickStoreItems, ClickStorePacked))
	}
	wc, err := webhook.LoadConfig(getenv)
	r.fail(err)
	c.Webhook = wc
	r.settings(&c)
	r.errs = append(r.errs, checkRanges(c, getenv)...)
	r.shortDomains(&c)
	return c, errors.Join(r.errs...)
}

// reader reads settings and gathers what is wrong with them, so Load
// reports every bad setting at once.
type reader struct {
	getenv Getenv
	errs   []error
}

// fail records err, if there is one.
func (r *reader) fail(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

// num is the whole number name holds, def when it is unset or bad.
func (r *reader) num(name string, def int) int {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(fmt.Errorf("%s: %q is not a whole number", name, v))
		return def // reported once; the range checks see the default
	}
	return n
}

// dur is the positive duration name holds, def when it is unset.
func (r *reader) dur(name string, def time.Duration) time.Duration {
	v := r.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.fail(fmt.Errorf("%s: %q is not a positive duration such as 30s or 720h", name, v))
	}
	return d
}

// settings reads the numbers, durations and the edge marks tables.
func (r *reader) settings(c *Config) {
	switch v := r.getenv("EDGE_VERSION_KEYS"); v {
	case "", "false":
	case "true":
		c.EdgeVersionKeys = true
	default:
		r.fail(fmt.Errorf("EDGE_VERSION_KEYS: %q is not true or false", v))
	}
	c.CodeLength = r.num("SHORTENER_CODE_LENGTH", shortcode.DefaultLength)
	c.MaxURLBytes = r.num("SHORTENER_MAX_URL_BYTES", link.DefaultMaxURLBytes)
	c.AliasMinLength = r.num("SHORTENER_ALIAS_MIN_LENGTH", link.MinAliasLen)
	c.AliasMaxLength = r.num("SHORTENER_ALIAS_MAX_LENGTH", link.MaxAliasLen)
	c.CacheSize = r.num("SHORTENER_CACHE_SIZE", 50_000)
	c.EdgeTTL = r.num("SHORTENER_EDGE_TTL", 24*60*60)
	c.DefaultTTL = r.dur("SHORTENER_DEFAULT_TTL", link.DefaultTTL)
	c.DBTimeout = r.dur("SHORTENER_DB_TIMEOUT", 2*time.Second)
	c.RedirectTimeout = r.dur("SHORTENER_REDIRECT_DB_TIMEOUT", 500*time.Millisecond)
	c.CacheTTL = r.dur("SHORTENER_CACHE_TTL", 20*time.Second)
	c.NegativeCacheTTL = r.dur("SHORTENER_NEGATIVE_CACHE_TTL", 10*time.Second)
	c.TombstoneGrace = r.dur("SHORTENER_TOMBSTONE_GRACE", link.DefaultTombstoneGrace)
	c.KeyCacheTTL = r.dur("SHORTENER_KEY_CACHE_TTL", apikey.DefaultCacheTTL)
	c.InvalidationSettle = r.dur("SHORTENER_INVALIDATION_SETTLE", DefaultInvalidationSettle)
	c.EdgeVersionSweepMargin = r.dur("SHORTENER_EDGE_VERSION_SWEEP_MARGIN", edgeversion.DefaultSweepMargin)
	c.MissBudget = r.num("SHORTENER_MISS_BUDGET", missbudget.DefaultBudget)
	c.MissWindow = r.dur("SHORTENER_MISS_WINDOW", missbudget.DefaultWindow)
	if c.AuditRetentionDays = r.num("AUDIT_RETENTION_DAYS", 0); c.AuditRetentionDays < 0 {
		r.fail(fmt.Errorf("AUDIT_RETENTION_DAYS: %d is negative; 0 keeps entries for ever", c.AuditRetentionDays))
	}
	var err error
	if c.EdgeMarksTables, err = edgemarks.ParseTables(r.getenv("EDGE_MARKS_TABLES")); err != nil {
		r.fail(fmt.Errorf("EDGE_MARKS_TABLES: %w", err))
	}
}

// checkRanges is what is out of range in c's numbers and durations.
func checkRanges(c Config, getenv Getenv) []error {
	var errs []error
	if c.CodeLength < shortcode.MinLength || c.CodeLength > shortcode.MaxLength {
		errs = append(errs, fmt.Errorf("SHORTENER_CODE_LENGTH: %d is outside %d-%d", c.CodeLength, shortcode.MinLength, shortcode.MaxLength))
	}
	if c.MaxURLBytes < 64 {
		errs = append(errs, fmt.Errorf("SHORTENER_MAX_URL_BYTES: %d is too small to hold a URL", c.MaxURLBytes))
	}
	for _, a := range []struct {
		name string
		n    int
	}{{"SHORTENER_ALIAS_MIN_LENGTH", c.AliasMinLength}, {"SHORTENER_ALIAS_MAX_LENGTH", c.AliasMaxLength}} {
		if a.n < link.AliasSyntaxMinLen || a.n > link.AliasSyntaxMaxLen {
			errs = append(errs, fmt.Errorf("%s: %d is outside %d-%d", a.name, a.n, link.AliasSyntaxMinLen, link.AliasSyntaxMaxLen))
		}
	}
	if c.AliasMinLength > c.AliasMaxLength {
		errs = append(errs, fmt.Errorf("SHORTENER_ALIAS_MIN_LENGTH: %d is more than SHORTENER_ALIAS_MAX_LENGTH %d", c.AliasMinLength, c.AliasMaxLength))
	}
	if c.CacheSize < 1 {
		errs = append(errs, fmt.Errorf("SHORTENER_CACHE_SIZE: %d must be positive", c.CacheSize))
	}
	if c.EdgeTTL < 0 {
		errs = append(errs, fmt.Errorf("SHORTENER_EDGE_TTL: %d must not be negative", c.EdgeTTL))
	}
	if c.DefaultTTL > link.MaxTTL {
		errs = append(errs, fmt.Errorf("SHORTENER_DEFAULT_TTL: %s is longer than 10 years", c.DefaultTTL))
	}
	if c.CacheTTL > ChangesShowWithin {
		// Changes must show within 30 s on every path (docs/lifecycle.md,
		// section 6).
		errs = append(errs, fmt.Errorf("SHORTENER_CACHE_TTL: %s is longer than %s", c.CacheTTL, ChangesShowWithin))
	}
	if c.NegativeCacheTTL < 5*time.Second || c.NegativeCacheTTL > 30*time.Second {
		errs = append(errs, fmt.Errorf("SHORTENER_NEGATIVE_CACHE_TTL: %s is outside 5s-30s", c.NegativeCacheTTL))
	}
	if c.KeyCacheTTL > apikey.MaxCacheTTL {
		// It bounds how long a revoked key keeps working (docs/deploy.md).
		errs = append(errs, fmt.Errorf("SHORTENER_KEY_CACHE_TTL: %s is longer than %s", c.KeyCacheTTL, apikey.MaxCacheTTL))
	}
	if c.InvalidationSettle < MinInvalidationSettle || c.InvalidationSettle > MaxInvalidationSettle {
		// Below the least, an old answer could reach the edge after the
		// invalidation and stay there for a day (docs/lifecycle.md).
		errs = append(errs, fmt.Errorf("SHORTENER_INVALIDATION_SETTLE: %s is outside %s-%s", c.InvalidationSettle, MinInvalidationSettle, MaxInvalidationSettle))
	}
	if c.MissBudget < 1 {
		errs = append(errs, fmt.Errorf("SHORTENER_MISS_BUDGET: %d must be positive", c.MissBudget))
	}
	if c.MissWindow < time.Second || c.MissWindow > 24*time.Hour || c.MissWindow%time.Second != 0 {
		// Windows start at whole seconds from the epoch (the counter's key).
		errs = append(errs, fmt.Errorf("SHORTENER_MISS_WINDOW: %q is not whole seconds within 1s-24h", getenv("SHORTENER_MISS_WINDOW")))
	}
	return errs
}

// shortDomains checks the base URL and gathers the hosts refused as link
// targets: the base URL's and SHORTENER_SHORT_DOMAINS.
func (r *reader) shortDomains(c *Config) {
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		// An origin: no path, query, fragment or user info, since short
		// URLs are this plus "/" and a code.
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" ||
			strings.ContainsAny(c.BaseURL, "?#") || u.User != nil {
			r.fail(fmt.Errorf("SHORTENER_BASE_URL: %q must be an http(s) origin such as https://sho.rt", c.BaseURL))
		} else {
			c.ShortDomains = append(c.ShortDomains, u.Hostname())
		}
	}
	for _, d := range strings.Split(r.getenv("SHORTENER_SHORT_DOMAINS"), ",") {
		if d = strings.TrimSpace(d); d != "" {
			c.ShortDomains = append(c.ShortDomains, d)
		}
	}
}

// Rules are the validation rules the configuration sets.
func (c Config) Rules() link.Rules {
	return link.Rules{MaxURLBytes: c.MaxURLBytes, ShortDomains: c.ShortDomains, DefaultTTL: c.DefaultTTL,
		AliasMinLen: c.AliasMinLength, AliasMaxLen: c.AliasMaxLength}
}

// Require checks that the named settings are present, for a function that
// cannot run without them.
func (c Config) Require(names ...string) error {
	values := map[string]string{"LINKS_TABLE": c.LinksTable, "IDEMPOTENCY_TABLE": c.IdempotencyTable, "RESERVATION_TABLE": c.ReservationTable,
		"SHORTENER_BASE_URL": c.BaseURL, "EDGE_PARAMETER": c.EdgeParameter, "KEYS_TABLE": c.KeysTable,
		"ANALYTICS_TABLE": c.AnalyticsTable, "ORIGIN_SECRET_ID": c.OriginSecretID, "MISSES_TABLE": c.MissesTable,
		"EDGE_MARKS_TABLE": c.EdgeMarksTable, "LINK_TAGS_TABLE": c.LinkTagsTable, "MEMBERS_TABLE": c.MembersTable, "AUDIT_TABLE": c.AuditTable,
		"AUDIT_ARCHIVE_BUCKET": c.AuditArchiveBucket,
		"WEBHOOKS_TABLE":       c.Webhook.Table, "WEBHOOK_QUEUE_URL": c.Webhook.QueueURL, "WEBHOOK_DLQ_URL": c.Webhook.DLQURL}
	var errs []error
	for _, n := range names {
		if values[n] == "" {
			errs = append(errs, fmt.Errorf("%s is not set", n))
		}
	}
	return errors.Join(errs...)
}
