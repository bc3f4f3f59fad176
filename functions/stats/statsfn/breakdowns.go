package statsfn

import (
	"context"
	"math"
	"time"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/statsapi"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// breakdowns reads code's agent, campaign and visitor entries over the
// UTC days [from, to) and splits them into the API's breakdowns: every
// device, OS and browser (a few fixed names each), the top campaign
// values, and the visitor estimate. complete is false when a breakdown
// read only part of its entries.
func breakdowns(ctx context.Context, clicks Clicks, code string, from, to time.Time) (statsapi.Breakdowns, bool, error) {
	b := statsapi.Breakdowns{Devices: []statsapi.Named{}, OperatingSystems: []statsapi.Named{}, Browsers: []statsapi.Named{}}
	agents, complete, err := clicks.Breakdown(ctx, code, clickstore.Agent, from, to)
	if err != nil {
		return b, false, err
	}
	devices, systems, browsers := map[string]clickstore.Counts{}, map[string]clickstore.Counts{}, map[string]clickstore.Counts{}
	for dim, n := range agents {
		d, o, br := clickstore.SplitAgentDim(dim)
		addTo(devices, d, n)
		addTo(systems, o, n)
		addTo(browsers, br, n)
	}
	b.Devices, b.OperatingSystems, b.Browsers = named(devices, len(clicklog.Devices)), named(systems, len(clicklog.OperatingSystems)), named(browsers, len(clicklog.Browsers))

	campaigns, ok, err := clicks.Breakdown(ctx, code, clickstore.Campaign, from, to)
	if err != nil {
		return b, false, err
	}
	complete = complete && ok
	sources, media, names := map[string]clickstore.Counts{}, map[string]clickstore.Counts{}, map[string]clickstore.Counts{}
	for dim, n := range campaigns {
		c := clicklog.CampaignFromKey(dim)
		if c.Source != "" {
			addTo(sources, c.Source, n)
		}
		if c.Medium != "" {
			addTo(media, c.Medium, n)
		}
		if c.Name != "" {
			addTo(names, c.Name, n)
		}
	}
	b.Campaigns = &statsapi.Campaigns{Sources: named(sources, TopBreakdowns), Media: named(media, TopBreakdowns), Campaigns: named(names, TopBreakdowns)}

	regs, ok, err := clicks.Breakdown(ctx, code, clickstore.Visitor, from, to)
	if err != nil {
		return b, false, err
	}
	complete = complete && ok
	var sk visitors.Sketch
	for dim := range regs {
		if r, ok := visitors.FromDim(dim); ok {
			sk.Add(r)
		}
	}
	b.Visitors = &statsapi.Visitors{Estimate: int64(math.Round(sk.Estimate())), StandardError: math.Round(visitors.StandardError*1000) / 1000}
	return b, complete, nil
}

func addTo[K comparable](m map[K]clickstore.Counts, k K, n clickstore.Counts) {
	v := m[k]
	v.Add(n)
	m[k] = v
}

// named lists the n largest entries of m, by total clicks, ties by name.
func named(m map[string]clickstore.Counts, n int) []statsapi.Named {
	keys := ranked(m)
	out := make([]statsapi.Named, 0, min(n, len(keys)))
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, statsapi.Named{Name: k, Counts: counts(m[k])})
	}
	return out
}
