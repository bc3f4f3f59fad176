package costmodel

import (
	"fmt"
	"slices"
	"strings"
)

// The goal's constraints (docs/cost-model.md, "Goal"; the Regions' are
// docs/lifecycle.md's, section 7): every click counted exactly once, every stats answer
// unchanged, API Gateway in front of every function, a change leaves the
// edge within 30 s, and every link lives in two Regions that both take
// creates. A line's floor is what it costs at the least without breaking
// one of them; the sum of the floors is a lower bound of what the
// deployment can cost, so where a floor is uncertain the lower figure is
// taken.

// Part groups the floors the goal's proof adds up.
type Part string

// The parts, in the order the goal names them.
const (
	RequestPath Part = "the request path"
	Counting    Part = "counting every click"
	Takedowns   Part = "takedowns within 30 s"
	TwoRegions  Part = "links in two Regions"
	Expiry      Part = "expiry"
	PerUse      Part = "features paid per use"
	Optional    Part = "optional"
)

// Parts in order.
var Parts = []Part{RequestPath, Counting, Takedowns, TwoRegions, Expiry, PerUse, Optional}

// Verdict says how low a line can go under the constraints, and why.
type Verdict struct {
	Line string // the start of the line's component name
	Part Part
	// Floor is the line's least cost under the constraints, given its
	// cost and a way to price it again under changed assumptions.
	Floor floorOf
	Why   string
}

type floorOf func(usd float64, again func(change func(*Assumptions)) float64) float64

// all: the line cannot go lower.
func all(usd float64, _ func(func(*Assumptions)) float64) float64 { return usd }

// none: the line can go to nothing without breaking a constraint.
func none(float64, func(func(*Assumptions)) float64) float64 { return 0 }

// under: the line's floor is its cost under a change that keeps the
// constraints.
func under(change func(*Assumptions)) floorOf {
	return func(_ float64, again func(func(*Assumptions)) float64) float64 { return again(change) }
}

// Verdicts cover every line Compute can produce; a test holds them to it.
var Verdicts = []Verdict{
	{"CloudFront requests", RequestPath, all,
		"Every redirect and every /v1 call is a CloudFront request: the floor itself and /v1's 1.2 calls per create."},
	{"CloudFront data out", RequestPath, all,
		"Every redirect sends its 302 (700 bytes assumed, headers included)."},
	{"API Gateway HTTP API", RequestPath, all,
		"At 90 % hits every tenth redirect reaches the origin, and API Gateway stays in front of every function; the HTTP API is the cheaper flavour already."},
	{"API Gateway REST API", RequestPath, all,
		"/v1 needs API keys and usage plans, which only REST APIs have (S33), behind API Gateway as every function is."},
	{"Lambda: redirect, create, manage, stats", RequestPath, all,
		"One invocation per origin request (durations are estimates)."},
	{"Lambda: origin authorizer", RequestPath, all, "Cents: answers cached 5 minutes."},
	{"DynamoDB redirect reads", RequestPath, all, "A miss reads its link once."},
	{"DynamoDB link writes", RequestPath, all,
		"Every link is written in both Regions (both take creates) with the index entries listings and expiry read (by-owner, by-owner-all, expiring-links)."},
	{"DynamoDB API key reads", RequestPath, all,
		"Cents: a /v1 call names its owner by its key, read from the keys table when the authorizer's key cache (30 s) misses (0.5 RRU, measured)."},
	{"Lambda: /v1 authorizer", Optional, none,
		"API Gateway invokes the REQUEST authorizer on every /v1 call (no identity source, no result cache). It is what lets keys be issued and revoked through the API without usage-plan calls (key source AUTHORIZER), gives keys and members their roles in a workspace, and lets the console sign in with a token: features, not the goal's constraints. API Gateway stays in front of every function without it (its own API key check, as /v1 had before, and a Cognito user pool authorizer run no function of ours), so its floor is none; an authorizer result cache would spare most invocations (lever row, not built)."},
	{"DynamoDB /v1 authorizer member reads", Optional, none,
		"A signed-in call's workspace and role: one read of the members table on every such call (0.5 RRU, measured; nothing caches it). Workspaces are a feature, not a constraint; an authorizer result cache would spare most of these reads too."},
	{"DynamoDB stats reads", PerUse, all,
		fmt.Sprintf("A stats answer reads its range's items (%g RRU for 90 days hourly at the end of a seed group's day, measured); keeping the answers unchanged keeps the reads.", Current.StatsRRU)},
	{"DynamoDB reservation writes", TwoRegions, all,
		"Creates in either Region take their code in the MRSC reservation table, billed in both replicas; reserve and confirm are the protocol's writes."},
	{"Decided clicks at the origin", PerUse, all,
		"A link with a password, click limit or rules is answered no-store, so each click is decided, and a click limit counted, at the origin (1 % of clicks assumed)."},
	{"DynamoDB edge marks", Takedowns, none,
		"Every origin answer with a long edge life writes its mark (1 per origin read is an upper bound only for the reads that answer short), and every change fences each Region's mark (1 WRU). The marks keep the invalidation line at the share an edge may hold; the fences keep a lagging replica's old answers off the edge for long (docs/lifecycle.md)."},
	{"CloudFront invalidations", Takedowns, all,
		"A changed link must leave the edge within 30 s and the edge keeps a 302 a day, so each changed link an edge may hold pays for its paths (S25); new aliases go without. The share is assumed, not measured (see the sensitivity table)."},
	{"WAF", Optional, none, "The miss budget defends against enumeration for misses only."},
	{"Real-time logs", Counting, all,
		"CloudFront's real-time log is the only record of an edge hit: without it edge hits go uncounted."},
	{"Kinesis", Counting, under(func(a *Assumptions) { a.KinesisProvisioned = true }),
		"The real-time log's only destination is a Kinesis stream (S17). Provisioned for 3x the average costs less and carries every record while the peak stays under its shards; on demand stays the default because a log write throttled at a peak is a click never counted. The floor is the provisioned stream."},
	{"Lambda: clicks", Counting, all, "One invocation per batch of 1,000 records."},
	{"DynamoDB click counting", Counting, all,
		fmt.Sprintf("Exactly-once counting in the packed layout with the click breakdowns: %.4f WRU and %.4f RRU a click, measured level by level at a seed group's volume, and %.4f / %.4f at 10x it (see Measured).",
			PackedClicks.ClickWRU, PackedClicks.ClickRRU, PackedClicks.ClickWRU10x, PackedClicks.ClickRRU10x)},
	{"DynamoDB analytics storage", Counting, all,
		"The hourly and daily detail stats answers read (3 and 36 months); keeping less changes answers. Standard-IA trades its storage for dearer counting writes (lever row)."},
	{"PITR analytics table", Optional, none, "Backups are not among the constraints."},
	{"DynamoDB lifecycle writes", Expiry, func(usd float64, _ func(func(*Assumptions)) float64) float64 {
		return usd * tombstoneWrites / (tombstoneWrites + releaseWrites)
	}, "An expired link must become its 410 tombstone without ever being absent (docs/lifecycle.md). The release's delete, a third of the line, might be left to TTL (free, S6): not studied, so the floor counts the tombstone's writes only."},
	{"Lambda: ttlstream, reclaim", Expiry, all, "Cents: the expiry step's invocations."},
	{"Step Functions", Expiry, all, "Cents: the hourly reclaim runs."},
	{"DynamoDB links table storage", TwoRegions, all,
		"Every link in both Regions, in the cheaper Standard-IA class already."},
	{"DynamoDB by-owner index storage", TwoRegions, under(func(a *Assumptions) { a.OwnerProjection = ProjectKeys }),
		"Listings need the index; KEYS_ONLY (160 bytes an entry) keeps their answers, each listed link then read (0.5 RRU): the floor."},
	{"DynamoDB by-owner-all index storage", Optional, none,
		"Listings read titles, notes and tags from it, beside by-owner because DynamoDB cannot change an index's projection in place. A feature, not a constraint; once it is built a second deploy could drop by-owner and keep one index (lever row: not built)."},
	{"DynamoDB audit log writes", Optional, none,
		"Every change to a link, a webhook or a member is recorded with who, what and when (docs/audit.md): a feature the teams need, not one of these constraints."},
	{"DynamoDB audit log storage", Optional, none,
		"Entries are kept for ever by default; auditRetentionDays bounds them (lever row)."},
	{"DynamoDB expiring-links index storage", Expiry, all,
		"The expiry step finds due links through it (docs/lifecycle.md)."},
	{"PITR links table", Optional, none,
		"Backups are not among the constraints: one replica's PITR keeps the links restorable, by choice."},
	{"DynamoDB reservation table storage", TwoRegions, under(func(a *Assumptions) { a.ReservationPITRRegions = 0 }),
		"One item per live code in both replicas (MRSC); the primary's PITR is a backup choice, left out of the floor."},
	{"CloudWatch Logs", Optional, under(func(a *Assumptions) { a.AccessLogs = false }),
		"Cents: the /v1 access log could go."},
	{"Miss-only enumeration defence", PerUse, all, "The enumeration defence, one write per unknown-code miss."},
	{"CloudFront Function: canonical paths", Optional, none,
		"It keeps percent-encoded spellings out of the cache so a takedown reaches every cached spelling (the 30 s promise; docs/deploy.md, context waf). Purging the spellings the click log shows were served would keep the promise without a per-request fee: not built."},
	{"CloudFront Function: the visitor's query", Optional, none,
		"It merges the visitor's query into a redirect after the cache, so one entry per path serves every query (docs/api.md, \"The visitor's query goes on\"). A feature, not a constraint: its floor is none, and no context takes it out yet."},
	{"DynamoDB webhook lookups", Optional, none,
		"Every link and click event needs its owner's subscriptions. The consumers now cache owners (10 minutes) and subscriptions (until a subscription version item changes, one strong read a batch), which spares most of these reads; the hit rate is not measured, so the line still prices every lookup, an upper bound."},
	{"Lambda: webhookstream", PerUse, all, "Cents."},
	{"Webhook deliveries", PerUse, all, "A delivery per subscribed event (5 % assumed)."},
}

// VerdictOf is the verdict for a line's component.
func VerdictOf(component string) (Verdict, bool) {
	for _, v := range Verdicts {
		if strings.HasPrefix(component, v.Line) {
			return v, true
		}
	}
	return Verdict{}, false
}

// FloorLine is a line with its floor.
type FloorLine struct {
	Line
	Verdict Verdict
	Floor   float64
}

// Floor is an estimate's least cost under the constraints, line by line.
type Floor struct {
	Estimate
	Lines  []FloorLine
	Total  float64
	ByPart map[Part]float64
}

// FloorOf prices one load, phase and hit ratio, and each line's floor.
// A line without a verdict counts whole (a test keeps there being none).
func FloorOf(l Load, ph Phase, hit float64, p Prices, a Assumptions) Floor {
	f := Floor{Estimate: Compute(l, ph, hit, p, a), ByPart: map[Part]float64{}}
	for _, ln := range f.Estimate.Lines {
		v, ok := VerdictOf(ln.Component)
		if !ok {
			v = Verdict{Line: ln.Component, Part: Optional, Floor: all}
		}
		again := func(change func(*Assumptions)) float64 {
			b := a
			change(&b)
			for _, o := range Compute(l, ph, hit, p, b).Lines {
				if strings.HasPrefix(o.Component, v.Line) {
					return o.USD
				}
			}
			return 0
		}
		fl := min(v.Floor(ln.USD, again), ln.USD)
		f.Lines = append(f.Lines, FloorLine{Line: ln, Verdict: v, Floor: fl})
		f.Total += fl
		f.ByPart[v.Part] += fl
	}
	return f
}

// lower says in a word or two how far a line can go down.
func (fl FloorLine) lower() string {
	switch {
	case fl.USD-fl.Floor < 0.5:
		return "no"
	case fl.Floor < 0.5:
		return "yes"
	}
	return "partly, to " + usd(fl.Floor)
}

// GoalText says, for each phase at the seed load and 90 % hits, by how
// much the defaults miss the goal, what cannot go lower under the
// constraints and why, line by line.
func GoalText(p Prices, a Assumptions) string {
	var b strings.Builder
	floors := map[string]Floor{}
	for _, ph := range Phases {
		floors[ph.Name] = FloorOf(SeedLoad, ph, 0.90, p, a)
	}
	b.WriteString("| Seed load, 90 % hits | All-in | / floor | Goal | Over by | Cannot go below | Over the goal even then |\n" +
		"|---|---:|---:|---:|---:|---:|---:|\n")
	for _, ph := range Phases {
		f, goal := floors[ph.Name], Goals[ph.Name]
		e := f.Estimate
		fmt.Fprintf(&b, "| %s | %s | %.2fx | %.1fx | %s | %s (%.2fx) | %s |\n", ph.Name, usd(e.Total), e.Total/e.Floor, goal,
			over(e.Total, goal, e.Floor), usd(f.Total), f.Total/e.Floor, over(f.Total, goal, e.Floor))
	}
	b.WriteString("\n")
	for _, ph := range Phases {
		f, goal := floors[ph.Name], Goals[ph.Name]
		e := f.Estimate
		verdict := fmt.Sprintf("**%s cannot reach %.1fx under the constraints.**", ph.Name, goal)
		if f.Total <= goal*e.Floor {
			verdict = fmt.Sprintf("**%s could reach %.1fx only if every line that can go lower fell to its floor.**", ph.Name, goal)
		}
		var parts []string
		for _, pt := range Parts[1:] {
			if x := f.ByPart[pt]; x >= 0.005*e.Floor {
				parts = append(parts, fmt.Sprintf("%s %.2fx", pt, x/e.Floor))
			}
		}
		inval := 0.0
		for _, fl := range f.Lines {
			if fl.Verdict.Part == Takedowns {
				inval += fl.Floor
			}
		}
		fmt.Fprintf(&b, "- %s The request path alone is %.2fx; what else cannot go lower adds %s: at least %s (%.2fx), %s. "+
			"With no changed link invalidated at all it would still be %.2fx.\n", verdict,
			f.ByPart[RequestPath]/e.Floor, strings.Join(parts, ", "), usd(f.Total), f.Total/e.Floor,
			overWords(f.Total, goal, e.Floor), (f.Total-inval)/e.Floor)
	}
	var at99 []string
	for _, ph := range Phases {
		f := FloorOf(SeedLoad, ph, 0.99, p, a)
		at99 = append(at99, fmt.Sprintf("%.2fx in %s", f.Total/f.Estimate.Floor, strings.ToLower(ph.Name)))
	}
	fmt.Fprintf(&b, "- At 99 %% edge hits the request path falls to %.2fx, and what cannot go lower is %s.\n",
		FloorOf(SeedLoad, Year5, 0.99, p, a).ByPart[RequestPath]/floors[Year5.Name].Estimate.Floor, strings.Join(at99, " and "))
	b.WriteString("\nEvery line above 1 % of the floor in either year (seed load, 90 % hits), largest in year 5 first; " +
		"\"cannot go below\" is the line's floor under the constraints:\n\n")
	b.WriteString("| Line | Year 1 | Year 5 | Lower without breaking a constraint? | Cannot go below (year 1 / 5) | Why |\n" +
		"|---|---:|---:|---|---:|---|\n")
	y1, y5 := floors[Year1.Name], floors[Year5.Name]
	lines := slices.Clone(y5.Lines)
	slices.SortStableFunc(lines, func(x, y FloorLine) int { return cmpFloat(y.USD, x.USD) })
	for _, fl := range lines {
		first, ok := floorLineOf(y1, fl.Verdict.Line)
		if !ok || max(fl.USD, first.USD) < 0.01*y5.Estimate.Floor {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s / %s | %s |\n", fl.Component, usd(first.USD), usd(fl.USD), fl.lower(),
			usd(first.Floor), usd(fl.Floor), fl.Verdict.Why)
	}
	return b.String()
}

func floorLineOf(f Floor, prefix string) (FloorLine, bool) {
	for _, fl := range f.Lines {
		if fl.Verdict.Line == prefix {
			return fl, true
		}
	}
	return FloorLine{}, false
}

func over(total, goal, floor float64) string {
	x := total - goal*floor
	if x <= 0 {
		return fmt.Sprintf("none (%.2fx under)", -x/floor)
	}
	return fmt.Sprintf("%s (%.2fx)", usd(x), x/floor)
}

func overWords(total, goal, floor float64) string {
	x := total - goal*floor
	if x <= 0 {
		return fmt.Sprintf("%.2fx under the goal", -x/floor)
	}
	return fmt.Sprintf("%.2fx over the goal", x/floor)
}

// InvalidationShares are the shares of changed links an edge may hold the
// document prices, to show how much the assumed one matters.
var InvalidationShares = []float64{0.1, Soak.InvalidatedChangeShare, 0.3, 1.0}

// InvalidationText prices the invalidation line, the all-in and the floor
// at each of InvalidationShares.
func InvalidationText(p Prices, a Assumptions) string {
	var b strings.Builder
	b.WriteString("| Share of changed links an edge may hold | Invalidations (seed) | All-in, year 1 | All-in, year 5 | " +
		"Cannot go below, year 1 / 5 | Invalidations (10x) |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, share := range InvalidationShares {
		s := a
		s.InvalidatedChangeShare = share
		y1, y5 := FloorOf(SeedLoad, Year1, 0.90, p, s), FloorOf(SeedLoad, Year5, 0.90, p, s)
		ten := Compute(SeedLoad.Times(10, "10x"), Year5, 0.90, p, s)
		mark := ""
		switch share {
		case a.InvalidatedChangeShare:
			mark = " (assumed)"
		case Soak.InvalidatedChangeShare:
			mark = " (`make soak`)"
		}
		fmt.Fprintf(&b, "| %g%s | %s | %s (%.2fx) | %s (%.2fx) | %.2fx / %.2fx | %s |\n", share, mark,
			usd(lineUSD(y1.Estimate, "CloudFront invalidations")), usd(y1.Estimate.Total), y1.Estimate.Total/y1.Estimate.Floor,
			usd(y5.Estimate.Total), y5.Estimate.Total/y5.Estimate.Floor, y1.Total/y1.Estimate.Floor, y5.Total/y5.Estimate.Floor,
			usd(lineUSD(ten, "CloudFront invalidations")))
	}
	return b.String()
}

// lineUSD is the first line of e whose component starts with prefix.
func lineUSD(e Estimate, prefix string) float64 {
	for _, ln := range e.Lines {
		if strings.HasPrefix(ln.Component, prefix) {
			return ln.USD
		}
	}
	return 0
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// VersionKeysText prices the lever built behind the context
// edgeVersionKeys, off by default: versioned cache keys from a CloudFront
// KeyValueStore in place of per-change invalidations and edge marks
// (docs/cost-model.md). The redirects' viewer-request function reads the
// code's version from the store into the cache key; a change bumps the
// version, so the old entry is never asked for again.
// What the store costs is not priced (no AWS page we have states it): the
// text gives the read price below which the lever still saves.
func VersionKeysText(p Prices, a Assumptions) string {
	var b strings.Builder
	b.WriteString("| Seed load, 90 % hits | Invalidations and edge marks | All-in without them | Cannot go below without them | Goal | KeyValueStore reads that break even |\n" +
		"|---|---:|---:|---:|---:|---:|\n")
	for _, ph := range Phases {
		f := FloorOf(SeedLoad, ph, 0.90, p, a)
		e := f.Estimate
		removed, floorRemoved := 0.0, 0.0
		for _, fl := range f.Lines {
			if fl.Verdict.Part == Takedowns {
				removed += fl.USD
				floorRemoved += fl.Floor
			}
		}
		// One read per redirect viewer request: the function runs on each.
		perMillion := removed / (SeedLoad.Redirects / million)
		fmt.Fprintf(&b, "| %s | %s | %s (%.2fx) | %s (%.2fx) | %.1fx | $%.3f per million |\n", ph.Name, usd(removed),
			usd(e.Total-removed), (e.Total-removed)/e.Floor, usd(f.Total-floorRemoved), (f.Total-floorRemoved)/e.Floor, Goals[ph.Name], perMillion)
	}
	return b.String()
}
