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
	CloudFrontHTTPSPer10k Price // requests
	CloudFrontGBOut       Price // data transfer out, first 10 TB tier
	RealtimeLogPerMillion Price // log lines
	KinesisStreamHour     Price // on-demand
	KinesisIngestGB       Price // on-demand, each record rounded up to 1 KB (S45)
	KinesisRetrieveGB     Price // on-demand
	HTTPAPIPerMillion     Price // first 300 M
	HTTPAPIPerMillionOver Price // beyond 300 M
	RESTPerMillion        Price // first 333 M
	RESTPerMillionOver    Price // beyond 333 M
	LambdaPerMillion      Price
	LambdaGBSecond        Price // arm64
	DynamoRRUPerMillion   Price
	DynamoWRUPerMillion   Price // replicated WRU costs the same (S5)
	DynamoStorageGBMonth  Price
	DynamoPITRGBMonth     Price
	StepFunctionsPer1000  Price // Standard state transitions
	CloudWatchLogsGB      Price // ingestion
	WAFPerMillion         Price
	WAFMonthlyFixed       Price // one web ACL with one rule
	SQSPerMillion         Price // standard queue requests
}

// PricesRead is the date the prices were read from the pages docs/sources.md lists.
const PricesRead = "2026-11-30"

// DefaultPrices are the list prices the document uses.
func DefaultPrices() Prices {
	return Prices{
		CloudFrontHTTPSPer10k: Price{0.0100, "10,000 HTTPS requests (US)", "S31"},
		CloudFrontGBOut:       Price{0.085, "GB out (US/EU, first 10 TB; applied to all volume)", "S30"},
		RealtimeLogPerMillion: Price{0.01, "1 M log lines", "S19"},
		KinesisStreamHour:     Price{0.04, "on-demand stream-hour", "UNCONFIRMED"},
		KinesisIngestGB:       Price{0.08, "GB written, on demand (records rounded up to 1 KB, S45)", "UNCONFIRMED"},
		KinesisRetrieveGB:     Price{0.04, "GB read, on demand", "UNCONFIRMED"},
		HTTPAPIPerMillion:     Price{1.00, "1 M HTTP API requests (first 300 M)", "S34"},
		HTTPAPIPerMillionOver: Price{0.90, "1 M HTTP API requests (over 300 M)", "S34"},
		RESTPerMillion:        Price{3.50, "1 M REST API requests (first 333 M)", "S34"},
		RESTPerMillionOver:    Price{2.80, "1 M REST API requests (over 333 M)", "S34"},
		LambdaPerMillion:      Price{0.20, "1 M Lambda requests", "S37"},
		LambdaGBSecond:        Price{0.0000133334, "GB-second, arm64", "S37"},
		DynamoRRUPerMillion:   Price{0.125, "1 M read request units, on demand", "S41"},
		DynamoWRUPerMillion:   Price{0.625, "1 M write request units (and replicated WRU, S5), on demand", "S41"},
		DynamoStorageGBMonth:  Price{0.25, "GB-month of table storage (Standard class)", "UNCONFIRMED"},
		DynamoPITRGBMonth:     Price{0.20, "GB-month of PITR (2nd hand)", "S44"},
		StepFunctionsPer1000:  Price{0.025, "1,000 Standard state transitions", "S46"},
		CloudWatchLogsGB:      Price{0.50, "GB of CloudWatch Logs ingested", "UNCONFIRMED"},
		WAFPerMillion:         Price{0.60, "1 M requests inspected by WAF", "UNCONFIRMED"},
		WAFMonthlyFixed:       Price{6.00, "web ACL ($5) + one rule ($1) per month", "UNCONFIRMED"},
		SQSPerMillion:         Price{0.40, "1 M SQS standard requests (64 KB each; aws.amazon.com/sqs/pricing)", "UNCONFIRMED"},
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

// Assumptions are the model's inputs that are not prices or load.
type Assumptions struct {
	Regions int // regional stacks (links replicas)

	APICallsPerCreate  float64 // /v1 requests per create (the POST plus reads, edits, stats)
	RedirectRespBytes  float64 // bytes CloudFront sends per redirect (status, Location, headers)
	APIRespBytes       float64
	LogRecordBytes     float64 // one real-time log record (10 fields)
	InProcessCacheHits float64 // share of origin redirects the function answers from memory

	RedirectMemGB, RedirectMs float64
	APIMemGB, APIMs           float64 // create, manage, stats
	ClicksMemGB, ClicksMs     float64 // per invocation
	ClicksBatch               float64 // records per clicks invocation
	ReclaimMemGB, ReclaimMs   float64 // per reclaim invocation
	ReclaimPerInvocation      float64

	IdempotentShare float64 // creates with an Idempotency-Key (a two-item transaction)
	ItemKB          float64 // a link item, rounded up to whole KB for writes

	// Expiries per create: in the steady state (after the first default
	// TTL) as many links expire per month as are created.
	ExpiriesPerCreate float64

	// ClickWRU is what counting one click writes to the analytics table,
	// as `make cost` measures it on a seed-shaped stream (cmd/cost; the run
	// is named in docs/cost-model.md): today one item per code and hour,
	// day, country-day and referrer-day, written in transactions at 2 WRU
	// per KB, after aggregation within each batch.
	ClickWRU float64

	// CloudWatch Logs per Lambda invocation (START, END, REPORT lines) and
	// per /v1 request (access log).
	PlatformLogBytes  float64
	AccessLogBytes    float64
	MonthsOfLinksKept float64 // live links = creates x this (the default TTL, 5 years)
	StoredItemBytes   float64 // item plus DynamoDB's per-item overhead
	WAF               bool

	// Webhooks. Every link change passes the links stream's webhook
	// consumer, which reads its owner's subscriptions (one strongly
	// consistent Query, 1 RRU); every code of every click batch costs its
	// owner's lookup (GetItem, 0.5 RRU), and every distinct owner of a
	// batch the subscriptions' Query. Only the events someone subscribed
	// to become deliveries.
	LinkEventsPerCreate float64 // created, updated, deleted or expired
	ClickCodesPerBatch  float64 // distinct codes in one clicks batch
	ClickOwnersPerBatch float64 // distinct owners of those codes
	SubscribedShare     float64 // events that have a subscription to go to
	// A delivery: SQS send, receive, delete (3 requests), a tenth of a
	// Lambda invocation, the subscription's read (1 RRU) and the attempt's
	// record (1 WRU).
	DeliveryMemGB, DeliveryMs float64 // per delivery batch of 10
}

// MeasuredClickWRU is the WRU per click `make cost` printed for today's
// design: 100,000 clicks over 100,000 links, Zipf s=1, batches of up to
// 1,000 records of one of 4 shards (docs/cost-model.md, "Measured").
const MeasuredClickWRU = 6.79

// DefaultAssumptions are the document's.
func DefaultAssumptions() Assumptions {
	return Assumptions{
		Regions:              2,
		APICallsPerCreate:    1.2,
		RedirectRespBytes:    700,
		APIRespBytes:         1000,
		LogRecordBytes:       400,
		InProcessCacheHits:   0,
		RedirectMemGB:        0.25,
		RedirectMs:           6,
		APIMemGB:             0.25,
		APIMs:                20,
		ClicksMemGB:          0.5,
		ClicksMs:             250,
		ClicksBatch:          1000,
		ReclaimMemGB:         0.25,
		ReclaimMs:            2000,
		ReclaimPerInvocation: 1000,
		IdempotentShare:      0.5,
		ItemKB:               1,
		ExpiriesPerCreate:    1,
		ClickWRU:             MeasuredClickWRU,
		PlatformLogBytes:     350,
		AccessLogBytes:       350,
		MonthsOfLinksKept:    60,
		StoredItemBytes:      450,
		WAF:                  true,
		LinkEventsPerCreate:  2.2,
		ClickCodesPerBatch:   300,
		ClickOwnersPerBatch:  100,
		SubscribedShare:      0.05,
		DeliveryMemGB:        0.25,
		DeliveryMs:           400,
	}
}

// Group is a part of the service a line belongs to.
type Group string

// The groups, in the document's order.
const (
	Serving   Group = "Serving (redirects and /v1)"
	Analytics Group = "Click analytics"
	Lifecycle Group = "Expiry and reclaim"
	Platform  Group = "Storage, logs, WAF"
	Webhooks  Group = "Webhooks"
)

// Groups in order.
var Groups = []Group{Serving, Analytics, Lifecycle, Platform, Webhooks}

// Line is one component's monthly cost.
type Line struct {
	Group     Group
	Component string
	USD       float64
}

// Estimate is the month's cost at hit (the edge cache hit ratio, 0-1).
type Estimate struct {
	Load     Load
	HitRatio float64
	Lines    []Line
	Floor    float64 // CloudFront's request fee for the redirects alone
	Total    float64
	ByGroup  map[Group]float64
}

const (
	gb          = 1e9
	million     = 1e6
	hoursPerMon = 730
)

// tiered prices q units (millions) at first up to limit, then over.
func tiered(qMillions, limitMillions float64, first, over Price) float64 {
	if qMillions <= limitMillions {
		return qMillions * first.USD
	}
	return limitMillions*first.USD + (qMillions-limitMillions)*over.USD
}

// Compute prices one load at one hit ratio.
func Compute(l Load, hit float64, p Prices, a Assumptions) Estimate {
	e := Estimate{Load: l, HitRatio: hit, ByGroup: map[Group]float64{}}
	add := func(g Group, name string, usd float64) { e.Lines = append(e.Lines, Line{g, name, usd}) }

	api := l.Creates * a.APICallsPerCreate
	misses := l.Redirects * (1 - hit)
	viewer := l.Redirects + api
	expiries := l.Creates * a.ExpiriesPerCreate
	others := float64(a.Regions - 1)
	wru := func(units float64) float64 { return units / million * p.DynamoWRUPerMillion.USD }
	lambda := func(invocations, memGB, ms float64) float64 {
		return invocations/million*p.LambdaPerMillion.USD + invocations*memGB*ms/1000*p.LambdaGBSecond.USD
	}

	e.Floor = l.Redirects / 1e4 * p.CloudFrontHTTPSPer10k.USD
	add(Serving, "CloudFront requests", viewer/1e4*p.CloudFrontHTTPSPer10k.USD)
	add(Serving, "CloudFront data out", (l.Redirects*a.RedirectRespBytes+api*a.APIRespBytes)/gb*p.CloudFrontGBOut.USD)
	add(Serving, "API Gateway HTTP API (redirect misses)", tiered(misses/million, 300, p.HTTPAPIPerMillion, p.HTTPAPIPerMillionOver))
	add(Serving, "API Gateway REST API (/v1)", tiered(api/million, 333, p.RESTPerMillion, p.RESTPerMillionOver))
	add(Serving, "Lambda: redirect, create, manage, stats", lambda(misses, a.RedirectMemGB, a.RedirectMs)+lambda(api, a.APIMemGB, a.APIMs))
	add(Serving, "DynamoDB redirect reads", misses*(1-a.InProcessCacheHits)*0.5/million*p.DynamoRRUPerMillion.USD)
	// A create: the link item (1 WRU, 2 in a transaction) and its by-owner
	// index entry in the primary; with an Idempotency-Key the record too,
	// transactionally. Every other region: one replicated WRU and its own
	// index write (S5). Every region: the expiring-links entry (keys and
	// owner, 1 WRU).
	perCreate := a.ItemKB*(1+a.IdempotentShare) + a.ItemKB + a.IdempotentShare*2 + others*(a.ItemKB+a.ItemKB) +
		float64(a.Regions)
	add(Serving, "DynamoDB link writes (creates, all regions)", wru(l.Creates*perCreate))

	add(Analytics, "Real-time logs", l.Redirects/million*p.RealtimeLogPerMillion.USD)
	kinesisIn := l.Redirects * 1024 / gb // each record billed as at least 1 KB
	add(Analytics, "Kinesis (on demand)", hoursPerMon*p.KinesisStreamHour.USD+kinesisIn*p.KinesisIngestGB.USD+
		l.Redirects*a.LogRecordBytes/gb*p.KinesisRetrieveGB.USD)
	add(Analytics, "Lambda: clicks", lambda(l.Redirects/a.ClicksBatch, a.ClicksMemGB, a.ClicksMs))
	add(Analytics, "DynamoDB click counters", wru(l.Redirects*a.ClickWRU))

	// An expiry, in every region: the tombstone put in place of the link
	// (the item, and three index writes: out of by-owner and
	// expiring-links, into due-tombstones) and, after the grace, its
	// delete (the item and its due-tombstones entry). TTL deletes nothing
	// while the reclaim run keeps up (docs/lifecycle.md).
	perExpiry := float64(a.Regions) * a.ItemKB * ((1 + 3) + (1 + 1))
	add(Lifecycle, "DynamoDB lifecycle writes", wru(expiries*perExpiry))
	// ttlstream is invoked only for the backstop's deletions, none in the
	// steady state; reclaim handles each expiry twice (tombstone, release).
	add(Lifecycle, "Lambda: ttlstream, reclaim", lambda(2*expiries/a.ReclaimPerInvocation, a.ReclaimMemGB, a.ReclaimMs))
	// Reclaim: three transitions per loop (Reclaim, Count, MoreDue) plus
	// the start and end states of an hourly run.
	transitions := 2*expiries/a.ReclaimPerInvocation*3 + hoursPerMon*4
	add(Lifecycle, "Step Functions (reclaim)", transitions/1000*p.StepFunctionsPer1000.USD)

	live := l.Creates * a.MonthsOfLinksKept * a.StoredItemBytes / gb // GB per replica, base table
	// Base table and the by-owner index (projection ALL: a full copy) in
	// every region; PITR on the base table.
	add(Platform, "DynamoDB storage + PITR", float64(a.Regions)*live*(2*p.DynamoStorageGBMonth.USD+p.DynamoPITRGBMonth.USD))
	invocations := misses + api + l.Redirects/a.ClicksBatch + 2*expiries/a.ReclaimPerInvocation
	add(Platform, "CloudWatch Logs", (invocations*a.PlatformLogBytes+api*a.AccessLogBytes)/gb*p.CloudWatchLogsGB.USD)
	if a.WAF {
		add(Platform, "WAF (context waf=true)", viewer/million*p.WAFPerMillion.USD+p.WAFMonthlyFixed.USD)
	}

	linkEvents := l.Creates * a.LinkEventsPerCreate
	clickEvents := l.Redirects / a.ClicksBatch * a.ClickCodesPerBatch
	deliveries := (linkEvents + clickEvents) * a.SubscribedShare
	rru := func(units float64) float64 { return units / million * p.DynamoRRUPerMillion.USD }
	add(Webhooks, "DynamoDB webhook lookups (every event)", rru(linkEvents*1+clickEvents*0.5+l.Redirects/a.ClicksBatch*a.ClickOwnersPerBatch))
	add(Webhooks, "Lambda: webhookstream", lambda(linkEvents/100, a.ReclaimMemGB, a.ReclaimMs/10))
	add(Webhooks, "Webhook deliveries (SQS, Lambda, DynamoDB)", deliveries*3/million*p.SQSPerMillion.USD+
		lambda(deliveries/10, a.DeliveryMemGB, a.DeliveryMs)+rru(deliveries)+wru(deliveries))
	for _, ln := range e.Lines {
		e.Total += ln.USD
		e.ByGroup[ln.Group] += ln.USD
	}
	return e
}

// HitRatios are the edge hit ratios the document compares.
var HitRatios = []float64{0.70, 0.90, 0.99}

// Markdown renders the document's computed section: one table per load,
// a column per hit ratio.
func Markdown(p Prices, a Assumptions) string {
	var b strings.Builder
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		var cols []Estimate
		for _, h := range HitRatios {
			cols = append(cols, Compute(l, h, p, a))
		}
		fmt.Fprintf(&b, "#### %s load: %s redirects, %s creates per month\n\n", strings.ToUpper(l.Name[:1])+l.Name[1:], count(l.Redirects), count(l.Creates))
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
	return b.String()
}

// PriceTable renders the prices with their sources.
func PriceTable(p Prices) string {
	var b strings.Builder
	b.WriteString("| Price | USD | Per | Source |\n|---|---:|---|---|\n")
	rows := []struct {
		name string
		p    Price
	}{
		{"CloudFront HTTPS requests", p.CloudFrontHTTPSPer10k}, {"CloudFront data transfer out", p.CloudFrontGBOut},
		{"CloudFront real-time logs", p.RealtimeLogPerMillion}, {"Kinesis stream-hour", p.KinesisStreamHour},
		{"Kinesis data in", p.KinesisIngestGB}, {"Kinesis data out", p.KinesisRetrieveGB},
		{"HTTP API", p.HTTPAPIPerMillion}, {"HTTP API, over 300 M", p.HTTPAPIPerMillionOver},
		{"REST API", p.RESTPerMillion}, {"REST API, over 333 M", p.RESTPerMillionOver},
		{"Lambda requests", p.LambdaPerMillion}, {"Lambda duration", p.LambdaGBSecond},
		{"DynamoDB reads", p.DynamoRRUPerMillion}, {"DynamoDB writes", p.DynamoWRUPerMillion},
		{"DynamoDB storage", p.DynamoStorageGBMonth}, {"DynamoDB PITR", p.DynamoPITRGBMonth},
		{"Step Functions", p.StepFunctionsPer1000}, {"CloudWatch Logs", p.CloudWatchLogsGB},
		{"WAF requests", p.WAFPerMillion}, {"WAF web ACL + rule", p.WAFMonthlyFixed},
		{"SQS requests", p.SQSPerMillion},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.name, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.10f", r.p.USD), "0"), "."), r.p.Per, r.p.Source)
	}
	return b.String()
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

// Lever is a change to the assumptions the document prices.
type Lever struct {
	Name  string
	Apply func(*Assumptions)
}

// Levers are the changes that move the seed-load total most.
var Levers = []Lever{
	{"As deployed (defaults)", func(*Assumptions) {}},
	{"WAF off (-c waf=false)", func(a *Assumptions) { a.WAF = false }},
	{"Click counters aggregated 5x better (e.g. 15-minute tumbling windows)", func(a *Assumptions) { a.ClickWRU /= 5 }},
	{"Click counters written without transactions (half the WRU)", func(a *Assumptions) { a.ClickWRU /= 2 }},
	{"All three", func(a *Assumptions) { a.WAF = false; a.ClickWRU /= 10 }},
	{"WAF off and no click counters in DynamoDB at all", func(a *Assumptions) {
		a.WAF = false
		a.ClickWRU = 0
	}},
}

// LeverTable prices each lever at the seed load and 90 % edge hits.
func LeverTable(p Prices) string {
	var b strings.Builder
	b.WriteString("| Change (seed load, 90 % edge hits) | All-in | / floor |\n|---|---:|---:|\n")
	for _, l := range Levers {
		a := DefaultAssumptions()
		l.Apply(&a)
		e := Compute(SeedLoad, 0.90, p, a)
		fmt.Fprintf(&b, "| %s | %s | %.2fx |\n", l.Name, usd(e.Total), e.Total/e.Floor)
	}
	a := DefaultAssumptions()
	base := Compute(SeedLoad, 0.90, p, a).Total
	a.ClickWRU++
	fmt.Fprintf(&b, "\nEach WRU more (or less) per click adds (or saves) %s a month at the seed load.\n",
		usd(Compute(SeedLoad, 0.90, p, a).Total-base))
	return b.String()
}

// AssumptionTable lists the assumptions with their values.
func AssumptionTable(a Assumptions) string {
	rows := [][2]string{
		{"Regions (links replicas, regional stacks)", fmt.Sprint(a.Regions)},
		{"/v1 requests per create (the POST plus reads, edits, stats)", fmt.Sprint(a.APICallsPerCreate)},
		{"Bytes CloudFront sends per redirect (302, Location, security headers)", fmt.Sprint(a.RedirectRespBytes)},
		{"Bytes per /v1 response", fmt.Sprint(a.APIRespBytes)},
		{"Real-time log record (10 fields), bytes; billed by Kinesis as 1 KB", fmt.Sprint(a.LogRecordBytes)},
		{"Origin redirects answered from the function's memory (no DynamoDB read)", fmt.Sprint(a.InProcessCacheHits)},
		{"redirect: memory GB, billed ms per invocation", fmt.Sprint(a.RedirectMemGB, ", ", a.RedirectMs)},
		{"create/manage/stats: memory GB, billed ms", fmt.Sprint(a.APIMemGB, ", ", a.APIMs)},
		{"clicks: memory GB, ms per batch, records per batch", fmt.Sprint(a.ClicksMemGB, ", ", a.ClicksMs, ", ", a.ClicksBatch)},
		{"reclaim: memory GB, ms per invocation, codes per invocation", fmt.Sprint(a.ReclaimMemGB, ", ", a.ReclaimMs, ", ", a.ReclaimPerInvocation)},
		{"Creates with an Idempotency-Key (two-item transaction)", fmt.Sprint(a.IdempotentShare)},
		{"Link item size for writes, KB (rounded up)", fmt.Sprint(a.ItemKB)},
		{"Expiries per create (steady state: after 5 years as many expire as are created)", fmt.Sprint(a.ExpiriesPerCreate)},
		{"Click counters: WRU per click, measured by `make cost`", fmt.Sprint(a.ClickWRU)},
		{"CloudWatch Logs bytes per invocation (START, END, REPORT) and per /v1 access log", fmt.Sprint(a.PlatformLogBytes, ", ", a.AccessLogBytes)},
		{"Months of links kept (the default 5-year TTL), item bytes stored incl. overhead", fmt.Sprint(a.MonthsOfLinksKept, ", ", a.StoredItemBytes)},
		{"WAF on (the default)", fmt.Sprint(a.WAF)},
		{"Webhooks: link events per create; distinct codes and owners per clicks batch; share of events subscribed to",
			fmt.Sprint(a.LinkEventsPerCreate, "; ", a.ClickCodesPerBatch, ", ", a.ClickOwnersPerBatch, "; ", a.SubscribedShare)},
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
			httpAPI := tiered(m, 300, p.HTTPAPIPerMillion, p.HTTPAPIPerMillionOver)
			rest := tiered(m, 333, p.RESTPerMillion, p.RESTPerMillionOver)
			fmt.Fprintf(&b, "| %s, %g %% | %s | %s | %s | %s |\n", l.Name, h*100, count(m*million), usd(httpAPI), usd(rest), usd(rest-httpAPI))
		}
	}
	return b.String()
}
