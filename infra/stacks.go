package infra

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/api"
	"github.com/shortlink-dev/shortener/infra/auditarchive"
	"github.com/shortlink-dev/shortener/infra/auth"
	"github.com/shortlink-dev/shortener/infra/clickpipeline"
	"github.com/shortlink-dev/shortener/infra/edge"
	"github.com/shortlink-dev/shortener/infra/failover"
	"github.com/shortlink-dev/shortener/infra/golambda"
	"github.com/shortlink-dev/shortener/infra/lifecycle"
	"github.com/shortlink-dev/shortener/infra/monitoring"
	"github.com/shortlink-dev/shortener/infra/streamconsumer"
	"github.com/shortlink-dev/shortener/infra/tables"
	"github.com/shortlink-dev/shortener/infra/webconsole"
	"github.com/shortlink-dev/shortener/infra/webhooks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Stacks are the app's stacks.
type Stacks struct {
	Data     *DataStack
	Regional map[string]*RegionalStack // by region
	Edge     *EdgeStack
}

// All lists the stacks in deployment order.
func (s *Stacks) All() []awscdk.Stack {
	out := []awscdk.Stack{s.Data.Stack}
	regions := make([]string, 0, len(s.Regional))
	for r := range s.Regional {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	for _, r := range regions {
		if s.Regional[r].Primary {
			out = append(out, s.Regional[r].Stack)
		}
	}
	for _, r := range regions {
		if !s.Regional[r].Primary {
			out = append(out, s.Regional[r].Stack)
		}
	}
	return append(out, s.Edge.Stack)
}

// Build assembles the app: a data stack in the primary region, a regional
// stack per region (each with the /v1 API when V1Regions lists it), the
// edge stack in us-east-1.
func Build(app awscdk.App, cfg Config) (*Stacks, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if _, err := functionEnv(cfg, nil); err != nil {
		return nil, err
	}
	if err := cfg.Deployments.Check(cfg, cfg.Record); err != nil {
		return nil, fmt.Errorf("recorded deployment: %w", err)
	}
	s := &Stacks{Regional: map[string]*RegionalStack{}}
	s.Data = NewDataStack(app, cfg)
	// The primary first: the other Regions' /v1 functions use its
	// webhooks table.
	order := append([]string{cfg.PrimaryRegion}, cfg.SecondaryRegions()...)
	for _, r := range order {
		rs, err := NewRegionalStack(app, cfg, r, s.Data, s.Regional[cfg.PrimaryRegion])
		if err != nil {
			return nil, err
		}
		s.Regional[r] = rs
	}
	s.Edge = NewEdgeStack(app, cfg, s)
	for _, st := range s.All() {
		awscdk.Tags_Of(st).Add(jsii.String("app"), jsii.String(cfg.AppName), nil)
	}
	addGuardSuppressions(cfg, s)
	if cfg.Nag {
		addNagChecks(app, s)
	}
	return s, nil
}

func newStack(app awscdk.App, cfg Config, id, region, description string) awscdk.Stack {
	env := &awscdk.Environment{Region: jsii.String(region)}
	if cfg.Account != "" {
		env.Account = jsii.String(cfg.Account)
	}
	st := awscdk.NewStack(app, jsii.String(cfg.AppName+"-"+id), &awscdk.StackProps{
		Env:         env,
		Description: jsii.String(description),
	})
	// Fn::GetStackOutput rather than exports (the recommended default,
	// pinned here): cross-region values need no custom resources, and no
	// export locks the stacks to each other. (Set before any child.)
	awscdk.CrossStackReferences_Of(st).Consume(awscdk.ReferenceStrength_WEAK)
	return st
}

// DataStack holds the tables and the origin secret, in the primary region.
type DataStack struct {
	awscdk.Stack
	Tables *tables.Tables
	// OriginSecret is CloudFront's header value for the redirect origins,
	// replicated to every region and to the edge's; OriginSecretARN is its
	// ARN in the primary region. Other stacks read a region's copy with
	// OriginSecretARNIn.
	OriginSecret    awssecretsmanager.Secret
	OriginSecretARN *string
	// originSecretOutputs are the outputs OriginSecretARNIn made, by region.
	originSecretOutputs map[string]awscdk.CfnOutput
	// Reservation is where the reservation table was built: a Region
	// takes /v1 writes only where it has a replica.
	Reservation Reservation
	// Auth is the sign-in (context auth=true), nil without it; its Props
	// give the token checkers AUTH_ISSUER and AUTH_CLIENT_ID.
	Auth *auth.Auth
	// AuditArchive is the audit log's copy in S3 (context auditArchive),
	// nil without it.
	AuditArchive *auditarchive.Archive
}

// NewDataStack creates the tables; the links table replicates to every
// other region.
func NewDataStack(app awscdk.App, cfg Config) *DataStack {
	st := newStack(app, cfg, "Data", cfg.PrimaryRegion, "URL shortener: links and API keys global tables, idempotency and analytics tables")
	res, _ := cfg.Reservation() // checked in Validate
	t := tables.New(st, "Tables", tables.Props{
		ReplicaRegions:    cfg.SecondaryRegions(),
		Reservations:      res.Enabled(),
		Witness:           res.Witness,
		LinksClass:        awsdynamodb.TableClass(cfg.LinksTableClass),
		AnalyticsClass:    awsdynamodb.TableClass(cfg.AnalyticsTableClass),
		PITRLinksPrimary:  cfg.PITRLinks != PITROff,
		PITRLinksReplicas: cfg.PITRLinks == PITRAll,
		PITRAnalytics:     cfg.PITRAnalytics,
		OwnerIndexAll:     cfg.OwnerIndexProjection == "ALL",

		PITRReservationsPrimary:  cfg.PITRReservations != PITROff,
		PITRReservationsReplicas: cfg.PITRReservations == PITRAll,
		AuditRetentionDays:       cfg.AuditRetentionDays,
		AuditStream:              cfg.AuditArchive,
	})
	if t.Reservations != nil {
		out(st, "ReservationTableName", t.Reservations.TableName(), "Reservation table (MRSC): codes, versions, Idempotency-Keys")
	}
	out(st, "LinksTableName", t.Links.TableName(), "Links global table (replicated to every region)")
	out(st, "LinkTagsTableName", t.LinkTags.TableName(), "Tags of links: membership and per-owner counts, beside the links table")
	out(st, "AnalyticsTableName", t.Analytics.TableName(), "Click counts")
	out(st, "AuditTableName", t.Audit.TableName(), "Audit log (docs/audit.md)")
	secret := edge.NewOriginSecret(st, "OriginSecret", originSecretReplicas(cfg))
	arn := edge.OriginSecretARN(secret)
	out(st, "KeysTableName", t.Keys.TableName(), "API keys (hash -> owner): shortener keys --keys-table <this>")
	out(st, "MembersTableName", t.Members.TableName(), "Workspaces and their members: shortener members --members-table <this>")
	out(st, "OriginSecretArn", arn, "Origin secret, replicated to every region (rotation: docs/deploy.md)")
	d := &DataStack{Stack: st, Tables: t, OriginSecret: secret, OriginSecretARN: arn, Reservation: res,
		originSecretOutputs: map[string]awscdk.CfnOutput{}}
	if cfg.Auth != nil {
		// The user pool holds users, so it lives with the other data,
		// in the primary Region, retained like the tables.
		d.Auth = auth.New(st, "Auth", *cfg.Auth)
	}
	if cfg.AuditArchive {
		// The audit log's copy is data, kept with the tables.
		d.AuditArchive = auditarchive.New(st, "AuditArchive", auditarchive.Props{
			Mode: cfg.AuditArchiveMode, RetentionDays: cfg.AuditArchiveRetentionDays,
		})
		out(st, "AuditArchiveBucketName", d.AuditArchive.Bucket.BucketName(), "The audit log's copy, with Object Lock (docs/audit.md)")
	}
	return d
}

// OriginSecretARNIn is the ARN of the origin secret's copy in region, for
// a resource of consumer (another stack): the value of the data stack's
// output OriginSecretArn<Region>, read with a plain Fn::GetStackOutput. The
// data stack builds the replica's ARN from its own reference to the secret
// (edge.OriginSecretARNIn); built in the consumer, it would split the weak
// reference, and Fn::Split takes no Fn::GetStackOutput: CloudFormation
// refuses the template
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-split.html).
// The output is made on first use, so there is one for each region whose
// stacks read the secret.
func (d *DataStack) OriginSecretARNIn(consumer awscdk.Stack, region string) *string {
	o, ok := d.originSecretOutputs[region]
	if !ok {
		o = awscdk.NewCfnOutput(d.Stack, jsii.String("OriginSecretArn"+regionPart(region)), &awscdk.CfnOutputProps{
			Value:       edge.OriginSecretARNIn(d.OriginSecretARN, region),
			Description: jsii.String("The origin secret's copy in " + region + ", which that region's stacks read"),
		})
		d.originSecretOutputs[region] = o
	}
	// An explicit reference: CDK sees no token of the data stack in it.
	consumer.AddStackDependency(d.Stack, jsii.String("it reads the origin secret's ARN in "+region))
	// Same account: the consumer's own execution role reads the output
	// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-getstackoutput.html).
	return awscdk.Fn_GetStackOutput(d.StackName(), o.LogicalId(), d.Region(), nil)
}

// regionPart is region as a part of a logical ID: "us-west-2" -> "UsWest2".
func regionPart(region string) string {
	var b strings.Builder
	for _, p := range strings.Split(region, "-") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// originSecretReplicas are the regions that read the origin secret besides
// the primary: every other region's authorizer, and the edge stack's
// region, where CloudFormation resolves it for the distribution.
func originSecretReplicas(cfg Config) []string {
	out := cfg.SecondaryRegions()
	if cfg.PrimaryRegion != EdgeRegion && !slices.Contains(out, EdgeRegion) {
		out = append(out, EdgeRegion)
	}
	return out
}

// RegionalStack is one region's functions and APIs. With the reservation
// table (two or three Regions), every Region has the /v1 API and its
// functions; without it, the primary's only. The primary region's also
// holds what runs once for all: reclaim, the click pipeline, and the
// webhooks table, queue and delivery.
type RegionalStack struct {
	awscdk.Stack
	Region  string
	Primary bool

	Functions map[string]*golambda.Function // by name
	// Invalidators are the functions that invalidate the distribution
	// (manage), which the edge stack lets do so.
	Invalidators []*golambda.Function
	// Sweepers are the functions that sweep old link versions from the
	// edge's key value store (reclaim, with edgeVersionKeys), which the
	// edge stack lets do so.
	Sweepers  []*golambda.Function
	Redirect  *api.Redirect
	TTLStream *streamconsumer.Consumer

	// Management is the /v1 API; nil in a Region without it (V1Regions).
	Management *api.Management
	// Failover is the region's entry behind the shared /v1 name; nil
	// without a hosted zone or without /v1.
	Failover *failover.Region

	// Primary region only.
	Reclaim  *lifecycle.Reclaim
	Clicks   *clickpipeline.Pipeline
	Webhooks *webhooks.Webhooks
	// AuditArchive is the audit stream's mapping to auditarchive (context
	// auditArchive), nil without it.
	AuditArchive *streamconsumer.Consumer
}

// Memory and timeout per function. Go handlers are small; memory buys CPU,
// which the redirect's p99 and the stream consumers' batches use.
var functionSizes = map[string]struct {
	memoryMB int
	timeout  time.Duration
}{
	"redirect": {256, 5 * time.Second},
	// A string comparison, and a Secrets Manager read every 5 minutes.
	"originauth": {128, 5 * time.Second},
	// A keys-table GetItem (cached in-process) or a token check, on every
	// /v1 request: API Gateway caches none of its answers.
	"apiauth": {256, 5 * time.Second},
	// A batch of 100 creates works within API Gateway's 29 s.
	"create":    {256, 28 * time.Second},
	"manage":    {256, 10 * time.Second},
	"stats":     {256, 10 * time.Second},
	"ttlstream": {256, 60 * time.Second},
	"reclaim":   {256, 5 * time.Minute},
	"clicks":    {512, 2 * time.Minute},
	"webhooks":  {256, 10 * time.Second},
	// A batch of 10 deliveries sent at once, each bounded by
	// WEBHOOK_TIMEOUT (10 s), plus the table and queue calls.
	"webhookdelivery": {256, 60 * time.Second},
	"webhookstream":   {256, 60 * time.Second},
	// A batch of up to 1,000 entries, one PUT of some hundreds of KB.
	"auditarchive": {256, 60 * time.Second},
}

var functionDescriptions = map[string]string{
	"redirect":   "GET|HEAD /{code}: resolves a short code (CloudFront origin)",
	"originauth": "Redirect API authorizer: only requests carrying CloudFront's origin secret get through",
	"apiauth":    "/v1 API authorizer: an API key (keys table) or a signed-in user's token names the caller's owner and role",
	"create":     "POST /v1/links, POST /v1/links/batch: creates short links",
	"manage":     "GET /v1/links, GET|PATCH|DELETE /v1/links/{code}, GET /v1/links/{code}/qr, GET /v1/members, PUT|DELETE /v1/members/{user}, GET /v1/audit",
	"stats":      "GET /v1/links/{code}/stats, GET /v1/stats",
	"ttlstream":  "Links table stream: TTL deletions become tombstones in the primary region",
	"reclaim":    "Step Functions task: tombstones expired links, releases tombstones past their grace",
	"clicks":     "CloudFront real-time logs (Kinesis) -> click counts (and link.clicked webhook events)",
	"webhooks":   "POST|GET /v1/webhooks, DELETE /v1/webhooks/{id}, GET /v1/webhooks/{id}/deliveries",
	// Receivers are called from here only, through the SSRF guard.
	"webhookdelivery": "Webhook delivery queue (SQS): signs and sends each delivery, retries on the schedule",
	"webhookstream":   "Links table stream: link changes become webhook events on the delivery queue",
	"auditarchive":    "Audit table stream: each batch of new entries becomes one object in the bucket with Object Lock",
}

// V1Regions are the Regions whose stacks have the /v1 API: every Region
// with the reservation table, which keeps codes, versions and
// Idempotency-Keys unique across them; without it, the primary only.
func V1Regions(cfg Config) []string {
	if res, err := cfg.Reservation(); err == nil && res.Enabled() {
		return slices.Clone(cfg.Regions)
	}
	return []string{cfg.PrimaryRegion}
}

// RedirectOriginRegions are the Regions whose redirects serve the edge:
// the primary and, when set, the failover Region of the origin group. The
// management API reads their edge marks.
func RedirectOriginRegions(cfg Config) []string {
	out := []string{cfg.PrimaryRegion}
	if cfg.FailoverRegion != "" {
		out = append(out, cfg.FailoverRegion)
	}
	return out
}

// NewRegionalStack creates region's stack. primaryStack is the primary
// Region's, built first; nil when region is the primary.
func NewRegionalStack(app awscdk.App, cfg Config, region string, data *DataStack, primaryStack *RegionalStack) (*RegionalStack, error) {
	primary := region == cfg.PrimaryRegion
	v1 := slices.Contains(V1Regions(cfg), region)
	if err := checkRegional(cfg, region, data, primaryStack, primary, v1); err != nil {
		return nil, err
	}
	st := newStack(app, cfg, "Regional-"+region, region, regionalDescription(region, primary, v1))
	rs := &RegionalStack{Stack: st, Region: region, Primary: primary, Functions: map[string]*golambda.Function{}}
	b := newRegional(st, cfg, rs, data, v1)
	b.redirects()
	b.ttlStream()
	if primary {
		b.webhooks()
	}
	if v1 {
		b.v1API(primaryStack)
	}
	if primary {
		if err := b.reclaim(); err != nil {
			return nil, err
		}
		b.clicks()
		if cfg.AuditArchive {
			b.auditArchive()
		}
		out(st, "ReclaimStateMachineArn", rs.Reclaim.StateMachine.StateMachineArn(), "Reclaim state machine")
	}
	useReservations(st, data, region, b.writeLinks, rs.Functions)
	for _, name := range sortedKeys(rs.Functions) {
		b.mon.Functions = append(b.mon.Functions, monitoring.Function{Name: name, Fn: rs.Functions[name].Fn})
	}
	monitoring.New(st, "Monitoring", b.mon)
	out(st, "RedirectOrigin", rs.Redirect.OriginDomain, "Redirect HTTP API host (CloudFront origin)")
	return rs, nil
}

// checkRegional refuses a Region that would take creates without a
// replica of the reservation table, and a secondary Region built before
// the primary.
func checkRegional(cfg Config, region string, data *DataStack, primaryStack *RegionalStack, primary, v1 bool) error {
	// A Region taking creates without a replica of the reservation table
	// would check uniqueness against nothing: refuse it.
	if res := data.Reservation; v1 && res.Enabled() && !slices.Contains(res.Replicas, region) {
		return fmt.Errorf("regions: %s would have the /v1 API, but the reservation table has no replica there "+
			"(replicas %v): its creates would not be checked against the other Regions' codes", region, res.Replicas)
	}
	if !primary && primaryStack == nil {
		return fmt.Errorf("regional stack %s: the primary Region's stack (%s) must be built first", region, cfg.PrimaryRegion)
	}
	return nil
}

// regionalDescription is the regional stack's description: what runs in
// the Region.
func regionalDescription(region string, primary, v1 bool) string {
	switch {
	case primary:
		return "URL shortener: primary region (/v1 API, reclaim, clicks, webhook delivery) and redirects in " + region
	case v1:
		return "URL shortener: /v1 API, redirects and the TTL stream consumer in " + region
	}
	return "URL shortener: redirects and the TTL stream consumer in " + region
}

// regional is one regional stack while it is built: the tables its
// functions use, the function maker, and the monitoring it gathers.
type regional struct {
	st        awscdk.Stack
	cfg       Config
	rs        *RegionalStack
	data      *DataStack
	retention awslogs.RetentionDays
	// links is this Region's replica (reads, its stream, and the /v1
	// writes made here, after the reservation table); writeLinks the
	// primary's (ttlstream's tombstones).
	links, writeLinks awsdynamodb.ITableV2
	// writeLinkTags is the primary's tags table, written with writeLinks
	// (the expiry's tombstones take a link's tags away).
	writeLinkTags awsdynamodb.ITableV2
	env           env
	mon           monitoring.Props
}

// newRegional opens the tables of rs's Region and the environment its
// functions share.
func newRegional(st awscdk.Stack, cfg Config, rs *RegionalStack, data *DataStack, v1 bool) *regional {
	primary, region := rs.Primary, rs.Region
	linksName := data.Tables.Links.TableName()
	var linksStream *string
	if primary {
		linksStream = data.Tables.Links.TableStreamArn()
	}
	links := tables.LinksIn(st, "Links", linksName, region, linksStream, true)
	writeLinks := links
	if !primary {
		writeLinks = tables.LinksIn(st, "PrimaryLinks", linksName, cfg.PrimaryRegion, nil, false)
	}
	// Each function gets only the names of the tables it uses (fn).
	tableEnv := map[string]*string{"LINKS_TABLE": linksName, "LINK_TAGS_TABLE": tables.Name(data.Tables.LinkTags)}
	if v1 || primary {
		// (tables.Name: read from other Regions without renaming them.)
		tableEnv["IDEMPOTENCY_TABLE"] = tables.Name(data.Tables.Idempotency)
		tableEnv["ANALYTICS_TABLE"] = tables.Name(data.Tables.Analytics)
		tableEnv["KEYS_TABLE"] = tables.Name(data.Tables.Keys)
		tableEnv["MEMBERS_TABLE"] = tables.Name(data.Tables.Members)
		tableEnv["AUDIT_TABLE"] = tables.Name(data.Tables.Audit)
	}
	e, _ := functionEnv(cfg, tableEnv) // checked in Build
	return &regional{
		st: st, cfg: cfg, rs: rs, data: data, retention: retentionDays(cfg.LogRetentionDays),
		links: links, writeLinks: writeLinks, env: e,
		writeLinkTags: tables.In(st, "PrimaryLinkTags", tables.Name(data.Tables.LinkTags), cfg.PrimaryRegion),
	}
}

// fn creates the function name with the common environment and the names
// of the tables it uses.
func (b *regional) fn(name string, tables ...string) *golambda.Function {
	e := map[string]string{}
	for k, v := range b.env.common {
		e[k] = v
	}
	for _, t := range tables {
		e[t] = b.env.tables[t]
	}
	size := functionSizes[name]
	f := golambda.New(b.st, fnID(name), golambda.Props{
		Name:           name,
		AssetDir:       b.cfg.AssetDir,
		Description:    functionDescriptions[name],
		MemoryMB:       size.memoryMB,
		Timeout:        awscdk.Duration_Seconds(jsii.Number(size.timeout.Seconds())),
		Environment:    e,
		Retention:      b.retention,
		SystemLogLevel: b.cfg.SystemLogLevel,
	})
	b.rs.Functions[name] = f
	return f
}

// redirects adds the redirect function, its misses and edge marks
// tables, its authorizer and its HTTP API.
func (b *regional) redirects() {
	st, data, links := b.st, b.data, b.links
	// Redirects: read this region's replica, and count misses in this
	// region's misses table (one UpdateItem each), nothing else.
	misses := tables.NewMisses(st, "Misses")
	redirect := b.fn("redirect", "LINKS_TABLE")
	redirect.Fn.AddEnvironment(jsii.String("MISSES_TABLE"), misses.TableName(), nil)
	links.Grant(redirect.Role, jsii.String("dynamodb:GetItem"))
	misses.Grant(redirect.Role, jsii.String("dynamodb:UpdateItem"))
	// And marks the links the edge may hold in this Region's marks table
	// (shared/edgemarks), one UpdateItem per code and hour at most; with
	// edgeVersionKeys a change takes its link off the edge by a new
	// version whether or not an edge holds it, and no marks are kept.
	if !b.cfg.EdgeVersionKeys {
		marks := tables.NewEdgeMarks(st, "EdgeMarks", b.cfg.EdgeMarksTableName())
		redirect.Fn.AddEnvironment(jsii.String("EDGE_MARKS_TABLE"), marks.TableName(), nil)
		marks.Grant(redirect.Role, jsii.String("dynamodb:UpdateItem"))
	}
	if b.rs.Primary {
		// Click limits and password attempts: small counter items in the
		// idempotency table's key space (shared/dynamo),
		// one table for the whole service so the bounds hold globally. A
		// failover Region has none: there such links answer 503.
		redirect.Fn.AddEnvironment(jsii.String("COUNTERS_TABLE"), data.Tables.Idempotency.TableName(), nil)
		data.Tables.Idempotency.Grant(redirect.Role, jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:GetItem"))
	}
	// Only CloudFront's requests reach it: the authorizer reads the origin
	// secret's replica in this region.
	originAuth := b.fn("originauth")
	secretHere := data.OriginSecretARNIn(st, b.rs.Region)
	originAuth.Fn.AddEnvironment(jsii.String("ORIGIN_SECRET_ID"), secretHere, nil)
	awssecretsmanager.Secret_FromSecretCompleteArn(st, jsii.String("OriginSecret"), secretHere).GrantRead(originAuth.Role, nil)
	b.rs.Redirect = api.NewRedirect(st, "RedirectApi", api.RedirectProps{Function: redirect.Fn, Authorizer: originAuth.Fn})
}

// ttlStream adds the consumer of this Region's TTL deletions, and starts
// the monitoring with it and the redirects.
func (b *regional) ttlStream() {
	// TTL deletions happen in every region and are recognisable only where
	// they happened (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html), so every region consumes its own
	// stream; the tombstone is written to the primary (PRIMARY_REGION).
	ttl := b.fn("ttlstream", "LINKS_TABLE", "LINK_TAGS_TABLE")
	// UpdateItem: the tombstone is written in place, keeping an expired
	// link's after-expiry URL (dynamo.LinkStore.Tombstone); GetItem: the
	// link's tags, whose membership goes in the same transaction.
	b.writeLinks.Grant(ttl.Role, jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:GetItem"))
	b.writeLinkTags.Grant(ttl.Role, jsii.String("dynamodb:DeleteItem"), jsii.String("dynamodb:UpdateItem"))
	ttlConsumer := lifecycle.NewTTLConsumer(b.st, "TTLStream", lifecycle.TTLConsumerProps{Function: ttl.Fn, Links: b.links})
	b.rs.TTLStream = ttlConsumer
	b.mon = monitoring.Props{
		AlarmEmail:  b.cfg.AlarmEmail,
		RedirectAPI: b.rs.Redirect.API,
		Links:       b.links,
		Consumers: []monitoring.Consumer{{
			Name: "ttlstream", Fn: ttl.Fn, DeadLetters: ttlConsumer.DeadLetters,
			MaxIteratorAge: awscdk.Duration_Minutes(jsii.Number(10)),
		}},
	}
}

// webhooks adds, in the primary Region, the links stream's webhook
// consumer and the delivery function behind the queue, once for all
// Regions; the subscriptions table is read by every Region's webhooks API.
func (b *regional) webhooks() {
	delivery := b.fn("webhookdelivery")
	hookStream := b.fn("webhookstream")
	b.rs.Webhooks = webhooks.New(b.st, "Webhooks", webhooks.Props{
		Delivery: delivery.Fn, DeliveryTimeout: awscdk.Duration_Seconds(jsii.Number(functionSizes["webhookdelivery"].timeout.Seconds())),
		Stream: hookStream.Fn, Links: b.links,
	})
	hooks := b.rs.Webhooks
	for _, f := range []*golambda.Function{delivery, hookStream} {
		f.Fn.AddEnvironment(jsii.String("WEBHOOKS_TABLE"), hooks.Table.TableName(), nil)
		f.Fn.AddEnvironment(jsii.String("WEBHOOK_QUEUE_URL"), hooks.Queue.QueueUrl(), nil)
		hooks.Queue.GrantSendMessages(f.Role)
	}
	delivery.Fn.AddEnvironment(jsii.String("WEBHOOK_DLQ_URL"), hooks.DeadLetters.QueueUrl(), nil)
	hooks.DeadLetters.GrantSendMessages(delivery.Role)
	// GetItem: the subscription; UpdateItem: disable on 410; PutItem:
	// the attempt's record.
	hooks.Table.Grant(delivery.Role, jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:PutItem"))
	// The subscriptions without their secrets, and their version, once a batch.
	hooks.GrantFanOut(hookStream.Role)
}

// v1API adds the /v1 API on the webhooks table of the primary Region,
// this one's or primaryStack's.
func (b *regional) v1API(primaryStack *RegionalStack) {
	var hooksTable awsdynamodb.ITableV2
	var hooksName *string
	if b.rs.Primary {
		hooksTable, hooksName = b.rs.Webhooks.Table, b.rs.Webhooks.Table.TableName()
	} else {
		hooksName = tables.Name(primaryStack.Webhooks.Table)
		hooksTable = tables.In(b.st, "PrimaryWebhooks", hooksName, b.cfg.PrimaryRegion)
	}
	newV1(b.st, b.cfg, b.rs, b.data, b.links, hooksTable, hooksName, b.fn, b.retention)
	b.mon.RestAPI = b.rs.Management.API
}

// reclaim adds, in the primary Region, the reclaim function and its state
// machine.
func (b *regional) reclaim() error {
	links := b.links
	reclaim := b.fn("reclaim", "LINKS_TABLE", "LINK_TAGS_TABLE")
	grantIndexQuery(reclaim.Role, links, tableschema.IndexDueTombstones)
	grantIndexQuery(reclaim.Role, links, tableschema.IndexExpiringLinks)
	// UpdateItem: an expired link's tombstone, written in place and
	// conditioned on its expiry; DeleteItem: a due tombstone,
	// conditioned on its grace.
	links.Grant(reclaim.Role, jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:DeleteItem"))
	// An expired link's tags leave the tags table in the transaction of its
	// tombstone, read first (GetItem) to know which.
	links.Grant(reclaim.Role, jsii.String("dynamodb:GetItem"))
	b.writeLinkTags.Grant(reclaim.Role, jsii.String("dynamodb:DeleteItem"), jsii.String("dynamodb:UpdateItem"))
	// With edgeVersionKeys the run also sweeps the old link versions from
	// the store the edge parameter names (docs/cost-model.md, "Versioned
	// cache keys"); the edge stack makes the store, so it grants that
	// (NewEdgeStack), as it grants manage's puts.
	if b.cfg.EdgeVersionKeys {
		reclaim.Fn.AddEnvironment(jsii.String("EDGE_VERSION_KEYS"), jsii.String("true"), nil)
		readEdgeParameter(b.st, b.cfg.EdgeParameterName(), reclaim)
		b.rs.Sweepers = append(b.rs.Sweepers, reclaim)
	}
	definition, err := reclaimflow.Definition(*reclaim.Fn.FunctionArn())
	if err != nil {
		return fmt.Errorf("reclaim state machine definition: %w", err)
	}
	b.rs.Reclaim = lifecycle.NewReclaim(b.st, "Reclaim", lifecycle.ReclaimProps{
		Function: reclaim.Fn, Definition: definition, Schedule: b.cfg.ReclaimSchedule, Retention: b.retention,
	})
	return nil
}

// clicks adds, in the primary Region, the click pipeline and its
// function, and the primary's share of the monitoring.
func (b *regional) clicks() {
	st, data, links, hooks := b.st, b.data, b.links, b.rs.Webhooks
	clicks := b.fn("clicks", "ANALYTICS_TABLE", "LINKS_TABLE")
	// The packed layout (clickstore/packedclicks): UpdateItem the
	// checkpoints, PutItem rollups (in the checkpoint's transaction),
	// segments, day items and the compaction's state, GetItem and Query
	// them back, DeleteItem the day items a closed day's fold replaced.
	data.Tables.Analytics.Grant(clicks.Role, jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:PutItem"),
		jsii.String("dynamodb:DeleteItem"), jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:Query"))
	clicks.Fn.AddEnvironment(jsii.String("SHORTENER_CLICK_STORE"), jsii.String(config.ClickStorePacked), nil)
	// link.clicked: a code's owner from the links table, the owner's
	// subscriptions, and the queue.
	links.Grant(clicks.Role, jsii.String("dynamodb:GetItem"))
	// The subscriptions without their secrets, and their version, read once a batch.
	hooks.GrantFanOut(clicks.Role)
	clicks.Fn.AddEnvironment(jsii.String("WEBHOOKS_TABLE"), hooks.Table.TableName(), nil)
	clicks.Fn.AddEnvironment(jsii.String("WEBHOOK_QUEUE_URL"), hooks.Queue.QueueUrl(), nil)
	hooks.Queue.GrantSendMessages(clicks.Role)
	b.rs.Clicks = clickpipeline.New(st, "Clicks", clickpipeline.Props{Function: clicks.Fn, Shards: b.cfg.KinesisShards})
	// The link.clicked events kept while the queue failed are queued
	// even when no clicks come.
	clickpipeline.NewEventsRetry(st, "ClickEventsRetry", clicks.Fn)

	mon := &b.mon
	mon.StateMachine = b.rs.Reclaim.StateMachine
	mon.ReplicaRegions = b.cfg.SecondaryRegions()
	mon.Analytics = data.Tables.Analytics
	mon.ClickStream = b.rs.Clicks.Stream
	mon.ClickStreamShards = b.cfg.KinesisShards
	mon.ClickCompaction = &monitoring.Function{Name: "clicks", Fn: clicks.Fn}
	mon.Consumers = append(mon.Consumers, monitoring.Consumer{
		Name: "clicks", Fn: clicks.Fn, DeadLetters: b.rs.Clicks.Consumer.DeadLetters,
		MaxIteratorAge: awscdk.Duration_Minutes(jsii.Number(5)),
	}, monitoring.Consumer{
		Name: "webhookstream", Fn: b.rs.Functions["webhookstream"].Fn, DeadLetters: hooks.StreamConsumer.DeadLetters,
		MaxIteratorAge: awscdk.Duration_Minutes(jsii.Number(10)),
	})
	mon.DeadLetterQueues = append(mon.DeadLetterQueues, monitoring.DeadLetterQueue{
		Name: "webhookdelivery", Queue: hooks.DeadLetters,
		What: "Webhook deliveries gave up (retries spent, or the function kept failing): read the messages, redrive them once the cause is fixed",
	})
}

// auditArchive adds, in the primary Region, the function that copies the
// audit table's new entries to the bucket with Object Lock: the primary's
// replica receives every Region's entries through replication, so one
// consumer sees them all.
func (b *regional) auditArchive() {
	archive := b.data.AuditArchive
	fn := b.fn("auditarchive")
	fn.Fn.AddEnvironment(jsii.String("AUDIT_ARCHIVE_BUCKET"), archive.Bucket.BucketName(), nil)
	archive.GrantPut(fn.Role)
	audit := tables.LinksIn(b.st, "AuditStream", tables.Name(b.data.Tables.Audit), b.rs.Region, b.data.Tables.Audit.TableStreamArn(), true)
	b.rs.AuditArchive = auditarchive.NewConsumer(b.st, "AuditArchive", auditarchive.ConsumerProps{Function: fn.Fn, Audit: audit})
	b.mon.Consumers = append(b.mon.Consumers, monitoring.Consumer{
		Name: "auditarchive", Fn: fn.Fn, DeadLetters: b.rs.AuditArchive.DeadLetters,
		MaxIteratorAge: awscdk.Duration_Minutes(jsii.Number(30)),
	})
}

// newV1 adds the /v1 REST API and its functions to rs's stack: create,
// manage and stats on this Region's replicas of the links and keys tables
// (and of the reservation table, useReservations), the webhooks API on
// hooksTable named hooksName (the primary Region's), stats on the analytics table in the
// primary Region. Every grant names this Region's replica, or the one
// primary-only table, and nothing wider.
func newV1(st awscdk.Stack, cfg Config, rs *RegionalStack, data *DataStack, links, hooksTable awsdynamodb.ITableV2, hooksName *string,
	fn func(string, ...string) *golambda.Function, retention awslogs.RetentionDays) {
	region := rs.Region
	// Who calls: the owner of the request's API key, read from this
	// region's replica of the keys table. Operators write keys (shortener
	// keys, with their own credentials), and manage's keys API in the
	// primary Region's replica.
	keys := tables.KeysIn(st, "Keys", tables.Name(data.Tables.Keys), region)

	// With the reservation table, Idempotency-Key claims live in it (a
	// retry in another Region meets them): create has no use for the
	// idempotency table, which is the primary's only, and no grant on it.
	createTables := []string{"LINKS_TABLE", "KEYS_TABLE", "LINK_TAGS_TABLE"}
	if !data.Reservation.Enabled() {
		createTables = append(createTables, "IDEMPOTENCY_TABLE")
	}
	// The audit log, this Region's replica: writers get PutItem and
	// nothing else (each write conditioned on attribute_not_exists, so
	// none replaces an entry), the reader (manage) Query besides; no role
	// may update or delete an entry (docs/audit.md).
	auditLog := tables.In(st, "Audit", tables.Name(data.Tables.Audit), region)
	createTables = append(createTables, "AUDIT_TABLE")
	create := fn("create", createTables...)
	links.Grant(create.Role, jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:GetItem"))
	auditLog.Grant(create.Role, jsii.String("dynamodb:PutItem"))
	keys.Grant(create.Role, jsii.String("dynamodb:GetItem"))
	// A tagged link's membership and counters, in its create's transaction.
	linkTags := tables.In(st, "LinkTags", tables.Name(data.Tables.LinkTags), region)
	linkTags.Grant(create.Role, jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:UpdateItem"))
	if !data.Reservation.Enabled() {
		data.Tables.Idempotency.Grant(create.Role, jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:GetItem"))
	}

	manage := fn("manage", "LINKS_TABLE", "KEYS_TABLE", "LINK_TAGS_TABLE", "MEMBERS_TABLE", "AUDIT_TABLE")
	links.Grant(manage.Role, jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:PutItem"))
	auditLog.Grant(manage.Role, jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:Query"))
	keys.Grant(manage.Role, jsii.String("dynamodb:GetItem"))
	// The keys API (admins only) writes the primary Region's replica of
	// the keys table, where its conditions are checked against one
	// replica (managefn.Build): a new key's PutItem, a revocation's
	// UpdateItem, a rotation's strongly consistent GetItem, and a Query
	// of the by-owner index to list a workspace's keys. Never a Scan.
	primaryKeys := tables.KeysIn(st, "PrimaryKeys", tables.Name(data.Tables.Keys), cfg.PrimaryRegion)
	primaryKeys.Grant(manage.Role, jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:UpdateItem"))
	grantIndexQuery(manage.Role, primaryKeys, tableschema.IndexKeysByOwner)
	grantIndexQuery(manage.Role, links, tableschema.IndexByOwner)
	// Listings read by-owner-all once DescribeTable says it is built;
	// edits and deletes move a link's tags in the tags table, which GET
	// /v1/tags and tag listings Query.
	grantIndexQuery(manage.Role, links, tableschema.IndexByOwnerAll)
	links.Grant(manage.Role, jsii.String("dynamodb:DescribeTable"))
	linkTags.Grant(manage.Role, jsii.String("dynamodb:Query"), jsii.String("dynamodb:PutItem"), jsii.String("dynamodb:UpdateItem"),
		jsii.String("dynamodb:DeleteItem"))
	// The members API (admins only) reads and writes the primary Region's
	// replica of the members table: one member item and the workspace's
	// record per change, in one transaction (whose IAM actions are its
	// items' own), and a Query of one workspace's members.
	members := tables.In(st, "PrimaryMembers", tables.Name(data.Tables.Members), cfg.PrimaryRegion)
	members.Grant(manage.Role, jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:PutItem"),
		jsii.String("dynamodb:UpdateItem"), jsii.String("dynamodb:DeleteItem"), jsii.String("dynamodb:Query"))
	// manage invalidates the edge after an edit or delete. The
	// distribution is in the edge stack, which depends on this one, so
	// no reference can name it here (it would be a cycle): the edge
	// stack publishes it in this Region's parameter, read when first
	// needed, and grants the invalidation itself (NewEdgeStack). create
	// invalidates nothing (a new alias's cached 404 leaves the edge
	// within the promise by itself: docs/lifecycle.md, section 6), and
	// reads the parameter for the distribution's own host: the short
	// links' host without a custom domain, one to refuse links to beside it.
	readEdgeParameter(st, cfg.EdgeParameterName(), manage, create)
	rs.Invalidators = append(rs.Invalidators, manage)
	// manage invalidates a change only when the edge may hold the link:
	// it fences the marks of every Region the edge's redirect origin group
	// reaches, each by its exact ARN (a fixed name, so no cross-Region
	// reference), with one conditional UpdateItem that returns the mark
	// it replaced (shared/edgemarks: a lagging replica's redirect cannot
	// mark old data after it). It reads nothing else there.
	// With edgeVersionKeys it puts a new version of every changed link
	// into the store the edge parameter names (the edge stack grants
	// that, NewEdgeStack), and fences no marks.
	if cfg.EdgeVersionKeys {
		manage.Fn.AddEnvironment(jsii.String("EDGE_VERSION_KEYS"), jsii.String("true"), nil)
	} else {
		var marks []string
		for _, r := range RedirectOriginRegions(cfg) {
			t := tables.In(st, "EdgeMarks-"+r, jsii.String(cfg.EdgeMarksTableName()), r)
			t.Grant(manage.Role, jsii.String("dynamodb:UpdateItem"))
			marks = append(marks, *t.TableArn())
		}
		manage.Fn.AddEnvironment(jsii.String("EDGE_MARKS_TABLES"), awscdk.Fn_Join(jsii.String(","), jsii.Strings(marks...)), nil)
	}

	// The subscriptions API; delivery runs in the primary Region only.
	hooksAPI := fn("webhooks", "KEYS_TABLE", "AUDIT_TABLE")
	keys.Grant(hooksAPI.Role, jsii.String("dynamodb:GetItem"))
	// Its entries go in the subscriptions' transactions, on the primary
	// Region's replica of the audit log, beside the webhooks table.
	primaryAudit := auditLog
	if region != cfg.PrimaryRegion {
		primaryAudit = tables.In(st, "PrimaryAudit", tables.Name(data.Tables.Audit), cfg.PrimaryRegion)
	}
	primaryAudit.Grant(hooksAPI.Role, jsii.String("dynamodb:PutItem"))
	hooksAPI.Fn.AddEnvironment(jsii.String("WEBHOOKS_TABLE"), hooksName, nil)
	// UpdateItem: the subscriptions' version, raised in the transaction of
	// every create and delete (dynamo.WebhookStore).
	hooksTable.Grant(hooksAPI.Role, jsii.String("dynamodb:GetItem"), jsii.String("dynamodb:PutItem"),
		jsii.String("dynamodb:DeleteItem"), jsii.String("dynamodb:Query"), jsii.String("dynamodb:UpdateItem"))

	// The counts are in the primary Region's analytics table (clicks
	// writes it there): outside the primary, one cross-Region read.
	stats := fn("stats", "LINKS_TABLE", "ANALYTICS_TABLE", "KEYS_TABLE", "LINK_TAGS_TABLE")
	links.Grant(stats.Role, jsii.String("dynamodb:GetItem"))
	// GET /v1/stats lists the owner's newest links (the by-owner index),
	// and with ?tag= the tag's links (a Query of the tags table).
	grantIndexQuery(stats.Role, links, tableschema.IndexByOwner)
	linkTags.Grant(stats.Role, jsii.String("dynamodb:Query"))
	keys.Grant(stats.Role, jsii.String("dynamodb:GetItem"))
	analytics := tables.In(st, "Analytics", tables.Name(data.Tables.Analytics), cfg.PrimaryRegion)
	analytics.Grant(stats.Role, jsii.String("dynamodb:Query"), jsii.String("dynamodb:GetItem"))
	// The layout the clicks function writes (shared/config ClickStore).
	stats.Fn.AddEnvironment(jsii.String("SHORTENER_CLICK_STORE"), jsii.String(config.ClickStorePacked), nil)

	// The authorizer runs before every /v1 function: it reads a key's
	// record in this Region's replica of the keys table, nothing else.
	apiAuth := fn("apiauth", "KEYS_TABLE", "MEMBERS_TABLE")
	keys.Grant(apiAuth.Role, jsii.String("dynamodb:GetItem"))
	// and, for a signed-in user, one membership (GetItem) or the user's
	// memberships (a Query of the by-user index) in this Region's replica
	// of the members table, nothing else of it.
	localMembers := tables.KeysIn(st, "Members", tables.Name(data.Tables.Members), region)
	localMembers.Grant(apiAuth.Role, jsii.String("dynamodb:GetItem"))
	grantIndexQuery(apiAuth.Role, localMembers, tableschema.IndexByUser)
	if data.Auth != nil {
		// Signed-in users' tokens: the user pool's issuer and the
		// console's app client, from the data stack (a weak reference,
		// so any Region may read them).
		env := data.Auth.Props.Environment()
		for _, k := range slices.Sorted(maps.Keys(env)) {
			apiAuth.Fn.AddEnvironment(jsii.String(k), env[k], nil)
		}
	}

	rs.Management = api.NewManagement(st, "ManagementApi", api.ManagementProps{
		Create: create.Fn, Manage: manage.Fn, Stats: stats.Fn, Webhooks: hooksAPI.Fn, HealthTable: links, Authorizer: apiAuth,
		RateLimit: cfg.APIRateLimit, BurstLimit: cfg.APIBurstLimit, QuotaPerDay: cfg.APIQuotaPerDay,
		Retention: retention,
	})
	if cfg.APIDomainName != "" {
		// /v1 reaches this region through the name every region shares,
		// while its health check passes.
		rs.Failover = failover.New(st, "Failover", failover.Props{
			ZoneID: cfg.HostedZoneID, ZoneName: cfg.HostedZoneName, DomainName: cfg.APIDomainName,
			API: rs.Management.API, HealthHost: rs.Management.OriginDomain, HealthPath: rs.Management.OriginPath + api.HealthPath,
		})
		out(st, "ApiHealthCheckId", rs.Failover.HealthCheck.HealthCheckId(), "Route 53 health check of this region's /v1 API")
	}
	out(st, "ManagementApiUrl", rs.Management.API.Url(), "The /v1 API's own endpoint (use the distribution's)")
	out(st, "UsagePlanId", rs.Management.UsagePlan.UsagePlanId(), "The /v1 usage plan of this Region (its one key is the deployment's; keys are not added to it)")
}

// readEdgeParameter gives each function the edge parameter's name
// (EDGE_PARAMETER) and lets it read that one parameter in this Region.
func readEdgeParameter(st awscdk.Stack, name string, fns ...*golambda.Function) {
	arn := st.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("ssm"), Resource: jsii.String("parameter"),
		ResourceName: jsii.String(strings.TrimPrefix(name, "/")),
	})
	for _, f := range fns {
		f.Fn.AddEnvironment(jsii.String("EDGE_PARAMETER"), jsii.String(name), nil)
		awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
			Grantee:      f.Role,
			Actions:      jsii.Strings("ssm:GetParameter"),
			ResourceArns: jsii.Strings(*arn),
		})
	}
}

// grantIndexQuery lets grantee Query one index of table: the grants on an
// imported table cover the table itself, and TableV2's cover every index.
func grantIndexQuery(grantee awsiam.IGrantable, table awsdynamodb.ITableV2, index string) {
	awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings("dynamodb:Query"),
		ResourceArns: jsii.Strings(*table.TableArn() + "/index/" + index),
	})
}

// EdgeStack is the CloudFront distribution, in us-east-1.
type EdgeStack struct {
	awscdk.Stack
	Edge         *edge.Edge
	Console      *webconsole.Console
	CustomDomain string
	Published    *edge.Published
}

// NewEdgeStack creates the distribution in front of the regional stacks.
func NewEdgeStack(app awscdk.App, cfg Config, s *Stacks) *EdgeStack {
	st := newStack(app, cfg, "Edge", EdgeRegion, "URL shortener: CloudFront distribution, real-time logs, WAF, web console")
	primary := s.Regional[cfg.PrimaryRegion]
	var origins []*string
	for _, r := range RedirectOriginRegions(cfg) {
		origins = append(origins, s.Regional[r].Redirect.OriginDomain)
	}
	wp := webconsole.Props{BuildDir: webconsole.BuildDir(cfg.AssetDir)}
	if a := s.Data.Auth; a != nil {
		// The console signs in through the user pool's hosted domain.
		wp.Auth = &webconsole.Auth{
			HostedDomainURL: auth.HostedDomainURL(cfg.Auth.DomainPrefix, cfg.Auth.Region),
			Issuer:          a.Props.Issuer, ClientID: a.Props.ClientID,
			RedirectURI: auth.ConsoleURL(cfg.Auth.DomainName),
		}
	}
	wc := webconsole.New(st, "Console", wp)
	// /v1: without a hosted zone, the primary region's API; with one, the
	// name whose latency records leave out a region failing its health
	// check (docs/deploy.md, "Failover"). Origin groups would fail over
	// GET and HEAD only.
	apiOrigin, apiOriginPath := primary.Management.OriginDomain, primary.Management.OriginPath
	if cfg.APIDomainName != "" {
		apiOrigin, apiOriginPath = jsii.String(cfg.APIDomainName), ""
		for _, r := range sortedKeys(s.Regional) {
			if s.Regional[r].Failover != nil {
				st.AddStackDependency(s.Regional[r].Stack, jsii.String("its /v1 record and domain serve the /v1 origin"))
			}
		}
	}
	e := edge.New(st, "Edge", edge.Props{
		RedirectOrigins:      origins,
		ManagementOrigin:     apiOrigin,
		ManagementOriginPath: apiOriginPath,
		OriginSecretARN:      s.Data.OriginSecretARNIn(st, EdgeRegion),
		OriginSecretVersion:  cfg.OriginSecretVersion,
		ClickStreamARN:       primary.Clicks.Stream.StreamArn(),
		DomainName:           cfg.DomainName,
		CertificateARN:       cfg.CertificateARN,
		WAF:                  cfg.WAF,
		WAFRateLimit:         cfg.WAFRateLimit,
		VersionKeys:          cfg.EdgeVersionKeys,
		Console:              wc.Edge,
	})
	checks := map[string]*string{}
	for r, rs := range s.Regional {
		if rs.Failover != nil {
			checks[r] = rs.Failover.HealthCheck.HealthCheckId()
		}
	}
	monitoring.New(st, "Monitoring", monitoring.Props{AlarmEmail: cfg.AlarmEmail, Distribution: e.Distribution, APIHealthChecks: checks})
	// The functions were created before the distribution: tell them.
	var invalidators, sweepers []*string
	for _, r := range sortedKeys(s.Regional) {
		for _, f := range s.Regional[r].Invalidators {
			invalidators = append(invalidators, f.Role.Node().DefaultChild().(awsiam.CfnRole).Ref())
		}
		for _, f := range s.Regional[r].Sweepers {
			sweepers = append(sweepers, f.Role.Node().DefaultChild().(awsiam.CfnRole).Ref())
		}
	}
	published := edge.Publish(st, "Publish", edge.PublishProps{
		Distribution: e.Distribution, ParameterName: cfg.EdgeParameterName(), Regions: cfg.Regions, Invalidators: invalidators,
		VersionStore: e.VersionStore, Sweepers: sweepers,
	})
	out(st, "DistributionId", e.Distribution.DistributionId(), "The distribution (published to the functions in the "+cfg.EdgeParameterName()+" parameter)")
	out(st, "DistributionDomainName", e.Distribution.DistributionDomainName(),
		"CNAME target for the custom domain; without one, the short links' host")
	return &EdgeStack{Stack: st, Edge: e, Console: wc, CustomDomain: cfg.DomainName, Published: published}
}

// env is what the functions are configured with: settings every function
// gets and the table names each gets only if it uses the table.
type env struct {
	common map[string]string
	tables map[string]string
}

// functionEnv builds the functions' environment from cfg and checks it
// with the functions' own loader (shared/config), so a setting the
// handlers would refuse fails the synthesis, not a cold start.
func functionEnv(cfg Config, tableNames map[string]*string) (env, error) {
	e := env{
		common: map[string]string{
			"SHORTENER_CODE_LENGTH":      strconv.Itoa(cfg.CodeLength),
			"SHORTENER_ALIAS_MIN_LENGTH": strconv.Itoa(cfg.AliasMinLength),
			"SHORTENER_ALIAS_MAX_LENGTH": strconv.Itoa(cfg.AliasMaxLength),
			"SHORTENER_DEFAULT_TTL":      cfg.DefaultTTL.String(),
			"SHORTENER_TOMBSTONE_GRACE":  cfg.TombstoneGrace.String(),
			"SHORTENER_EDGE_TTL":         strconv.Itoa(cfg.EdgeTTLSeconds),
			"SHORTENER_CACHE_TTL":        cfg.CacheTTL.String(),
			"PRIMARY_REGION":             cfg.PrimaryRegion,
			"SHORTENER_MISS_BUDGET":      strconv.Itoa(cfg.MissBudget),
			"SHORTENER_MISS_WINDOW":      cfg.MissWindow.String(),
		},
		tables: map[string]string{},
	}
	if base := cfg.BaseURL(); base != "" {
		e.common["SHORTENER_BASE_URL"] = base
	}
	if cfg.AuditRetentionDays > 0 {
		// The audit writers' entries carry purge_at for the table's TTL.
		e.common["AUDIT_RETENTION_DAYS"] = strconv.Itoa(cfg.AuditRetentionDays)
	}
	for k, v := range tableNames {
		e.tables[k] = *v
	}
	check := map[string]string{"LINKS_TABLE": "links", "IDEMPOTENCY_TABLE": "idempotency", "KEYS_TABLE": "keys", "LINK_TAGS_TABLE": "link-tags"}
	for k, v := range e.common {
		check[k] = v
	}
	if _, err := config.Load(func(k string) string { return check[k] }); err != nil {
		return env{}, fmt.Errorf("function settings: %w", err)
	}
	return e, nil
}

func fnID(name string) string {
	// "ttlstream" -> "TtlstreamFunction": stable logical IDs per function.
	return string(name[0]-'a'+'A') + name[1:] + "Function"
}

func out(scope constructs.Construct, id string, value *string, description string) {
	awscdk.NewCfnOutput(scope, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(description)})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// retentionDays maps a validated day count to CDK's enum.
func retentionDays(days int) awslogs.RetentionDays {
	return map[int]awslogs.RetentionDays{
		1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS, 5: awslogs.RetentionDays_FIVE_DAYS,
		7: awslogs.RetentionDays_ONE_WEEK, 14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
		60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS, 120: awslogs.RetentionDays_FOUR_MONTHS,
		150: awslogs.RetentionDays_FIVE_MONTHS, 180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
		400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS, 731: awslogs.RetentionDays_TWO_YEARS,
		1096: awslogs.RetentionDays_THREE_YEARS, 1827: awslogs.RetentionDays_FIVE_YEARS, 2192: awslogs.RetentionDays_SIX_YEARS,
		2557: awslogs.RetentionDays_SEVEN_YEARS, 2922: awslogs.RetentionDays_EIGHT_YEARS, 3288: awslogs.RetentionDays_NINE_YEARS,
		3653: awslogs.RetentionDays_TEN_YEARS,
	}[days]
}
