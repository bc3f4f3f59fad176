package costmodel

import (
	"fmt"
	"math"
	"strings"
)

// Price is a unit price and where it comes from.
type Price struct {
	USD    float64
	Per    string // the unit, for the document
	Source string // "S31", "UNCONFIRMED", ...
}

// Prices used by the model (us-east-1, first tier unless stated).
type Prices struct {
	CloudFrontHTTPSPer10k  Price // requests
	CloudFrontGBOut        Price // data transfer out, first 10 TB tier
	InvalidationPath       Price // beyond the free paths
	InvalidationFreePaths  float64
	RealtimeLogPerMillion  Price // log lines
	KinesisStreamHour      Price // on-demand
	KinesisIngestGB        Price // on-demand, each record rounded up to 1 KB (S45)
	KinesisRetrieveGB      Price // on-demand
	KinesisShardHour       Price // provisioned
	KinesisPUTPerMillion   Price // provisioned, 25 KB PUT payload units
	HTTPAPIPerMillion      Price // first 300 M
	HTTPAPIPerMillionOver  Price // beyond 300 M
	RESTPerMillion         Price // first 333 M
	RESTPerMillionNext667M Price // the next 667 M
	RESTPerMillionNext19B  Price // the next 19 B
	RESTPerMillionOver20B  Price // beyond 20 B
	LambdaPerMillion       Price
	LambdaGBSecond         Price // arm64
	DynamoRRUPerMillion    Price
	DynamoWRUPerMillion    Price // replicated WRU costs the same (S5)
	DynamoStorageGBMonth   Price
	DynamoIAStorageGBMonth Price // Standard-IA table class
	DynamoIARequestFactor  Price // Standard-IA reads and writes cost this many times Standard's
	DynamoPITRGBMonth      Price
	StepFunctionsPer1000   Price // Standard state transitions
	CloudWatchLogsGB       Price // ingestion
	WAFPerMillion          Price
	WAFMonthlyFixed        Price // one web ACL with one rule
	CloudFrontFunctions    Price // CloudFront Functions invocations
	SQSPerMillion          Price // standard queue requests

	// Options beside the list prices: priced apart by OptionTable, never
	// in the tables and the headline.
	SavingsBundleDiscount    Price // CloudFront Security Savings Bundle: share of CloudFront charges saved
	SavingsBundleWAFCredit   Price // its AWS WAF credits, as a share of the monthly commitment
	KinesisAdvantageDiscount Price // On-demand Advantage: ingest and retrieval below On-demand Standard's
	KinesisAdvantageMinMiBps Price // On-demand Advantage: MiB/s of ingest, and of retrieval, billed at least
}

// PricesRead is the date the prices were read from the pages docs/sources.md lists.
const PricesRead = "2026-12-02"

// DefaultPrices are the list prices the document uses. Source "S.." is a
// public page in docs/sources.md; a "(2nd)" in the unit says no AWS page
// we have states the figure, only second-hand sources do; "(derived)"
// says it is computed from figures AWS pages state, not stated itself.
func DefaultPrices() Prices {
	return Prices{
		CloudFrontHTTPSPer10k:  Price{0.0100, "10,000 HTTPS requests (US) (2nd)", "S31"},
		CloudFrontGBOut:        Price{0.085, "GB out (US/EU, first 10 TB; applied to all volume)", "S30"},
		InvalidationPath:       Price{0.005, "invalidation path beyond the first 1,000 a month", "S25"},
		InvalidationFreePaths:  1000,
		RealtimeLogPerMillion:  Price{0.01, "1 M log lines", "S19"},
		KinesisStreamHour:      Price{0.04, "on-demand stream-hour (2nd)", "S66"},
		KinesisIngestGB:        Price{0.08, "GB written, on demand (records rounded up to 1 KB, S45) (2nd)", "S66"},
		KinesisRetrieveGB:      Price{0.04, "GB read, on demand (2nd)", "S66"},
		KinesisShardHour:       Price{0.015, "provisioned shard-hour (2nd)", "S66"},
		KinesisPUTPerMillion:   Price{0.014, "1 M PUT payload units of 25 KB, provisioned (2nd)", "S66"},
		HTTPAPIPerMillion:      Price{1.00, "1 M HTTP API requests (first 300 M)", "S34b"},
		HTTPAPIPerMillionOver:  Price{0.90, "1 M HTTP API requests (over 300 M)", "S34b"},
		RESTPerMillion:         Price{3.50, "1 M REST API requests (first 333 M)", "S34b"},
		RESTPerMillionNext667M: Price{2.80, "1 M REST API requests (next 667 M)", "S34b"},
		RESTPerMillionNext19B:  Price{2.38, "1 M REST API requests (next 19 B)", "S34b"},
		RESTPerMillionOver20B:  Price{1.51, "1 M REST API requests (over 20 B)", "S34b"},
		LambdaPerMillion:       Price{0.20, "1 M Lambda requests", "S64"},
		LambdaGBSecond:         Price{0.0000133334, "GB-second, arm64: 20 % below x86's (S64) (derived)", "S65"},
		DynamoRRUPerMillion:    Price{0.125, "1 M read request units, on demand (2nd)", "S41"},
		DynamoWRUPerMillion:    Price{0.625, "1 M write request units (and replicated WRU, S5), on demand (2nd)", "S41"},
		DynamoStorageGBMonth:   Price{0.25, "GB-month of table storage, Standard class (2nd)", "S57"},
		DynamoIAStorageGBMonth: Price{0.10, "GB-month, Standard-IA class: 60 % less than Standard's $0.25 (2nd)", "S60"},
		DynamoIARequestFactor:  Price{1.25, "Standard-IA reads and writes, times Standard's", "S60"},
		DynamoPITRGBMonth:      Price{0.20, "GB-month of PITR (2nd)", "S44"},
		StepFunctionsPer1000:   Price{0.025, "1,000 Standard state transitions", "S46"},
		CloudWatchLogsGB:       Price{0.50, "GB of CloudWatch Logs ingested (2nd)", "S57"},
		WAFPerMillion:          Price{0.60, "1 M requests inspected by WAF", "S67"},
		WAFMonthlyFixed:        Price{6.00, "web ACL ($5) + one rule ($1) per month", "S67"},
		CloudFrontFunctions:    Price{0.10, "1 M CloudFront Functions invocations (2nd)", "S31"},
		SQSPerMillion:          Price{0.40, "1 M SQS standard requests (64 KB each)", "S61"},

		SavingsBundleDiscount:    Price{0.30, "option: share of CloudFront charges saved by a 1-year Security Savings Bundle sized to them", "S62"},
		SavingsBundleWAFCredit:   Price{0.10, "option: the bundle's AWS WAF credits, share of its monthly commitment", "S62"},
		KinesisAdvantageDiscount: Price{0.60, "option: Kinesis On-demand Advantage's ingest and retrieval below On-demand Standard's (us-east-1)", "S63"},
		KinesisAdvantageMinMiBps: Price{25, "option: MiB/s of ingest, and of retrieval, On-demand Advantage bills at least", "S63"},
	}
}

// Load is a month of traffic.
type Load struct {
	Name      string
	Redirects float64 // viewer requests for /{code}
	Creates   float64 // POST /v1/links
}

// SeedLoad is the seeds' month: 10 B redirects, 100 M creates.
var SeedLoad = Load{Name: "seed", Redirects: 10e9, Creates: 100e6}

// Times scales a load.
func (l Load) Times(k float64, name string) Load {
	return Load{Name: name, Redirects: l.Redirects * k, Creates: l.Creates * k}
}

// Phase is how long the service has been running at a load: it decides
// how many links are live, whether they expire yet and how much click
// history is kept.
type Phase struct {
	Name   string
	Months float64 // months at this load
}

// The phases the document prices: the twelfth month (1.2 B live links at
// the seed load, none expired yet) and the steady state after the default
// 5-year TTL (6 B live links, as many expiring a month as are created).
var (
	Year1  = Phase{"Year 1", 12}
	Year5  = Phase{"Year 5", 60}
	Phases = []Phase{Year1, Year5}
)

// Table classes, as DynamoDB spells them.
const (
	Standard   = "STANDARD"
	StandardIA = "STANDARD_INFREQUENT_ACCESS"
)

// Projections of the by-owner index, as DynamoDB spells them.
const (
	ProjectAll     = "ALL"
	ProjectInclude = "INCLUDE"
	ProjectKeys    = "KEYS_ONLY"
)

// Assumptions are the model's inputs that are not prices, load or
// measured figures (those are M, from inputs.go).
type Assumptions struct {
	M Measured

	Regions int // regional stacks (links replicas)

	APICallsPerCreate float64 // /v1 requests per create (the POST plus reads, edits, stats)
	RedirectRespBytes float64 // bytes CloudFront sends per redirect (status, Location, headers)
	APIRespBytes      float64
	LogRecordBytes    float64 // one real-time log record: Soak's, measured, plus ViewerHeaderBytes
	// ViewerHeaderBytes is what a browser's User-Agent and Referer add to a
	// record over the soak client's (a Go User-Agent, no Referer): an
	// assumption, not measured.
	ViewerHeaderBytes float64
	// StatsPerCreate are the stats answers a month per create (within
	// APICallsPerCreate), each reading M.StatsRRU.
	StatsPerCreate     float64
	InProcessCacheHits float64 // share of origin redirects the function answers from memory

	RedirectMemGB, RedirectMs float64
	APIMemGB, APIMs           float64 // create, manage, stats
	ClicksMemGB, ClicksMs     float64 // per invocation
	ClicksBatch               float64 // records per clicks invocation
	ReclaimMemGB, ReclaimMs   float64 // per reclaim invocation
	ReclaimPerInvocation      float64

	IdempotentShare float64 // creates with an Idempotency-Key (a two-item transaction)
	ItemKB          float64 // a link item, rounded up to whole KB for writes

	// CloudWatch Logs per Lambda invocation (START, END, REPORT lines) and
	// per /v1 request (access log).
	PlatformLogBytes float64
	AccessLogBytes   float64
	// PlatformLogsOff: the functions' system log level is WARN (context
	// systemLogLevel), so Lambda writes no START, END and REPORT lines.
	PlatformLogsOff bool
	AccessLogs      bool // the /v1 stage's access log (always on today)

	// Storage. Live links are creates x the months the phase has run,
	// capped at MonthsOfLinksKept (the default TTL).
	MonthsOfLinksKept float64
	StoredItemBytes   float64 // link item plus DynamoDB's per-item overhead
	OwnerProjection   string  // by-owner index (context ownerIndexProjection)
	// OwnerAllIndex is the by-owner-all index (ALL projection) listings
	// read titles and tags from, built beside by-owner because DynamoDB
	// cannot change an index's projection in place.
	OwnerAllIndex bool
	// AuditLog is the audit log (docs/audit.md): an entry per change,
	// AuditEntryBytes each (an estimate: 300-600 bytes for a plain link,
	// DynamoDB's overhead included), kept for ever unless
	// auditRetentionDays is set, in a Standard-IA global table with PITR
	// on the primary's replica.
	AuditLog        bool
	AuditEntryBytes float64
	// AuditRetentionMonths bounds the entries kept (0: for ever).
	AuditRetentionMonths float64
	ExpiringIndexBytes   float64 // an expiring-links entry (keys, owner, overhead)
	LinksClass           string  // context linksTableClass
	AnalyticsClass       string  // context analyticsTableClass
	PITRLinksRegions     int     // links replicas with PITR (context pitrLinks: primary = 1)
	PITRAnalytics        bool    // context pitrAnalytics
	// Click history kept, months (context analyticsHourRetention,
	// analyticsDayRetention): hourly items, daily items.
	HourRetentionMonths, DayRetentionMonths float64

	// Kinesis: provisioned (context kinesisShards > 0) or on demand. A
	// provisioned stream is sized for the peak: the average record rate x
	// KinesisPeakFactor, 1,000 records/s per shard.
	KinesisProvisioned bool
	KinesisPeakFactor  float64

	// Enumeration defence: WAF's rate rule on every viewer request, or the
	// miss-only defence (a counter per unknown-code miss). With WAF off, a
	// CloudFront Function on the redirect behaviour refuses percent-encoded
	// paths as the web ACL would (infra/edge, CanonicalPathFunctionCode):
	// one invocation per redirect viewer request.
	WAF              bool
	MissOnlyDefence  bool
	UnknownMissShare float64 // share of origin misses that name no link

	// Decided clicks (redirect rules: password, click limit, rules,
	// targets) are answered no-store, so every click of such a link
	// reaches the origin. DecidedClickShare is their share of all clicks;
	// DecidedCounterWRU the counters table's writes per decided click
	// (click limits and password attempts; 1 WRU each, measured).
	DecidedClickShare float64
	DecidedCounterWRU float64

	// Reservations: the MRSC reservation table (context reservations,
	// default on with regions of one MRSC set) in front of every create,
	// edit, delete and release, in every replica (the witness bills
	// nothing, S5). ReservationItemBytes is one stored reservation.
	Reservations         bool
	ReservationItemBytes float64
	// ReservationPITRRegions is how many reservation replicas keep PITR
	// (context pitrReservations: all = Regions, primary = 1, off = 0).
	ReservationPITRRegions int

	// Invalidations. Creates with a custom alias invalidate its path when
	// InvalidateNewAliases (today; the default leaves a new alias's cached
	// 404 to its 10 s edge lifetime); every edit and delete invalidates
	// its paths, or with EdgeMarks only when an edge may hold the link.
	AliasShare           float64
	InvalidateNewAliases bool
	ChangesPerCreate     float64 // edits and deletes per create
	PathsPerChange       float64

	// Edge marks: the redirect origin writes a mark (a regional table, no
	// replica, expired by TTL for free, S6) before it answers a fresh
	// read's long-lived 302; after an edit or delete, manage reads the
	// marks (one strongly consistent GetItem per Region) and invalidates
	// only if an edge may hold the link. The units are M's
	// (MarkWritesPerOriginRead, MarkWRU, MarkFenceWRU).
	EdgeMarks bool
	// InvalidatedChangeShare is the share of changed links an edge may
	// hold (a mark younger than the edge TTL): the ones that are
	// invalidated with EdgeMarks. Not measured: no data says how many
	// changed links were clicked in the last day.
	InvalidatedChangeShare float64
	MarkItemBytes          float64 // one stored mark, with DynamoDB's overhead
	MarkWriteMs            float64 // billed ms the redirect spends on a mark's PutItem

	// The /v1 authorizer (functions/apiauth, a REST API REQUEST
	// authorizer): API Gateway invokes it on every /v1 call, since it has
	// no identity source and no result cache (docs/teams.md), but for the
	// share AuthorizerCacheHits a result cache would answer (0 as built;
	// a lever). It runs APIAuthMemGB for APIAuthMs billed a call. A call
	// signed in with a token (TokenCallShare of the calls; the console's)
	// reads the members table once (M.AuthorizerTokenRRU); a call with
	// an API key reads the keys table only when the authorizer's key
	// cache misses (KeyReadsPerAPICall of them, M.AuthorizerKeyRRU each).
	KeyReadsPerAPICall      float64
	TokenCallShare          float64
	AuthorizerCacheHits     float64
	APIAuthMemGB, APIAuthMs float64
	// The redirect origin's authorizer: API Gateway caches its answer for
	// 5 minutes per identity (the origin secret header), so it runs about
	// this many times a month per Region.
	AuthorizerRunsPerRegion float64

	// Webhooks. Every link change passes the links stream's webhook
	// consumer, which reads its owner's subscriptions (one strongly
	// consistent Query, 1 RRU); every code of every click batch costs its
	// owner's lookup (GetItem, 0.5 RRU), and every distinct owner of a
	// batch the subscriptions' Query. Only the events someone subscribed
	// to become deliveries.
	ClickCodesPerBatch  float64 // distinct codes in one clicks batch
	ClickOwnersPerBatch float64 // distinct owners of those codes
	SubscribedShare     float64 // events that have a subscription to go to
	// A delivery: SQS send, receive, delete (3 requests), a tenth of a
	// Lambda invocation, the subscription's read (1 RRU) and the attempt's
	// record (1 WRU).
	DeliveryMemGB, DeliveryMs float64 // per delivery batch of 10
}

// MeasuredClickWRU is the WRU per click of Current (kept for callers).
var MeasuredClickWRU = Current.ClickWRU

// TodayAssumptions are the deployment before the levers: by-owner index
// projecting ALL, Standard tables, PITR on every table and replica, WAF,
// on-demand Kinesis, platform log lines, new aliases and every changed
// link invalidated (no edge marks).
func TodayAssumptions() Assumptions {
	return Assumptions{
		M:                       Current,
		Regions:                 2,
		APICallsPerCreate:       1.2,
		RedirectRespBytes:       700,
		APIRespBytes:            1000,
		LogRecordBytes:          Soak.LogRecordBytes + 200,
		ViewerHeaderBytes:       200,
		StatsPerCreate:          0.1,
		InProcessCacheHits:      0,
		RedirectMemGB:           0.25,
		RedirectMs:              6,
		APIMemGB:                0.25,
		APIMs:                   20,
		ClicksMemGB:             0.5,
		ClicksMs:                250,
		ClicksBatch:             1000,
		ReclaimMemGB:            0.25,
		ReclaimMs:               2000,
		ReclaimPerInvocation:    1000,
		IdempotentShare:         0.5,
		ItemKB:                  1,
		PlatformLogBytes:        350,
		AccessLogBytes:          350,
		AccessLogs:              true,
		MonthsOfLinksKept:       60,
		StoredItemBytes:         450,
		OwnerProjection:         ProjectAll,
		OwnerAllIndex:           true,
		AuditLog:                true,
		AuditEntryBytes:         600,
		ExpiringIndexBytes:      150,
		LinksClass:              Standard,
		AnalyticsClass:          Standard,
		PITRLinksRegions:        2,
		PITRAnalytics:           true,
		HourRetentionMonths:     3,
		DayRetentionMonths:      36,
		KinesisPeakFactor:       3,
		WAF:                     true,
		UnknownMissShare:        0.05,
		DecidedClickShare:       0.01,
		DecidedCounterWRU:       0.5,
		Reservations:            true,
		ReservationItemBytes:    200,
		ReservationPITRRegions:  2,
		AliasShare:              0.05,
		InvalidateNewAliases:    true,
		ChangesPerCreate:        0.02,
		PathsPerChange:          1.1,
		InvalidatedChangeShare:  0.3,
		MarkItemBytes:           100,
		MarkWriteMs:             4,
		KeyReadsPerAPICall:      0.05,
		TokenCallShare:          0.2,
		APIAuthMemGB:            0.25,
		APIAuthMs:               5,
		AuthorizerRunsPerRegion: 12 * hoursPerMon,
		ClickCodesPerBatch:      300,
		ClickOwnersPerBatch:     100,
		SubscribedShare:         0.05,
		DeliveryMemGB:           0.25,
		DeliveryMs:              400,
	}
}

// DefaultAssumptions are the deployment's defaults after this model's
// levers (infra's context defaults): by-owner INCLUDE, links on
// Standard-IA, PITR on the primary replica of the links and reservation
// tables and on the keys table only, platform log lines off, the
// miss-only enumeration defence instead of WAF, the packed click layout,
// no invalidation of new aliases, and edge marks.
func DefaultAssumptions() Assumptions {
	a := TodayAssumptions()
	a.OwnerProjection = ProjectInclude
	a.LinksClass = StandardIA
	a.PITRLinksRegions = 1
	a.ReservationPITRRegions = 1
	a.InvalidateNewAliases = false
	a.EdgeMarks = true
	a.PITRAnalytics = false
	a.PlatformLogsOff = true
	a.WAF = false
	a.MissOnlyDefence = true
	packedClicks(&a)
	return a
}

// packedClicks counts clicks in the packed layout, the default.
func packedClicks(a *Assumptions) {
	a.M.ClickWRU = PackedClicks.ClickWRU
	a.M.ClickRRU = PackedClicks.ClickRRU
	a.M.ClickWRU10x = PackedClicks.ClickWRU10x
	a.M.ClickRRU10x = PackedClicks.ClickRRU10x
	a.M.CounterItemsPerClick = PackedClicks.CounterItemsPerClick
}

// AllProposals are the defaults with every lever the document proposes
// that keeps the goal's constraints and is not a default: Kinesis
// provisioned for 3x the average, the by-owner index KEYS_ONLY, no /v1
// access log.
func AllProposals() Assumptions {
	a := DefaultAssumptions()
	a.KinesisProvisioned = true
	a.OwnerProjection = ProjectKeys
	a.AccessLogs = false
	return a
}

// AllProposalsShorterHistory is AllProposals with daily click detail kept
// 12 months instead of 36, which changes the stats answers for ranges
// older than a year: it breaks a constraint, so it is priced apart.
func AllProposalsShorterHistory() Assumptions {
	a := AllProposals()
	a.DayRetentionMonths = 12
	return a
}

// MarkFencesPerChange is what manage writes, after an edit or delete, to
// fence the link's marks and learn whether an edge may hold it: one
// conditional write per Region.
func (a Assumptions) MarkFencesPerChange() float64 {
	return float64(a.Regions) * a.M.MarkFenceWRU
}

// ownerIndexBytes is one by-owner entry as stored: the whole item (ALL),
// the item without what a listing does not read (purge_at, exp_shard,
// custom_alias: INCLUDE), or the keys alone.
func (a Assumptions) ownerIndexBytes() float64 {
	switch a.OwnerProjection {
	case ProjectInclude:
		return a.StoredItemBytes - 40
	case ProjectKeys:
		return 160
	}
	return a.StoredItemBytes
}

// Group is a part of the service a line belongs to.
type Group string

// The groups, in the document's order.
const (
	Serving   Group = "Serving (redirects and /v1)"
	Analytics Group = "Click analytics"
	Lifecycle Group = "Expiry and reclaim"
	Platform  Group = "Storage, logs, edge protection"
	Webhooks  Group = "Webhooks"
)

// Groups in order.
var Groups = []Group{Serving, Analytics, Lifecycle, Platform, Webhooks}

// Line is one component's monthly cost.
type Line struct {
	Group     Group
	Component string
	USD       float64
	// CloudFront: CloudFront bills the line, so a Security Savings
	// Bundle's credits offset it (all CloudFront charges, S62).
	CloudFront bool
}

// Estimate is the month's cost at hit (the edge cache hit ratio, 0-1).
type Estimate struct {
	Load     Load
	Phase    Phase
	HitRatio float64
	Lines    []Line
	Floor    float64 // CloudFront's request fee for the redirects alone
	Total    float64
	ByGroup  map[Group]float64
}

// An expiry's writes per Region: the tombstone put in place of the link
// and its three index writes; after the grace, the release's delete of
// the item and its due-tombstones entry.
const (
	tombstoneWrites = 1 + 3
	releaseWrites   = 1 + 1
)

const (
	gb          = 1e9
	million     = 1e6
	hoursPerMon = 730
)

// tier is one volume tier of a request price: its price per million up
// to upTo million requests a month (0: no upper bound).
type tier struct {
	upTo  float64
	price Price
}

// tiered prices qMillions requests a month through consecutive tiers.
func tiered(qMillions float64, tiers ...tier) float64 {
	total, from := 0.0, 0.0
	for _, t := range tiers {
		if t.upTo == 0 || qMillions <= t.upTo {
			return total + (qMillions-from)*t.price.USD
		}
		total += (t.upTo - from) * t.price.USD
		from = t.upTo
	}
	return total
}

// httpAPIUSD and restAPIUSD are what qMillions requests a month cost an
// HTTP API and a REST API, by API Gateway's volume tiers (S34b).
func (p Prices) httpAPIUSD(qMillions float64) float64 {
	return tiered(qMillions, tier{300, p.HTTPAPIPerMillion}, tier{0, p.HTTPAPIPerMillionOver})
}

func (p Prices) restAPIUSD(qMillions float64) float64 {
	return tiered(qMillions, tier{333, p.RESTPerMillion}, tier{1000, p.RESTPerMillionNext667M},
		tier{20000, p.RESTPerMillionNext19B}, tier{0, p.RESTPerMillionOver20B})
}

// classFactor is what a table class multiplies reads and writes by, and
// its storage price.
func classFactor(class string, p Prices) (requests, storage float64) {
	if class == StandardIA {
		return p.DynamoIARequestFactor.USD, p.DynamoIAStorageGBMonth.USD
	}
	return 1, p.DynamoStorageGBMonth.USD
}

// KinesisShards is the provisioned stream's size for l: its peak record
// rate over 1,000 records/s a shard (records are under 1 KB, so the
// record rate binds before the 1 MB/s).
func KinesisShards(l Load, a Assumptions) float64 {
	return math.Ceil(l.Redirects / (hoursPerMon * 3600) * a.KinesisPeakFactor / 1000)
}

func kinesis(l Load, a Assumptions, p Prices) float64 {
	if a.KinesisProvisioned {
		return KinesisShards(l, a)*hoursPerMon*p.KinesisShardHour.USD + l.Redirects/million*p.KinesisPUTPerMillion.USD
	}
	return hoursPerMon*p.KinesisStreamHour.USD + l.Redirects*1024/gb*p.KinesisIngestGB.USD +
		l.Redirects*a.LogRecordBytes/gb*p.KinesisRetrieveGB.USD
}

// kinesisAdvantage is what the click stream costs with the account in
// Kinesis On-demand Advantage (S63): no stream-hour, ingest and retrieval
// at On-demand Standard's less the discount, each billed for at least the
// committed MiB/s. Records are taken to round up to 1 KB as in On-demand
// Standard.
func kinesisAdvantage(l Load, a Assumptions, p Prices) float64 {
	rate := 1 - p.KinesisAdvantageDiscount.USD
	minimumGB := p.KinesisAdvantageMinMiBps.USD * (1 << 20) * hoursPerMon * 3600 / gb
	in := math.Max(l.Redirects*1024/gb, minimumGB)
	out := math.Max(l.Redirects*a.LogRecordBytes/gb, minimumGB)
	return in*p.KinesisIngestGB.USD*rate + out*p.KinesisRetrieveGB.USD*rate
}

// Option is a way to pay for the same month that is not a list price: a
// commitment or an account-level mode. Conditions says what it asks for;
// Saving is what it takes off an estimate's month (negative: what it
// adds).
type Option struct {
	Name       string
	Conditions func(p Prices) string
	Saving     func(e Estimate, p Prices, a Assumptions) float64
}

// Options are the document's rows beside the list prices.
var Options = []Option{
	{"CloudFront Security Savings Bundle", func(p Prices) string {
		return fmt.Sprintf("a 1-year commitment to a monthly amount, here sized to the month's CloudFront charges (requests, data out, "+
			"invalidations, real-time logs, CloudFront Functions), which it pays for at %.0f %% less, with AWS WAF credits of up to "+
			"%.0f %% of the commitment; credits unused in a month lapse, use beyond them pays list prices, and a smaller month "+
			"still pays the commitment", p.SavingsBundleDiscount.USD*100, p.SavingsBundleWAFCredit.USD*100)
	}, SavingsBundleSaving},
	{"Kinesis On-demand Advantage", func(p Prices) string {
		return fmt.Sprintf("an account-level mode for every on-demand stream in the Region: no stream-hour, ingest and retrieval "+
			"%.0f %% below On-demand Standard's, each billed for at least %g MiB/s (shared with the account's other on-demand "+
			"streams), and it cannot be left for 24 hours", p.KinesisAdvantageDiscount.USD*100, p.KinesisAdvantageMinMiBps.USD)
	}, KinesisAdvantageSaving},
}

// SavingsBundleSaving is what a CloudFront Security Savings Bundle whose
// commitment matches e's CloudFront charges takes off e's month (S62):
// the charges are paid at the commitment, the discount below them, and
// the bundle's WAF credits (a share of the commitment) offset WAF's
// request charges.
func SavingsBundleSaving(e Estimate, p Prices, a Assumptions) float64 {
	cloudFront := 0.0
	for _, ln := range e.Lines {
		if ln.CloudFront {
			cloudFront += ln.USD
		}
	}
	commitment := cloudFront * (1 - p.SavingsBundleDiscount.USD)
	saved := cloudFront - commitment
	if a.WAF {
		wafRequests := newMonth(e.Load, e.Phase, e.HitRatio, p, a).viewer / million * p.WAFPerMillion.USD
		saved += math.Min(wafRequests, commitment*p.SavingsBundleWAFCredit.USD)
	}
	return saved
}

// KinesisAdvantageSaving is what Kinesis On-demand Advantage takes off e's
// month against the stream's mode in a (negative below the commitment).
func KinesisAdvantageSaving(e Estimate, p Prices, a Assumptions) float64 {
	return kinesis(e.Load, a, p) - kinesisAdvantage(e.Load, a, p)
}

// Compute prices one load, in one phase, at one hit ratio.
func Compute(l Load, ph Phase, hit float64, p Prices, a Assumptions) Estimate {
	c := newMonth(l, ph, hit, p, a)
	c.e.Floor = l.Redirects / 1e4 * p.CloudFrontHTTPSPer10k.USD
	c.serving()
	c.invalidations()
	c.analytics()
	c.lifecycle()
	c.platform()
	c.webhooks()
	for _, ln := range c.e.Lines {
		c.e.Total += ln.USD
		c.e.ByGroup[ln.Group] += ln.USD
	}
	return c.e
}

// month is one Compute while it adds its lines: the inputs, and the
// volumes every group derives from them.
type month struct {
	e   Estimate
	l   Load
	ph  Phase
	hit float64
	p   Prices
	a   Assumptions
	m   Measured

	api, misses, viewer float64 // /v1 calls, redirects at the origin, viewer requests
	expiring            bool    // links expire as fast as they are created
	expiries            float64
	others              float64 // Regions besides the primary
	linksReq, linksGB   float64 // the links table's storage class factors
	clicksReq, clicksGB float64 // the analytics table's
}

// newMonth derives the month's volumes from the load and assumptions.
func newMonth(l Load, ph Phase, hit float64, p Prices, a Assumptions) *month {
	c := &month{e: Estimate{Load: l, Phase: ph, HitRatio: hit, ByGroup: map[Group]float64{}}, l: l, ph: ph, hit: hit, p: p, a: a, m: a.M}
	c.api = l.Creates * a.APICallsPerCreate
	c.misses = l.Redirects * (1 - hit)
	c.viewer = l.Redirects + c.api
	c.expiring = ph.Months >= a.MonthsOfLinksKept
	if c.expiring {
		c.expiries = l.Creates
	}
	c.others = float64(a.Regions - 1)
	c.linksReq, c.linksGB = classFactor(a.LinksClass, p)
	c.clicksReq, c.clicksGB = classFactor(a.AnalyticsClass, p)
	return c
}

// add adds a line to the estimate.
func (c *month) add(g Group, name string, usd float64) {
	c.e.Lines = append(c.e.Lines, Line{Group: g, Component: name, USD: usd})
}

// addCloudFront adds a line CloudFront bills.
func (c *month) addCloudFront(g Group, name string, usd float64) {
	c.e.Lines = append(c.e.Lines, Line{Group: g, Component: name, USD: usd, CloudFront: true})
}

// wru and rru are what DynamoDB write and read units cost.
func (c *month) wru(units float64) float64 { return units / million * c.p.DynamoWRUPerMillion.USD }
func (c *month) rru(units float64) float64 { return units / million * c.p.DynamoRRUPerMillion.USD }

// lambda is what invocations of memGB running ms each cost.
func (c *month) lambda(invocations, memGB, ms float64) float64 {
	return invocations/million*c.p.LambdaPerMillion.USD + invocations*memGB*ms/1000*c.p.LambdaGBSecond.USD
}

// httpAPI is what requests to the HTTP API cost.
func (c *month) httpAPI(requests float64) float64 {
	return c.p.httpAPIUSD(requests / million)
}

// serving adds the request path: the edge, both APIs, the functions, the
// redirect's reads and the writes of links and reservations.
func (c *month) serving() {
	l, p, a, m := c.l, c.p, c.a, c.m
	api, misses := c.api, c.misses
	c.addCloudFront(Serving, "CloudFront requests", c.viewer/1e4*p.CloudFrontHTTPSPer10k.USD)
	c.addCloudFront(Serving, "CloudFront data out", (l.Redirects*a.RedirectRespBytes+api*a.APIRespBytes)/gb*p.CloudFrontGBOut.USD)
	c.add(Serving, "API Gateway HTTP API (redirect misses)", c.httpAPI(misses))
	c.add(Serving, "API Gateway REST API (/v1)", p.restAPIUSD(api/million))
	c.add(Serving, "Lambda: redirect, create, manage, stats", c.lambda(misses, a.RedirectMemGB, a.RedirectMs)+c.lambda(api, a.APIMemGB, a.APIMs))
	c.add(Serving, "Lambda: origin authorizer (answers cached 5 min)", c.lambda(float64(a.Regions)*a.AuthorizerRunsPerRegion, 0.125, 5))
	c.add(Serving, "DynamoDB redirect reads", c.linksReq*c.rru(misses*(1-a.InProcessCacheHits)*m.MissRRU))
	// A create in the primary Region as measured (item, by-owner,
	// by-owner-all and expiring-links entries; with an Idempotency-Key the
	// record, in a transaction); in every other Region one replicated
	// write and that Region's index writes (S5).
	keyed := m.KeyedCreateWRU
	if a.Reservations {
		// The key is the reservation table's: the links table takes the
		// link's put alone, no transaction.
		keyed = m.ReservedKeyedCreateWRU
	}
	primary := (1-a.IdempotentShare)*m.CreateWRU + a.IdempotentShare*keyed
	// The measured create includes the by-owner-all entry; the replicas
	// write one index entry more with it.
	indexes := 3.0
	if !a.OwnerAllIndex {
		primary -= a.ItemKB
		indexes = 2
	}
	perCreate := primary + c.others*(1+indexes)*a.ItemKB
	c.add(Serving, "DynamoDB link writes (creates, all Regions)", c.linksReq*(c.wru(l.Creates*perCreate)+c.rru(l.Creates*a.IdempotentShare*m.KeyedCreateRRU)))
	if a.AuditLog {
		// One entry per create and per edit or delete: written after the
		// change (1 WRU) through the reservation table, in a keyed create's
		// transaction without it (2 WRU), and replicated once to every other
		// Region. The table is Standard-IA (infra/tables).
		ia, _ := classFactor(StandardIA, p)
		changes := l.Creates * a.ChangesPerCreate
		first := 1.0
		if !a.Reservations {
			first = 1 + a.IdempotentShare
		}
		c.add(Serving, "DynamoDB audit log writes (every change, all Regions)",
			ia*c.wru(l.Creates*(first+c.others)+changes*(1+c.others)))
	}
	// Every /v1 call passes the authorizer first, unless a result cache
	// answers for it.
	authorized := api * (1 - a.AuthorizerCacheHits)
	c.add(Serving, "Lambda: /v1 authorizer (API keys and sign-in)", c.lambda(authorized, a.APIAuthMemGB, a.APIAuthMs))
	c.add(Serving, "DynamoDB API key reads (the authorizer's key cache misses)",
		c.rru(authorized*(1-a.TokenCallShare)*a.KeyReadsPerAPICall*m.AuthorizerKeyRRU))
	c.add(Serving, "DynamoDB /v1 authorizer member reads (signed-in calls)", c.rru(authorized*a.TokenCallShare*m.AuthorizerTokenRRU))
	c.add(Serving, "DynamoDB stats reads", c.clicksReq*c.rru(l.Creates*a.StatsPerCreate*m.StatsRRU))
	if a.Reservations {
		// Per create the reservation writes as measured; an edit or delete
		// advances the code's version, a release (expiry) gives it back:
		// one write each. Every write is billed again in the other replica.
		res := l.Creates*((1-a.IdempotentShare)*m.ReservationWRU+a.IdempotentShare*m.ReservationWRUKeyed) +
			l.Creates*a.ChangesPerCreate + c.expiries
		c.add(Serving, "DynamoDB reservation writes (MRSC, every replica)", c.wru(float64(a.Regions)*res))
	}
	// Decided clicks reach the origin even when the edge would have had
	// them: the ones beyond the misses pay the origin's request, and every
	// decided click its counters.
	decided := l.Redirects * a.DecidedClickShare
	extra := decided * c.hit
	c.add(Serving, "Decided clicks at the origin (rules, click limits, passwords)",
		c.httpAPI(misses+extra)-c.httpAPI(misses)+
			c.lambda(extra, a.RedirectMemGB, a.RedirectMs)+c.wru(decided*a.DecidedCounterWRU))
}

// invalidations adds what takedowns cost: the edge marks that spare most
// changes an invalidation, and the invalidated paths.
func (c *month) invalidations() {
	l, p, a, m := c.l, c.p, c.a, c.m
	changes := l.Creates * a.ChangesPerCreate
	paths := changes * a.PathsPerChange
	if a.EdgeMarks {
		// A mark tells manage whether an edge may hold the link; only
		// those changes pay for their paths.
		paths *= a.InvalidatedChangeShare
		// Marks written by origin reads that answer a long-lived 302
		// (not the unknown codes' 404s, not the decided clicks' no-store
		// answers), each adding its PutItem's ms to the redirect; the
		// marks manage reads after a change; and the marks kept, the
		// last day and hour's, at most one per live code and Region.
		marks := c.misses * (1 - a.InProcessCacheHits) * (1 - a.UnknownMissShare) * m.MarkWritesPerOriginRead
		kept := math.Min(marks*(24+1)/hoursPerMon, float64(a.Regions)*l.Creates*math.Min(c.ph.Months, a.MonthsOfLinksKept))
		c.add(Serving, "DynamoDB edge marks (origin writes, reads on changes, storage)",
			c.wru(marks*m.MarkWRU)+marks*a.RedirectMemGB*a.MarkWriteMs/1000*p.LambdaGBSecond.USD+
				c.wru(changes*a.MarkFencesPerChange())+kept*a.MarkItemBytes/gb*p.DynamoStorageGBMonth.USD)
	}
	if a.InvalidateNewAliases {
		paths += l.Creates * a.AliasShare
	}
	c.addCloudFront(Serving, "CloudFront invalidations", math.Max(0, paths-p.InvalidationFreePaths)*p.InvalidationPath.USD)
}

// analytics adds click counting: the real-time logs, the stream, the
// clicks function and the analytics table.
func (c *month) analytics() {
	l, p, a, m := c.l, c.p, c.a, c.m
	c.addCloudFront(Analytics, "Real-time logs", l.Redirects/million*p.RealtimeLogPerMillion.USD)
	mode := "on demand"
	if a.KinesisProvisioned {
		mode = "provisioned"
	}
	c.add(Analytics, "Kinesis ("+mode+")", kinesis(l, a, p))
	c.add(Analytics, "Lambda: clicks", c.lambda(l.Redirects/a.ClicksBatch, a.ClicksMemGB, a.ClicksMs))
	wru, rru := m.ClickWRU, m.ClickRRU
	if l.Redirects >= 10*SeedLoad.Redirects && m.ClickWRU10x > 0 {
		// Measured at 10x a group's volume (PackedClicks).
		wru, rru = m.ClickWRU10x, m.ClickRRU10x
	}
	c.add(Analytics, "DynamoDB click counting (counters, checkpoints)", c.clicksReq*(c.wru(l.Redirects*wru)+c.rru(l.Redirects*rru)))
	// Items kept: a month's new items times the months they are kept (no
	// longer than the phase has run).
	kept := m.CounterItemsPerClick[0]*math.Min(a.HourRetentionMonths, c.ph.Months) +
		m.CounterItemsPerClick[1]*math.Min(a.DayRetentionMonths, c.ph.Months)
	clicksStored := l.Redirects * kept * m.CounterItemBytes / gb
	c.add(Analytics, fmt.Sprintf("DynamoDB analytics storage (%g/%g months kept)", a.HourRetentionMonths, a.DayRetentionMonths), clicksStored*c.clicksGB)
	if a.PITRAnalytics {
		c.add(Analytics, "PITR analytics table", clicksStored*p.DynamoPITRGBMonth.USD)
	}
}

// lifecycle adds expiry: tombstones, releases and the reclaim runs.
func (c *month) lifecycle() {
	p, a := c.p, c.a
	// An expiry, in every Region: the tombstone put in place of the link
	// (the item, and three index writes: out of by-owner and
	// expiring-links, into due-tombstones) and, after the grace, its
	// delete (the item and its due-tombstones entry). TTL deletes nothing
	// while the reclaim run keeps up (docs/lifecycle.md).
	perExpiry := float64(a.Regions) * a.ItemKB * (tombstoneWrites + releaseWrites)
	c.add(Lifecycle, "DynamoDB lifecycle writes", c.linksReq*c.wru(c.expiries*perExpiry))
	// ttlstream is invoked only for the backstop's deletions, none in the
	// steady state; reclaim handles each expiry twice (tombstone, release).
	c.add(Lifecycle, "Lambda: ttlstream, reclaim", c.lambda(2*c.expiries/a.ReclaimPerInvocation, a.ReclaimMemGB, a.ReclaimMs))
	// Reclaim: three transitions per loop (Reclaim, Count, MoreDue) plus
	// the start and end states of an hourly run.
	transitions := 2*c.expiries/a.ReclaimPerInvocation*3 + hoursPerMon*4
	c.add(Lifecycle, "Step Functions (reclaim)", transitions/1000*p.StepFunctionsPer1000.USD)
}

// platform adds what holds the rest up: storage and backups of the links
// and reservation tables, logs, and the enumeration defence.
func (c *month) platform() {
	l, p, a, m := c.l, c.p, c.a, c.m
	live := l.Creates * math.Min(c.ph.Months, a.MonthsOfLinksKept) / gb // G links per replica
	regions := float64(a.Regions)
	c.add(Platform, "DynamoDB links table storage (all Regions)", regions*live*a.StoredItemBytes*c.linksGB)
	c.add(Platform, "DynamoDB by-owner index storage ("+a.OwnerProjection+")", regions*live*a.ownerIndexBytes()*c.linksGB)
	if a.OwnerAllIndex {
		c.add(Platform, "DynamoDB by-owner-all index storage (ALL)", regions*live*a.StoredItemBytes*c.linksGB)
	}
	if a.AuditLog {
		// Kept for ever by default: every month's entries since the start.
		_, iaGB := classFactor(StandardIA, p)
		months := c.ph.Months
		if a.AuditRetentionMonths > 0 {
			months = math.Min(months, a.AuditRetentionMonths)
		}
		stored := l.Creates * (1 + a.ChangesPerCreate) * months * a.AuditEntryBytes / gb
		c.add(Platform, "DynamoDB audit log storage, PITR on the primary", regions*stored*iaGB+stored*p.DynamoPITRGBMonth.USD)
	}
	c.add(Platform, "DynamoDB expiring-links index storage", regions*live*a.ExpiringIndexBytes*c.linksGB)
	c.add(Platform, fmt.Sprintf("PITR links table (%d of %d Regions)", a.PITRLinksRegions, a.Regions), float64(a.PITRLinksRegions)*live*a.StoredItemBytes*p.DynamoPITRGBMonth.USD)
	if a.Reservations {
		// One item per live code in every replica, Standard class; PITR
		// on the replicas context pitrReservations names.
		c.add(Platform, fmt.Sprintf("DynamoDB reservation table storage, PITR on %d of %d replicas", a.ReservationPITRRegions, a.Regions),
			regions*live*a.ReservationItemBytes*p.DynamoStorageGBMonth.USD+
				float64(a.ReservationPITRRegions)*live*a.ReservationItemBytes*p.DynamoPITRGBMonth.USD)
	}
	// The functions', the /v1 authorizer's among them.
	invocations := c.misses + c.api + c.api*(1-a.AuthorizerCacheHits) + l.Redirects/a.ClicksBatch + 2*c.expiries/a.ReclaimPerInvocation
	logBytes := 0.0
	if !a.PlatformLogsOff {
		logBytes += invocations * a.PlatformLogBytes
	}
	if a.AccessLogs {
		logBytes += c.api * a.AccessLogBytes
	}
	c.add(Platform, "CloudWatch Logs", logBytes/gb*p.CloudWatchLogsGB.USD)
	if a.WAF {
		c.add(Platform, "WAF (context waf=true)", c.viewer/million*p.WAFPerMillion.USD+p.WAFMonthlyFixed.USD)
	}
	if a.MissOnlyDefence {
		c.add(Platform, "Miss-only enumeration defence (unknown codes)", c.wru(c.misses*a.UnknownMissShare*m.EnumWRUPerUnknownMiss))
	}
	if !a.WAF {
		c.addCloudFront(Platform, "CloudFront Function: canonical paths (WAF off)", l.Redirects/million*p.CloudFrontFunctions.USD)
	}
	// The query-forward function runs on the viewer response of every
	// redirect, cache hits too; CloudFront runs no viewer-response
	// function on an origin's 4xx or 5xx, so the unknown codes' 404s do
	// not pay it: every redirect is the upper bound.
	c.addCloudFront(Platform, "CloudFront Function: the visitor's query (viewer response)", l.Redirects/million*p.CloudFrontFunctions.USD)
}

// webhooks adds the webhook events' lookups and their deliveries.
func (c *month) webhooks() {
	l, p, a := c.l, c.p, c.a
	linkEvents := l.Creates * (1 + a.ChangesPerCreate)
	if c.expiring {
		linkEvents += c.expiries
	}
	clickEvents := l.Redirects / a.ClicksBatch * a.ClickCodesPerBatch
	deliveries := (linkEvents + clickEvents) * a.SubscribedShare
	c.add(Webhooks, "DynamoDB webhook lookups (every event)", c.rru(linkEvents*1+clickEvents*0.5+l.Redirects/a.ClicksBatch*a.ClickOwnersPerBatch))
	c.add(Webhooks, "Lambda: webhookstream", c.lambda(linkEvents/100, a.ReclaimMemGB, a.ReclaimMs/10))
	c.add(Webhooks, "Webhook deliveries (SQS, Lambda, DynamoDB)", deliveries*3/million*p.SQSPerMillion.USD+
		c.lambda(deliveries/10, a.DeliveryMemGB, a.DeliveryMs)+c.rru(deliveries)+c.wru(deliveries))
}

// HitRatios are the edge hit ratios the document compares.
var HitRatios = []float64{0.70, 0.90, 0.99}

// Goals are the ratios the seed load's all-in cost must stay under at
// 90 % edge hits (docs/cost-model.md, "Goal"), by phase.
var Goals = map[string]float64{Year1.Name: 1.7, Year5.Name: 2.0}

// Markdown renders the document's computed section: one table per load
// and phase, a column per hit ratio.
func Markdown(p Prices, a Assumptions) string {
	var b strings.Builder
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		for _, ph := range Phases {
			var cols []Estimate
			for _, h := range HitRatios {
				cols = append(cols, Compute(l, ph, h, p, a))
			}
			fmt.Fprintf(&b, "#### %s, %s load: %s redirects, %s creates per month, %s live links\n\n", ph.Name,
				l.Name, count(l.Redirects), count(l.Creates), count(l.Creates*math.Min(ph.Months, a.MonthsOfLinksKept)))
			b.WriteString("| Component |")
			for _, h := range HitRatios {
				fmt.Fprintf(&b, " %g %% hits |", h*100)
			}
			b.WriteString("\n|---|")
			b.WriteString(strings.Repeat("---:|", len(HitRatios)))
			b.WriteString("\n")
			row := func(name string, f func(Estimate) string) {
				fmt.Fprintf(&b, "| %s |", name)
				for _, c := range cols {
					fmt.Fprintf(&b, " %s |", f(c))
				}
				b.WriteString("\n")
			}
			for _, g := range Groups {
				for i, ln := range cols[0].Lines {
					if ln.Group == g {
						row(ln.Component, func(e Estimate) string { return usd(e.Lines[i].USD) })
					}
				}
				row("*"+string(g)+"*", func(e Estimate) string {
					return fmt.Sprintf("*%s (%.2fx)*", usd(e.ByGroup[g]), e.ByGroup[g]/e.Floor)
				})
			}
			row("**All-in**", func(e Estimate) string { return "**" + usd(e.Total) + "**" })
			row("CloudFront request floor (redirects)", func(e Estimate) string { return usd(e.Floor) })
			row("**All-in / floor**", func(e Estimate) string { return fmt.Sprintf("**%.2fx**", e.Total/e.Floor) })
			b.WriteString("\n")
		}
	}
	return b.String()
}

// PriceTable renders the prices with their sources.
func PriceTable(p Prices) string {
	var b strings.Builder
	b.WriteString("| Price | USD | Per | Source |\n|---|---:|---|---|\n")
	for _, r := range priceRows(p) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.name, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.10f", r.p.USD), "0"), "."), r.p.Per, r.p.Source)
	}
	return b.String()
}

type priceRow struct {
	name string
	p    Price
}

func priceRows(p Prices) []priceRow {
	return []priceRow{
		{"CloudFront HTTPS requests", p.CloudFrontHTTPSPer10k}, {"CloudFront data transfer out", p.CloudFrontGBOut},
		{"CloudFront invalidation", p.InvalidationPath},
		{"CloudFront real-time logs", p.RealtimeLogPerMillion}, {"Kinesis stream-hour", p.KinesisStreamHour},
		{"Kinesis data in", p.KinesisIngestGB}, {"Kinesis data out", p.KinesisRetrieveGB},
		{"Kinesis shard-hour", p.KinesisShardHour}, {"Kinesis PUT payload units", p.KinesisPUTPerMillion},
		{"HTTP API", p.HTTPAPIPerMillion}, {"HTTP API, over 300 M", p.HTTPAPIPerMillionOver},
		{"REST API", p.RESTPerMillion}, {"REST API, next 667 M", p.RESTPerMillionNext667M},
		{"REST API, next 19 B", p.RESTPerMillionNext19B}, {"REST API, over 20 B", p.RESTPerMillionOver20B},
		{"Lambda requests", p.LambdaPerMillion}, {"Lambda duration", p.LambdaGBSecond},
		{"DynamoDB reads", p.DynamoRRUPerMillion}, {"DynamoDB writes", p.DynamoWRUPerMillion},
		{"DynamoDB storage", p.DynamoStorageGBMonth}, {"DynamoDB storage, Standard-IA", p.DynamoIAStorageGBMonth},
		{"DynamoDB Standard-IA requests", p.DynamoIARequestFactor}, {"DynamoDB PITR", p.DynamoPITRGBMonth},
		{"Step Functions", p.StepFunctionsPer1000}, {"CloudWatch Logs", p.CloudWatchLogsGB},
		{"WAF requests", p.WAFPerMillion}, {"WAF web ACL + rule", p.WAFMonthlyFixed},
		{"CloudFront Functions", p.CloudFrontFunctions},
		{"SQS requests", p.SQSPerMillion},
		{"CloudFront Security Savings Bundle", p.SavingsBundleDiscount}, {"Savings Bundle's WAF credits", p.SavingsBundleWAFCredit},
		{"Kinesis On-demand Advantage", p.KinesisAdvantageDiscount}, {"On-demand Advantage minimum", p.KinesisAdvantageMinMiBps},
	}
}

func usd(v float64) string {
	v = math.Round(v)
	s := fmt.Sprintf("%.0f", v)
	// thousands separators
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return "$" + string(out)
}

func count(v float64) string {
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	switch {
	case v >= 0.995e9:
		return fmt.Sprintf("%g B", round(v/1e9))
	case v >= 0.995e6:
		return fmt.Sprintf("%g M", round(v/1e6))
	}
	return fmt.Sprintf("%g", round(v))
}

// Lever is a change to the assumptions the document prices, and the
// context that makes it (or the branch that does).
type Lever struct {
	Name  string
	Apply func(*Assumptions)
}

// Levers are the changes from today's deployment, each priced alone.
var Levers = []Lever{
	{"by-owner index INCLUDE (context ownerIndexProjection=INCLUDE; default)", func(a *Assumptions) { a.OwnerProjection = ProjectInclude }},
	{"by-owner index KEYS_ONLY (a listing then reads each item: not built)", func(a *Assumptions) { a.OwnerProjection = ProjectKeys }},
	{"audit entries kept 12 months (context auditRetentionDays=365; not the default)", func(a *Assumptions) { a.AuditRetentionMonths = 12 }},
	{"by-owner-all replaces by-owner (a second deploy drops by-owner once by-owner-all is built: not built)", func(a *Assumptions) {
		a.OwnerProjection, a.OwnerAllIndex = ProjectAll, false
	}},
	{"links table Standard-IA (context linksTableClass; default)", func(a *Assumptions) { a.LinksClass = StandardIA }},
	{"analytics table Standard-IA (context analyticsTableClass)", func(a *Assumptions) { a.AnalyticsClass = StandardIA }},
	{"PITR on the links table's primary replica only (context pitrLinks=primary; default)", func(a *Assumptions) { a.PITRLinksRegions = 1 }},
	{"PITR on the reservation table's primary replica only (context pitrReservations=primary; default)", func(a *Assumptions) { a.ReservationPITRRegions = 1 }},
	{"no PITR on the links and reservation tables (pitrLinks=off, pitrReservations=off; a backup choice, not a proposal)", func(a *Assumptions) {
		a.PITRLinksRegions, a.ReservationPITRRegions = 0, 0
	}},
	{"no PITR on the analytics table (context pitrAnalytics=false; default)", func(a *Assumptions) { a.PITRAnalytics = false }},
	{"daily click detail kept 12 months, not 36 (retention)", func(a *Assumptions) { a.DayRetentionMonths = 12 }},
	{"Kinesis provisioned for 3x the average rate (context kinesisShards)", func(a *Assumptions) { a.KinesisProvisioned = true }},
	{"no START/END/REPORT lines (context systemLogLevel=WARN; default)", func(a *Assumptions) { a.PlatformLogsOff = true }},
	{"no /v1 access log (not a context yet)", func(a *Assumptions) { a.AccessLogs = false }},
	{"new aliases not invalidated (their 404 lives at most 10 s at the edge; default)", func(a *Assumptions) { a.InvalidateNewAliases = false }},
	{"edge marks: edits and deletes invalidate only links an edge may hold (0.3 assumed; default)", func(a *Assumptions) { a.EdgeMarks = true }},
	{"miss-only enumeration defence instead of WAF (enum-defence branch)", func(a *Assumptions) { a.WAF = false; a.MissOnlyDefence = true }},
	{"click counting in the packed layout (SHORTENER_CLICK_STORE=packed; default)", packedClicks},
	{"/v1 authorizer answers cached by API Gateway, 0.8 of calls assumed (not built: needs one identity header for both credentials and X-Workspace in the cache key; a revocation then waits out the cache's TTL)",
		func(a *Assumptions) { a.AuthorizerCacheHits = 0.8 }},
}

// LeverTable prices each lever alone against today's deployment, and the
// defaults, at the seed load and 90 % edge hits, in both phases.
func LeverTable(p Prices) string {
	var b strings.Builder
	b.WriteString("| Change (seed load, 90 % edge hits) | Year 1 | saves | Year 5 | saves |\n|---|---:|---:|---:|---:|\n")
	today := TodayAssumptions()
	base := map[string]float64{}
	for _, ph := range Phases {
		base[ph.Name] = Compute(SeedLoad, ph, 0.90, p, today).Total
	}
	row := func(name string, a Assumptions) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, ph := range Phases {
			e := Compute(SeedLoad, ph, 0.90, p, a)
			fmt.Fprintf(&b, " %s (%.2fx) | %s |", usd(e.Total), e.Total/e.Floor, usd(base[ph.Name]-e.Total))
		}
		b.WriteString("\n")
	}
	row("Today's deployment", today)
	for _, l := range Levers {
		a := TodayAssumptions()
		l.Apply(&a)
		row(l.Name, a)
	}
	row("**The defaults** (levers marked default, with the enumeration defence)", DefaultAssumptions())
	row("**The defaults with every proposal that keeps the constraints**: Kinesis provisioned, by-owner KEYS_ONLY, no /v1 access log", AllProposals())
	row("the same, and daily click detail kept 12 months (changes stats answers older than a year: breaks a constraint)", AllProposalsShorterHistory())
	a := DefaultAssumptions()
	b0 := Compute(SeedLoad, Year5, 0.90, p, a).Total
	a.M.ClickWRU++
	perChange := SeedLoad.Creates * 0.01 * a.PathsPerChange * p.InvalidationPath.USD
	fmt.Fprintf(&b, "\nEach WRU more (or less) per click adds (or saves) %s a month at the seed load; each 0.01 edits or "+
		"deletes per create, %s with edge marks at the assumed share (%s without).",
		usd(Compute(SeedLoad, Year5, 0.90, p, a).Total-b0), usd(perChange*a.InvalidatedChangeShare), usd(perChange))
	// The analytics table's class, priced on the defaults (the lever row
	// above prices it on today's click layout).
	ia := DefaultAssumptions()
	ia.AnalyticsClass = StandardIA
	var by []string
	for _, ph := range Phases {
		d := Compute(SeedLoad, ph, 0.90, p, DefaultAssumptions()).Total - Compute(SeedLoad, ph, 0.90, p, ia).Total
		verb := "saves"
		if d < 0 {
			verb, d = "costs", -d
		}
		by = append(by, fmt.Sprintf("%s %s in %s", verb, usd(d), strings.ToLower(ph.Name)))
	}
	fmt.Fprintf(&b, " On the defaults (the packed layout), the analytics table on Standard-IA %s.\n", strings.Join(by, " and "))
	return b.String()
}

// OptionTable prices each option beside the list prices, alone and
// together, at 90 % edge hits, per load and phase: the month's total, its
// ratio to the list-price floor and what the option saves or costs; then
// each option's conditions.
func OptionTable(p Prices, a Assumptions) string {
	var b strings.Builder
	b.WriteString("| Option (the defaults, 90 % edge hits) |")
	type column struct {
		l  Load
		ph Phase
	}
	var cols []column
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		for _, ph := range Phases {
			cols = append(cols, column{l, ph})
			fmt.Fprintf(&b, " %s, %s |", ph.Name, l.Name)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	row := func(name string, options ...Option) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, c := range cols {
			e := Compute(c.l, c.ph, 0.90, p, a)
			saved := 0.0
			for _, o := range options {
				saved += o.Saving(e, p, a)
			}
			total := e.Total - saved
			if len(options) == 0 {
				fmt.Fprintf(&b, " %s (%.2fx) |", usd(total), total/e.Floor)
				continue
			}
			verb := "saves"
			if saved < 0 {
				verb, saved = "costs", -saved
			}
			fmt.Fprintf(&b, " %s (%.2fx), %s %s |", usd(total), total/e.Floor, verb, usd(saved))
		}
		b.WriteString("\n")
	}
	row("List prices (the monthly cost tables)")
	for _, o := range Options {
		row(o.Name, o)
	}
	row("Both", Options...)
	// The floor is CloudFront's request fee, which the bundle discounts
	// as well.
	var ratios []string
	for _, c := range cols {
		e := Compute(c.l, c.ph, 0.90, p, a)
		ratios = append(ratios, fmt.Sprintf("%.2fx", (e.Total-SavingsBundleSaving(e, p, a))/(e.Floor*(1-p.SavingsBundleDiscount.USD))))
	}
	fmt.Fprintf(&b, "\nThe ratios are to the list-price floor. The bundle takes its %.0f %% off the floor's own requests too: "+
		"against a floor paid through it (%s at the seed load) its row is %s.\n", p.SavingsBundleDiscount.USD*100,
		usd(SeedLoad.Redirects/1e4*p.CloudFrontHTTPSPer10k.USD*(1-p.SavingsBundleDiscount.USD)), strings.Join(ratios, " / "))
	b.WriteString("\nConditions:\n\n")
	for _, o := range Options {
		fmt.Fprintf(&b, "- **%s**: %s.\n", o.Name, o.Conditions(p))
	}
	return b.String()
}

// MeasuredTable lists the measured inputs, the run, and the placeholders
// the lead replaces.
func MeasuredTable(m Measured) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s.\n\n", m.Run)
	b.WriteString("| Input (infra/costmodel/inputs.go) | Value |\n|---|---:|\n")
	for _, r := range [][2]string{
		{"`ClickWRU`: WRU per click, everything the clicks consumer writes", fmt.Sprint(m.ClickWRU)},
		{"`ClickRRU`: RRU per click", fmt.Sprint(m.ClickRRU)},
		{"`CounterItemsPerClick`: items kept per click, hourly / daily", fmt.Sprint(m.CounterItemsPerClick[0], " / ", m.CounterItemsPerClick[1])},
		{"`CounterItemBytes`: one counter item, with overhead", fmt.Sprint(m.CounterItemBytes)},
		{"`CreateWRU`, `KeyedCreateWRU`, `KeyedCreateRRU`: a create in the primary Region", fmt.Sprint(m.CreateWRU, ", ", m.KeyedCreateWRU, ", ", m.KeyedCreateRRU)},
		{"`MissRRU`: a redirect miss", fmt.Sprint(m.MissRRU)},
		{"`EnumWRUPerUnknownMiss`: the miss-only defence per unknown code", fmt.Sprint(m.EnumWRUPerUnknownMiss)},
		{"`ReservationWRU`, `ReservationWRUKeyed`: reservation-table writes per create, without and with a key", fmt.Sprint(m.ReservationWRU, ", ", m.ReservationWRUKeyed)},
		{"`ReservedKeyedCreateWRU`: a keyed create's links-table writes through the reservation table", fmt.Sprint(m.ReservedKeyedCreateWRU)},
		{"`MarkWritesPerOriginRead`, `MarkWRU`, `MarkFenceWRU`: edge marks per origin read, WRU per mark, WRU per Region's fence of a changed link's mark", fmt.Sprint(m.MarkWritesPerOriginRead, ", ", m.MarkWRU, ", ", m.MarkFenceWRU)},
		{"`StatsRRU`: one stats answer (90 days hourly, end of a seed-like day)", fmt.Sprint(m.StatsRRU)},
		{"`AuthorizerKeyRRU`, `AuthorizerTokenRRU`: the /v1 authorizer's reads for a key its cache misses, and for a signed-in call (the members table)", fmt.Sprint(m.AuthorizerKeyRRU, ", ", m.AuthorizerTokenRRU)},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	pc := PackedClicks
	fmt.Fprintf(&b, "\nThe default layout's clicks (`PackedClicks`, the packed layout): %s.\n\n", pc.Run)
	b.WriteString("| Input (`PackedClicks`) | Seed group | 10x a group |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| `ClickWRU`, `ClickWRU10x`: WRU per click | %.4f | %.4f |\n", pc.ClickWRU, pc.ClickWRU10x)
	fmt.Fprintf(&b, "| `ClickRRU`, `ClickRRU10x`: RRU per click | %.4f | %.4f |\n", pc.ClickRRU, pc.ClickRRU10x)
	fmt.Fprintf(&b, "| `CounterItemsPerClick`: 130-byte items kept per click, hourly / daily | %g / %g | the same |\n",
		pc.CounterItemsPerClick[0], pc.CounterItemsPerClick[1])
	b.WriteString("\n**Placeholders the lead replaces at merge** (then `go test ./infra/costmodel -update`):\n\n")
	b.WriteString("| Input | Used now | Replaced by |\n|---|---|---|\n")
	for _, ph := range Placeholders {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", ph.Input, ph.Value, ph.Replace)
	}
	return b.String()
}

// KinesisText is the on-demand / provisioned break-even.
func KinesisText(p Prices, a Assumptions) string {
	var b strings.Builder
	b.WriteString("| Load (records a month) | Shards at 3x the average | On demand | Provisioned |\n|---|---:|---:|---:|\n")
	for _, r := range []float64{10e6, 100e6, 1e9, 10e9, 100e9} {
		l := Load{Redirects: r}
		od, pr := a, a
		od.KinesisProvisioned, pr.KinesisProvisioned = false, true
		fmt.Fprintf(&b, "| %s | %g | %s | %s |\n", count(r), KinesisShards(l, a), usd(kinesis(l, od, p)), usd(kinesis(l, pr, p)))
	}
	perMillion := (1024*p.KinesisIngestGB.USD + a.LogRecordBytes*p.KinesisRetrieveGB.USD) / gb * million
	fmt.Fprintf(&b, "\nOn demand costs $%.4f per million ~%g-byte records plus %s a month for the stream; provisioned, "+
		"$%.3f per million plus %s per shard a month. A shard carries up to 1,000 records/s: provisioned is cheaper "+
		"from the first shard on, and stays so as long as the peak is under %.0f times the average (the ratio "+
		"of the two per-record prices, with a shard's month paid for at the peak).\n",
		perMillion, a.LogRecordBytes, usd(hoursPerMon*p.KinesisStreamHour.USD), p.KinesisPUTPerMillion.USD,
		fmt.Sprintf("$%.2f", hoursPerMon*p.KinesisShardHour.USD),
		(perMillion-p.KinesisPUTPerMillion.USD)/(hoursPerMon*p.KinesisShardHour.USD)*1000*hoursPerMon*3600/million)
	return b.String()
}

// AssumptionTable lists the assumptions with their values.
func AssumptionTable(a Assumptions) string {
	rows := [][2]string{
		{"Regions (links replicas, regional stacks)", fmt.Sprint(a.Regions)},
		{"Phases: months at the load (live links = creates x months, at most the 60-month default TTL; expiries from month 60)", "12, 60"},
		{"/v1 requests per create (the POST plus reads, edits, stats)", fmt.Sprint(a.APICallsPerCreate)},
		{"Bytes CloudFront sends per redirect (302, Location, security headers)", fmt.Sprint(a.RedirectRespBytes)},
		{"Bytes per /v1 response", fmt.Sprint(a.APIRespBytes)},
		{"Real-time log record, bytes: measured by `make soak` (Soak) plus a browser's User-Agent and Referer (assumed); billed by Kinesis on demand as 1 KB, provisioned as one 25 KB PUT payload unit", fmt.Sprint(a.LogRecordBytes, " (", Soak.LogRecordBytes, " + ", a.ViewerHeaderBytes, ")")},
		{"Stats answers a month per create (within the /v1 requests); RRU per answer (measured, a seed-like day's 90-day hourly answer)", fmt.Sprint(a.StatsPerCreate, "; ", a.M.StatsRRU)},
		{"Origin redirects answered from the function's memory (no DynamoDB read)", fmt.Sprint(a.InProcessCacheHits)},
		{"redirect: memory GB, billed ms per invocation", fmt.Sprint(a.RedirectMemGB, ", ", a.RedirectMs)},
		{"create/manage/stats: memory GB, billed ms", fmt.Sprint(a.APIMemGB, ", ", a.APIMs)},
		{"clicks: memory GB, ms per batch, records per batch", fmt.Sprint(a.ClicksMemGB, ", ", a.ClicksMs, ", ", a.ClicksBatch)},
		{"reclaim: memory GB, ms per invocation, codes per invocation", fmt.Sprint(a.ReclaimMemGB, ", ", a.ReclaimMs, ", ", a.ReclaimPerInvocation)},
		{"Creates with an Idempotency-Key (two-item transaction)", fmt.Sprint(a.IdempotentShare)},
		{"Link item size for writes, KB (rounded up)", fmt.Sprint(a.ItemKB)},
		{"Stored bytes: link item, by-owner entry (by projection), expiring-links entry", fmt.Sprint(a.StoredItemBytes, ", ", a.ownerIndexBytes(), ", ", a.ExpiringIndexBytes)},
		{"Table classes: links, analytics", a.LinksClass + ", " + a.AnalyticsClass},
		{"PITR: links replicas with it; analytics", fmt.Sprint(a.PITRLinksRegions, "; ", a.PITRAnalytics)},
		{"Click history kept, months: hourly, daily", fmt.Sprint(a.HourRetentionMonths, ", ", a.DayRetentionMonths)},
		{"Kinesis provisioned; peak / average record rate", fmt.Sprint(a.KinesisProvisioned, "; ", a.KinesisPeakFactor)},
		{"CloudWatch Logs bytes per invocation (START, END, REPORT) and per /v1 access log; platform lines off; access log on", fmt.Sprint(a.PlatformLogBytes, ", ", a.AccessLogBytes, "; ", a.PlatformLogsOff, "; ", a.AccessLogs)},
		{"WAF; miss-only defence; share of misses naming no link", fmt.Sprint(a.WAF, "; ", a.MissOnlyDefence, "; ", a.UnknownMissShare)},
		{"Decided clicks (password, click limit, rules: answered no-store) as a share of clicks; counter WRU per decided click", fmt.Sprint(a.DecidedClickShare, "; ", a.DecidedCounterWRU)},
		{"MRSC reservation table; stored bytes per reservation; replicas with PITR", fmt.Sprint(a.Reservations, "; ", a.ReservationItemBytes, "; ", a.ReservationPITRRegions)},
		{"Invalidations: creates with a custom alias; new aliases invalidated; edits and deletes per create; paths per change", fmt.Sprint(a.AliasShare, "; ", a.InvalidateNewAliases, "; ", a.ChangesPerCreate, "; ", a.PathsPerChange)},
		{"Edge marks; share of changed links an edge may hold (invalidated with marks; **not measured**: no data says how many changed links were clicked in the last day)", fmt.Sprint(a.EdgeMarks, "; ", a.InvalidatedChangeShare)},
		{"Edge marks: marks per origin read (**upper bound**), WRU per mark, WRU per change (one fence per Region), stored bytes per mark, billed ms per mark write", fmt.Sprint(a.M.MarkWritesPerOriginRead, ", ", a.M.MarkWRU, ", ", a.MarkFencesPerChange(), ", ", a.MarkItemBytes, ", ", a.MarkWriteMs)},
		{"API key reads per /v1 call with a key (the /v1 authorizer's key cache misses); origin authorizer runs per Region a month", fmt.Sprint(a.KeyReadsPerAPICall, "; ", a.AuthorizerRunsPerRegion)},
		{"/v1 authorizer: memory GB, billed ms per call (an estimate); share of /v1 calls signed in with a token (assumed), each one members read; share answered from an authorizer result cache (none is built)",
			fmt.Sprint(a.APIAuthMemGB, ", ", a.APIAuthMs, "; ", a.TokenCallShare, "; ", a.AuthorizerCacheHits)},
		{"Webhooks: distinct codes and owners per clicks batch; share of events subscribed to (link events: 1 + edits and deletes per create, + 1 expiry in year 5)",
			fmt.Sprint(a.ClickCodesPerBatch, ", ", a.ClickOwnersPerBatch, "; ", a.SubscribedShare)},
		{"webhookdelivery: memory GB, billed ms per batch of 10", fmt.Sprint(a.DeliveryMemGB, ", ", a.DeliveryMs)},
	}
	var b strings.Builder
	b.WriteString("| Assumption | Value |\n|---|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	return b.String()
}

// OriginTable compares the redirect origin flavours: API Gateway's fee for
// the edge misses with an HTTP API (deployed) and with a REST API.
func OriginTable(p Prices) string {
	var b strings.Builder
	b.WriteString("| Load, edge hits | Origin requests | HTTP API | REST API | Saved per month |\n|---|---:|---:|---:|---:|\n")
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		for _, h := range HitRatios {
			m := l.Redirects * (1 - h) / million
			httpAPI, rest := p.httpAPIUSD(m), p.restAPIUSD(m)
			fmt.Fprintf(&b, "| %s, %g %% | %s | %s | %s | %s |\n", l.Name, h*100, count(m*million), usd(httpAPI), usd(rest), usd(rest-httpAPI))
		}
	}
	return b.String()
}
