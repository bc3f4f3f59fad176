package costmodel

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the computed sections of docs/cost-model.md")

const doc = "../../docs/cost-model.md"

// Hand-checked figures at the seed load, 90 % edge hits, year 5, as
// deployed today, so a change to the arithmetic shows up as more than a
// changed document.
func TestSeedLoadAt90(t *testing.T) {
	e := Compute(SeedLoad, Year5, 0.90, DefaultPrices(), TodayAssumptions())
	line := lineOf(t, e)
	assert.InDelta(t, 10_000, e.Floor, 0.01, "10 B x $0.01 per 10,000 (S31)")
	assert.InDelta(t, 10_120, line("CloudFront requests"), 0.01, "plus 120 M /v1 requests")
	assert.InDelta(t, 300*1.00+700*0.90, line("API Gateway HTTP API (redirect misses)"), 0.01, "1 B misses, tiered (S34)")
	assert.InDelta(t, 120*3.50, line("API Gateway REST API (/v1)"), 0.01)
	assert.InDelta(t, 100, line("Real-time logs"), 0.01, "10 B lines x $0.01/M (S19)")
	assert.InDelta(t, 1e9*0.5/1e6*0.125, line("DynamoDB redirect reads"), 0.01, "eventually consistent: half a unit")
	assert.InDelta(t, 100e6*8/1e6*0.625+50e6*1/1e6*0.125, line("DynamoDB link writes (creates, all Regions)"), 0.01,
		"4 WRU measured in the primary (with the reservation table a keyed create writes no transaction), 4 in the replica; the keyed half reads its key")
	assert.InDelta(t, 2*6*450*0.25, line("DynamoDB by-owner-all index storage (ALL)"), 0.01, "the listings' index beside by-owner copies the item too")
	assert.InDelta(t, (100e6*2+2e6*2)/1e6*0.625*1.25, line("DynamoDB audit log writes (every change, all Regions)"), 0.01,
		"an entry per create and per change, written once and replicated once, in Standard-IA")
	assert.InDelta(t, 100e6*12/1e6*0.625, line("DynamoDB lifecycle writes"), 0.01, "per Region: tombstone in place (item + 3 index writes), release (item + 1)")
	assert.InDelta(t, 10e9*6.79/1e6*0.625, line("DynamoDB click counting (counters, checkpoints)"), 0.01, "measured by make cost")
	assert.InDelta(t, (100e6*0.02*1.1+100e6*0.05-1000)*0.005, line("CloudFront invalidations"), 0.01,
		"2.2 M paths for edits and deletes, 5 M new aliases, 1,000 free (S25)")
	assert.InDelta(t, 2*6*450*0.25, line("DynamoDB links table storage (all Regions)"), 0.01, "6 B links x 450 B in 2 Regions")
	assert.InDelta(t, 2*6*450*0.25, line("DynamoDB by-owner index storage (ALL)"), 0.01, "ALL copies the item")
	assert.InDelta(t, 2*6*450*0.20, line("PITR links table (2 of 2 Regions)"), 0.01)
	// 10 B clicks x (0.6 x 3 + 1.6 x 36) items x 130 B.
	assert.InDelta(t, 10*(0.6*3+1.6*36)*130*0.25, line("DynamoDB analytics storage (3/36 months kept)"), 0.01)
	// 202 M link events x 1 RRU; 3 B click codes x 0.5 RRU (owner) and
	// 10 M batches x 100 owners x 1 RRU (subscriptions).
	assert.InDelta(t, (202e6+3e9*0.5+10e6*100)/1e6*0.125, line("DynamoDB webhook lookups (every event)"), 0.01)
	assert.InDelta(t, 10*157.5*0.125, line("DynamoDB stats reads"), 0.01, "10 M answers of 157.5 RRU (cmd/cost)")
	assert.InDelta(t, e.Total, e.ByGroup[Serving]+e.ByGroup[Analytics]+e.ByGroup[Lifecycle]+e.ByGroup[Platform]+e.ByGroup[Webhooks], 0.001)
}

// TestMergedBranchesLines: the lines of the enumeration defence, the
// reservation table and decided clicks, hand-checked at the seed load,
// 90 % edge hits, year 5, with the defaults.
func TestMergedBranchesLines(t *testing.T) {
	line := lineOf(t, Compute(SeedLoad, Year5, 0.90, DefaultPrices(), DefaultAssumptions()))
	assert.InDelta(t, 10e3*0.10, line("CloudFront Function: canonical paths (WAF off)"), 0.01, "every redirect viewer request, $0.10 per million")
	assert.InDelta(t, 10e3*0.10, line("CloudFront Function: the visitor's query (viewer response)"), 0.01, "every redirect's viewer response, $0.10 per million")
	assert.InDelta(t, 1e9*0.05*1/1e6*0.625, line("Miss-only enumeration defence (unknown codes)"), 0.01, "1 WRU per counted miss")
	// Creates: half without a key (2 reservation writes), half with (4);
	// 2 M edits and deletes and 100 M releases, 1 each; both replicas.
	assert.InDelta(t, 2*(100e6*3+2e6+100e6)/1e6*0.625, line("DynamoDB reservation writes (MRSC, every replica)"), 0.01)
	assert.InDelta(t, 2*6*200*0.25+6*200*0.20, line("DynamoDB reservation table storage, PITR on 1 of 2 replicas"), 0.01,
		"6 B codes x 200 B in 2 replicas, PITR on the primary's")
	// 1 % of 10 B clicks decided; the 90 M that would have been edge hits
	// reach the origin (HTTP API over its first 300 M, Lambda), and half a
	// counter write per decided click.
	assert.InDelta(t, 90*0.90+90*0.20+90e6*0.25*0.006*0.0000133334+100e6*0.5/1e6*0.625,
		line("Decided clicks at the origin (rules, click limits, passwords)"), 0.01)
	today := lineOf(t, Compute(SeedLoad, Year5, 0.90, DefaultPrices(), TodayAssumptions()))
	assert.InDelta(t, 10.12e3*0.60+6, today("WAF (context waf=true)"), 0.01)
}

// TestAuthorizerLines: every /v1 call invokes the /v1 authorizer (256 MB,
// 5 ms); a fifth of them are signed in and read the members table once,
// the rest read their key when the key cache misses (5 %); a result cache
// answering 0.8 of the calls leaves a fifth of each line.
func TestAuthorizerLines(t *testing.T) {
	p := DefaultPrices()
	lambda := 120*0.20 + 120e6*0.25*0.005*0.0000133334
	keys := 120e6 * 0.8 * 0.05 * 0.5 / 1e6 * 0.125
	members := 120e6 * 0.2 * 0.5 / 1e6 * 0.125
	for _, tt := range []struct {
		name  string
		hits  float64
		share float64
	}{{"no cache, as built", 0, 1}, {"a result cache answering 0.8", 0.8, 0.2}} {
		t.Run(tt.name, func(t *testing.T) {
			a := DefaultAssumptions()
			a.AuthorizerCacheHits = tt.hits
			line := lineOf(t, Compute(SeedLoad, Year5, 0.90, p, a))
			assert.InDelta(t, tt.share*lambda, line("Lambda: /v1 authorizer (API keys and sign-in)"), 0.001)
			assert.InDelta(t, tt.share*keys, line("DynamoDB API key reads (the authorizer's key cache misses)"), 0.001)
			assert.InDelta(t, tt.share*members, line("DynamoDB /v1 authorizer member reads (signed-in calls)"), 0.001)
		})
	}
	// Today's deployment writes the platform's log lines: the
	// authorizer's invocations add theirs.
	today := TodayAssumptions()
	withLogs := lineOf(t, Compute(SeedLoad, Year5, 0.90, p, today))("CloudWatch Logs")
	today.AuthorizerCacheHits = 1
	assert.InDelta(t, 120e6*350/1e9*0.50, withLogs-lineOf(t, Compute(SeedLoad, Year5, 0.90, p, today))("CloudWatch Logs"), 0.001)
}

// TestEdgeMarks: with marks (the default) an edit or delete is
// invalidated only when an edge may hold the link, and the marks' own
// writes, reads and storage are a line; without them every change is
// invalidated whatever the share.
func TestEdgeMarks(t *testing.T) {
	line := lineOf(t, Compute(SeedLoad, Year5, 0.90, DefaultPrices(), DefaultAssumptions()))
	// 2.2 M paths of edits and deletes, 30 % of them; no new aliases.
	assert.InDelta(t, (100e6*0.02*1.1*0.3-1000)*0.005, line("CloudFront invalidations"), 0.01)
	// 1 B misses, 95 % of them found (a 302), one 1-WRU mark each and
	// 4 ms more of a 256 MB redirect; 2 M changes x 2 Regions x 1 WRU (a fence);
	// the last 25 hours' marks, 100 bytes each.
	marks := 1e9 * 0.95
	assert.InDelta(t, marks/1e6*0.625+marks*0.25*0.004*0.0000133334+2e6*2/1e6*0.625+marks*25/730*100/1e9*0.25,
		line("DynamoDB edge marks (origin writes, reads on changes, storage)"), 0.01)

	a := DefaultAssumptions()
	a.EdgeMarks = false
	unmarked := lineOf(t, Compute(SeedLoad, Year5, 0.90, DefaultPrices(), a))
	assert.InDelta(t, (100e6*0.02*1.1-1000)*0.005, unmarked("CloudFront invalidations"), 0.01, "every change, whatever the share")
	for _, ln := range Compute(SeedLoad, Year5, 0.90, DefaultPrices(), a).Lines {
		assert.NotContains(t, ln.Component, "edge marks")
	}
	assert.Equal(t, 2.0, a.MarkFencesPerChange(), "one fence per Region")
}

// TestAPIGatewayTiers: requests are priced through API Gateway's volume
// tiers (S34b), REST's four and the HTTP API's two.
func TestAPIGatewayTiers(t *testing.T) {
	p := DefaultPrices()
	tests := []struct {
		name     string
		got      float64
		millions string
		want     float64
	}{
		{"REST, first tier", p.restAPIUSD(120), "120 M", 120 * 3.50},
		{"REST, into the third tier", p.restAPIUSD(1200), "1.2 B", 333*3.50 + 667*2.80 + 200*2.38},
		{"REST, into the fourth tier", p.restAPIUSD(30000), "30 B", 333*3.50 + 667*2.80 + 19000*2.38 + 10000*1.51},
		{"HTTP API, beyond 300 M", p.httpAPIUSD(1000), "1 B", 300*1.00 + 700*0.90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, tt.got, 0.001, tt.millions)
		})
	}
	line := lineOf(t, Compute(SeedLoad.Times(10, "10x"), Year5, 0.90, p, DefaultAssumptions()))
	assert.InDelta(t, 333*3.50+667*2.80+200*2.38, line("API Gateway REST API (/v1)"), 0.01, "1.2 B /v1 requests at 10x")
}

// TestOptions: the rows beside the list prices, hand-checked at 90 % edge
// hits with the defaults: the Savings Bundle takes its discount off every
// line CloudFront bills (S62), On-demand Advantage bills the click stream
// at its discount with no stream-hour but for at least 25 MiB/s each way
// (S63).
// TestTenfoldClicks: the 10x tables count clicks at the units measured at
// 10x a group's volume, the seed's at the seed's.
func TestTenfoldClicks(t *testing.T) {
	p, a := DefaultPrices(), DefaultAssumptions()
	seed := lineOf(t, Compute(SeedLoad, Year5, 0.90, p, a))
	tenX := lineOf(t, Compute(SeedLoad.Times(10, "10x"), Year5, 0.90, p, a))
	assert.InDelta(t, 10e3*(0.0750*0.625+0.0146*0.125), seed("DynamoDB click counting (counters, checkpoints)"), 0.01)
	assert.InDelta(t, 100e3*(0.0749*0.625+0.0146*0.125), tenX("DynamoDB click counting (counters, checkpoints)"), 0.01)
	today := TodayAssumptions()
	assert.InDelta(t, 100e3*6.79*0.625, lineOf(t, Compute(SeedLoad.Times(10, "10x"), Year5, 0.90, p, today))("DynamoDB click counting (counters, checkpoints)"),
		0.01, "today's layout has no 10x measurement: the seed's units")
}

func TestOptions(t *testing.T) {
	p, a := DefaultPrices(), DefaultAssumptions()
	seed := Compute(SeedLoad, Year5, 0.90, p, a)
	tenX := Compute(SeedLoad.Times(10, "10x"), Year5, 0.90, p, a)
	// 10.12 B requests, 7.12 TB out, 659 k paths, 10 B log lines, 10 B
	// invocations of each function (canonical paths, the visitor's query).
	cloudFront := 10_120 + (10e9*700+120e6*1000)/1e9*0.085 + (100e6*0.02*1.1*0.3-1000)*0.005 + 100 + 1_000 + 1_000
	assert.InDelta(t, 0.30*cloudFront, SavingsBundleSaving(seed, p, a), 0.01)
	// 25 MiB/s for 730 hours, in GB, at 40 % of $0.08 in and $0.04 out.
	minimumGB := 25 * 1048576 * 730 * 3600 / 1e9
	// A record is 351 bytes: the soak's 151 and a browser's headers.
	require.Equal(t, 351.0, a.LogRecordBytes)
	assert.InDelta(t, 730*0.04+10e9*1024/1e9*0.08+10e9*351/1e9*0.04-minimumGB*(0.032+0.016),
		KinesisAdvantageSaving(seed, p, a), 0.01, "seed: 10 TB in and 3.5 TB out, both below the minimum")
	assert.InDelta(t, 730*0.04+100e9*1024/1e9*0.08+100e9*351/1e9*0.04-(100e9*1024/1e9*0.032+minimumGB*0.016),
		KinesisAdvantageSaving(tenX, p, a), 0.01, "10x: 102 TB in, above the minimum; 35 TB out, below it")

	// With WAF on (today's deployment) the bundle's WAF credits offset
	// WAF's request charges up to 10 % of the commitment.
	today := TodayAssumptions()
	e := Compute(SeedLoad, Year5, 0.90, p, today)
	cloudFront = 10_120 + (10e9*700+120e6*1000)/1e9*0.085 + (100e6*0.02*1.1+100e6*0.05-1000)*0.005 + 100 + 1_000
	wafRequests := 10.12e3 * 0.60
	assert.Less(t, 0.10*0.70*cloudFront, wafRequests, "the credit is capped by the commitment here")
	assert.InDelta(t, 0.30*cloudFront+0.10*0.70*cloudFront, SavingsBundleSaving(e, p, today), 0.01)

	// The rows follow the inputs: dearer data out, a bigger saving.
	dearer := p
	dearer.CloudFrontGBOut.USD *= 2
	assert.InDelta(t, 0.30*(10e9*700+120e6*1000)/1e9*0.085, SavingsBundleSaving(Compute(SeedLoad, Year5, 0.90, dearer, a), dearer, a)-
		SavingsBundleSaving(seed, p, a), 0.01)
}

// TestCloudFrontLines: the lines the Savings Bundle offsets are the ones
// CloudFront bills, every CloudFront line and the real-time logs.
func TestCloudFrontLines(t *testing.T) {
	for _, a := range []Assumptions{TodayAssumptions(), DefaultAssumptions()} {
		for _, ln := range Compute(SeedLoad, Year5, 0.90, DefaultPrices(), a).Lines {
			billedByCloudFront := strings.HasPrefix(ln.Component, "CloudFront") || ln.Component == "Real-time logs"
			assert.Equal(t, billedByCloudFront, ln.CloudFront, ln.Component)
		}
	}
}

// TestYearOne: in the twelfth month a fifth of the links are live and
// nothing has expired yet.
func TestYearOne(t *testing.T) {
	y1 := lineOf(t, Compute(SeedLoad, Year1, 0.90, DefaultPrices(), TodayAssumptions()))
	y5 := lineOf(t, Compute(SeedLoad, Year5, 0.90, DefaultPrices(), TodayAssumptions()))
	assert.InDelta(t, y5("DynamoDB links table storage (all Regions)")/5, y1("DynamoDB links table storage (all Regions)"), 0.01)
	assert.Zero(t, y1("DynamoDB lifecycle writes"))
	assert.Positive(t, y5("DynamoDB lifecycle writes"))
}

// TestLeversSave: every lever lowers the year-5 total, and the defaults
// cost less than today's deployment.
func TestLeversSave(t *testing.T) {
	p := DefaultPrices()
	today := Compute(SeedLoad, Year5, 0.90, p, TodayAssumptions()).Total
	for _, l := range Levers {
		a := TodayAssumptions()
		l.Apply(&a)
		assert.Less(t, Compute(SeedLoad, Year5, 0.90, p, a).Total, today, l.Name)
	}
	assert.Less(t, Compute(SeedLoad, Year5, 0.90, p, DefaultAssumptions()).Total, today)
}

// TestProvisionedKinesisBreakEven: at the seed load a provisioned stream
// sized for 3x the average costs less than on demand.
func TestProvisionedKinesisBreakEven(t *testing.T) {
	a := TodayAssumptions()
	assert.Equal(t, 12.0, KinesisShards(SeedLoad, a), "3,805 records/s x 3 over 1,000 a shard")
	od := kinesis(SeedLoad, a, DefaultPrices())
	a.KinesisProvisioned = true
	assert.InDelta(t, 12*730*0.015+10e3*0.014, kinesis(SeedLoad, a, DefaultPrices()), 0.01)
	assert.Less(t, kinesis(SeedLoad, a, DefaultPrices()), od)
}

// TestPlaceholdersNameInputs: the placeholder list names fields of
// Measured, so the lead's list of what to replace cannot drift from it.
func TestPlaceholdersNameInputs(t *testing.T) {
	typ := reflect.TypeOf(Measured{})
	for _, ph := range Placeholders {
		_, ok := typ.FieldByName(ph.Input)
		assert.True(t, ok, "placeholder %s is not a field of Measured", ph.Input)
	}
}

func lineOf(t *testing.T, e Estimate) func(string) float64 {
	return func(name string) float64 {
		t.Helper()
		for _, l := range e.Lines {
			if l.Component == name {
				return l.USD
			}
		}
		t.Fatalf("no line %q", name)
		return 0
	}
}

func TestMoreHitsCostLess(t *testing.T) {
	p, a := DefaultPrices(), DefaultAssumptions()
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		prev := Compute(l, Year5, HitRatios[0], p, a).Total
		for _, h := range HitRatios[1:] {
			cur := Compute(l, Year5, h, p, a).Total
			assert.Less(t, cur, prev, "%s at %g", l.Name, h)
			prev = cur
		}
	}
}

// TestEveryPriceHasASource: every price names a public source listed in
// docs/sources.md.
func TestEveryPriceHasASource(t *testing.T) {
	raw, err := os.ReadFile("../../docs/sources.md")
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (S[0-9]+[a-z]?) \|`).FindAllStringSubmatch(string(raw), -1) {
		listed[m[1]] = true
	}
	for _, r := range priceRows(DefaultPrices()) {
		assert.True(t, listed[r.p.Source], "%s: source %q is not an S-number in docs/sources.md", r.name, r.p.Source)
	}
}

// TestDocumentMatchesModel keeps docs/cost-model.md's computed sections
// equal to the model; `go test ./infra/costmodel -update` rewrites them.
func TestDocumentMatchesModel(t *testing.T) {
	raw, err := os.ReadFile(filepath.Clean(doc))
	require.NoError(t, err)
	text := string(raw)
	sections := map[string]string{
		"prices":        PriceTable(DefaultPrices()),
		"tables":        Markdown(DefaultPrices(), DefaultAssumptions()),
		"levers":        LeverTable(DefaultPrices()),
		"assumptions":   AssumptionTable(DefaultAssumptions()),
		"origins":       OriginTable(DefaultPrices()),
		"goal":          GoalText(DefaultPrices(), DefaultAssumptions()),
		"measured":      MeasuredTable(Current),
		"kinesis":       KinesisText(DefaultPrices(), DefaultAssumptions()),
		"invalidations": InvalidationText(DefaultPrices(), DefaultAssumptions()),
		"options":       OptionTable(DefaultPrices(), DefaultAssumptions()),
		"versionkeys":   VersionKeysText(DefaultPrices(), DefaultAssumptions()),
	}
	for name, want := range sections {
		begin, end := "<!-- costmodel:"+name+":begin -->\n", "<!-- costmodel:"+name+":end -->"
		i, j := strings.Index(text, begin), strings.Index(text, end)
		require.True(t, i >= 0 && j > i, "markers for %s", name)
		got := text[i+len(begin) : j]
		if *update {
			text = text[:i+len(begin)] + want + text[j:]
			continue
		}
		assert.Equal(t, want, got, "docs/cost-model.md section %s is stale: go test ./infra/costmodel -update", name)
	}
	if *update {
		require.NoError(t, os.WriteFile(doc, []byte(text), 0o644))
		return
	}
	// The prose quotes the tables: every dollar amount of $100 or more it
	// names must be one the model computes.
	computed := strings.Join([]string{sections["tables"], sections["levers"], sections["origins"], sections["goal"], sections["kinesis"], sections["invalidations"], sections["versionkeys"]}, "")
	prose := text[:strings.Index(text, "## Prices")]
	for _, amount := range dollars.FindAllString(prose, -1) {
		assert.Contains(t, computed, amount, "the headline quotes %s, which the model no longer computes", amount)
	}
	// So does the README's cost paragraph.
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	i := strings.Index(string(readme), "**What it costs**")
	require.True(t, i >= 0, "README's cost paragraph")
	paragraph, _, _ := strings.Cut(string(readme)[i:], "\n\n")
	for _, amount := range dollars.FindAllString(paragraph, -1) {
		assert.Contains(t, computed, amount, "README's cost paragraph quotes %s, which the model no longer computes", amount)
	}
}

// dollars are the amounts of $100 or more a text quotes.
var dollars = regexp.MustCompile(`\$[1-9][0-9]{0,2}(,[0-9]{3})+|\$[1-9][0-9]{2}\b`)

// TestEveryLineHasOneVerdict: the goal's floors cover every line the
// model can produce, each by exactly one verdict, and no floor is above
// its line.
func TestEveryLineHasOneVerdict(t *testing.T) {
	p := DefaultPrices()
	for _, a := range []Assumptions{TodayAssumptions(), DefaultAssumptions(), AllProposals()} {
		for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
			for _, ph := range Phases {
				for _, h := range HitRatios {
					f := FloorOf(l, ph, h, p, a)
					for _, fl := range f.Lines {
						n := 0
						for _, v := range Verdicts {
							if strings.HasPrefix(fl.Component, v.Line) {
								n++
							}
						}
						assert.Equal(t, 1, n, "verdicts for %q", fl.Component)
						assert.LessOrEqual(t, fl.Floor, fl.USD, fl.Component)
						assert.GreaterOrEqual(t, fl.Floor, 0.0, fl.Component)
					}
					assert.LessOrEqual(t, f.Total, f.Estimate.Total)
				}
			}
		}
	}
}

// TestFloorsHandChecked: the floors that are not their whole line, at the
// seed load, 90 % hits, with the defaults.
func TestFloorsHandChecked(t *testing.T) {
	p := DefaultPrices()
	y5 := FloorOf(SeedLoad, Year5, 0.90, p, DefaultAssumptions())
	floor := func(prefix string) float64 {
		t.Helper()
		fl, ok := floorLineOf(y5, prefix)
		require.True(t, ok, prefix)
		return fl.Floor
	}
	assert.InDelta(t, 12*730*0.015+10e3*0.014, floor("Kinesis"), 0.01, "provisioned, 12 shards")
	assert.InDelta(t, 2*6*160*0.10, floor("DynamoDB by-owner index storage"), 0.01, "KEYS_ONLY, Standard-IA")
	assert.InDelta(t, 2*6*200*0.25, floor("DynamoDB reservation table storage"), 0.01, "both replicas, no PITR")
	assert.InDelta(t, 100e6*2*4/1e6*0.625*1.25, floor("DynamoDB lifecycle writes"), 0.01, "the tombstone's 4 writes per Region, Standard-IA")
	assert.Zero(t, floor("PITR links table"))
	assert.Zero(t, floor("CloudFront Function: canonical paths"))
	assert.Zero(t, floor("CloudFront Function: the visitor's query"))
	assert.InDelta(t, lineUSD(y5.Estimate, "CloudFront invalidations"), floor("CloudFront invalidations"), 0.001)

	// The request path is the serving lines every redirect and /v1 call
	// needs, whole.
	want := 0.0
	for _, name := range []string{"CloudFront requests", "CloudFront data out", "API Gateway HTTP API", "API Gateway REST API",
		"Lambda: redirect, create, manage, stats", "Lambda: origin authorizer", "DynamoDB redirect reads", "DynamoDB link writes",
		"DynamoDB API key reads"} {
		want += lineUSD(y5.Estimate, name)
	}
	assert.InDelta(t, want, y5.ByPart[RequestPath], 0.001)
	sum := 0.0
	for _, pt := range Parts {
		sum += y5.ByPart[pt]
	}
	assert.InDelta(t, y5.Total, sum, 0.001)
}
