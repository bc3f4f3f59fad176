package costmodel

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the computed sections of docs/cost-model.md")

const doc = "../../docs/cost-model.md"

// Hand-checked figures at the seed load, 90 % edge hits, so a change to
// the arithmetic shows up as more than a changed document.
func TestSeedLoadAt90(t *testing.T) {
	e := Compute(SeedLoad, 0.90, DefaultPrices(), DefaultAssumptions())
	line := func(name string) float64 {
		for _, l := range e.Lines {
			if l.Component == name {
				return l.USD
			}
		}
		t.Fatalf("no line %q", name)
		return 0
	}
	assert.InDelta(t, 10_000, e.Floor, 0.01, "10 B x $0.01 per 10,000 (S31)")
	assert.InDelta(t, 10_120, line("CloudFront requests"), 0.01, "plus 120 M /v1 requests")
	assert.InDelta(t, 300*1.00+700*0.90, line("API Gateway HTTP API (redirect misses)"), 0.01, "1 B misses, tiered (S34)")
	assert.InDelta(t, 120*3.50, line("API Gateway REST API (/v1)"), 0.01)
	assert.InDelta(t, 100, line("Real-time logs"), 0.01, "10 B lines x $0.01/M (S19)")
	assert.InDelta(t, 1e9*0.5/1e6*0.125, line("DynamoDB redirect reads"), 0.01, "eventually consistent: half a unit")
	assert.InDelta(t, 100e6*7.5/1e6*0.625, line("DynamoDB link writes (creates, all regions)"), 0.01, "5.5 WRU of item and by-owner writes, 1 expiring-links entry per region")
	assert.InDelta(t, 100e6*12/1e6*0.625, line("DynamoDB lifecycle writes"), 0.01, "per region: tombstone in place (item + 3 index writes), release (item + 1)")
	assert.InDelta(t, 10e9*6.79/1e6*0.625, line("DynamoDB click counters"), 0.01, "measured by make cost")
	assert.InDelta(t, e.Total, e.ByGroup[Serving]+e.ByGroup[Analytics]+e.ByGroup[Lifecycle]+e.ByGroup[Platform], 0.001)
}

func TestMoreHitsCostLess(t *testing.T) {
	p, a := DefaultPrices(), DefaultAssumptions()
	for _, l := range []Load{SeedLoad, SeedLoad.Times(10, "10x")} {
		prev := Compute(l, HitRatios[0], p, a).Total
		for _, h := range HitRatios[1:] {
			cur := Compute(l, h, p, a).Total
			assert.Less(t, cur, prev, "%s at %g", l.Name, h)
			prev = cur
		}
	}
}

func TestEveryPriceHasASource(t *testing.T) {
	table := PriceTable(DefaultPrices())
	for _, row := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		cells := strings.Split(row, "|")
		src := strings.TrimSpace(cells[len(cells)-2])
		assert.True(t, strings.HasPrefix(src, "S") || src == "UNCONFIRMED", row)
	}
}

// TestDocumentMatchesModel keeps docs/cost-model.md's computed sections
// equal to the model; `go test ./infra/costmodel -update` rewrites them.
func TestDocumentMatchesModel(t *testing.T) {
	raw, err := os.ReadFile(filepath.Clean(doc))
	require.NoError(t, err)
	text := string(raw)
	sections := map[string]string{
		"prices":      PriceTable(DefaultPrices()),
		"tables":      Markdown(DefaultPrices(), DefaultAssumptions()),
		"levers":      LeverTable(DefaultPrices()),
		"assumptions": AssumptionTable(DefaultAssumptions()),
		"origins":     OriginTable(DefaultPrices()),
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
	computed := strings.Join([]string{sections["tables"], sections["levers"], sections["origins"]}, "")
	prose := text[:strings.Index(text, "## Prices")]
	for _, amount := range regexp.MustCompile(`\$[1-9][0-9]{0,2}(,[0-9]{3})+|\$[1-9][0-9]{2}\b`).FindAllString(prose, -1) {
		assert.Contains(t, computed, amount, "the headline quotes %s, which the model no longer computes", amount)
	}
}
