package statsapi

import "time"

// Stats is the response body of GET /v1/links/{code}/stats.
type Stats struct {
	Code        string     `json:"code"`
	Granularity string     `json:"granularity"`
	From        time.Time  `json:"from"`
	To          time.Time  `json:"to"`
	Totals      Counts     `json:"totals"`
	Series      []Point    `json:"series"`
	Countries   []Country  `json:"countries"`
	Referrers   []Referrer `json:"referrers"`
	// Destinations break a link with rules or targets down by where its
	// clicks went; absent for other links.
	Destinations []Destination `json:"destinations,omitempty"`
	Partial      bool          `json:"partial,omitempty"`
	// Breakdowns by device, OS, browser and campaign, and the visitors,
	// counted per UTC day like the countries.
	Breakdowns
	// Imported is the click total another shortener counted before the
	// link was imported: shown apart, never in Totals, Series or any
	// breakdown. Absent when the link has none.
	Imported *Imported `json:"imported,omitempty"`
}

// Imported is an imported click total (the link's imported_clicks).
type Imported struct {
	Clicks int64 `json:"clicks"`
}

// Counts are the clicks of a bucket, a breakdown entry or the range:
// Total is Human + Bot.
type Counts struct {
	Total int64 `json:"total"`
	Human int64 `json:"human"`
	Bot   int64 `json:"bot"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Total += o.Total
	c.Human += o.Human
	c.Bot += o.Bot
}

// Point is one bucket of the series.
type Point struct {
	Start time.Time `json:"start"`
	Counts
}

// Country is one entry of the country breakdown.
type Country struct {
	Country string `json:"country"`
	Counts
}

// Referrer is one entry of the referrer breakdown.
type Referrer struct {
	Host string `json:"host"`
	Counts
}

// Destination is one entry of the destination breakdown: "rule-0" (the
// link's rules[0]), "target-1" (targets[1]), "default" (its url, no rule
// matched) or "expired" (its expired_url).
type Destination struct {
	Destination string `json:"destination"`
	Counts
}

// Named is one entry of a breakdown by a name: a device type, an operating
// system, a browser or a campaign parameter's value.
type Named struct {
	Name string `json:"name"`
	Counts
}

// Campaigns break the clicks of requests that carried utm_ parameters down
// by each parameter; a click without one is in the totals only. Values
// are cut at 50 bytes, and a link keeps at most 20 campaigns a day: the
// clicks of any more count under "other".
type Campaigns struct {
	Sources   []Named `json:"sources"`
	Media     []Named `json:"media"`
	Campaigns []Named `json:"campaigns"`
}

// Visitors is the estimated number of distinct visitors (people, not bots:
// IP address and User-Agent, hashed under a salt that changes every UTC
// day, so a visitor counts once a day and a range sums its days).
type Visitors struct {
	Estimate int64 `json:"estimate"`
	// StandardError is the estimate's relative standard error, 1.04 /
	// sqrt(1024) = 0.0325 (0.033 rounded), once a day has thousands of visitors (below that
	// the estimate is closer).
	StandardError float64 `json:"standard_error"`
}

// Breakdowns are the device, OS, browser, campaign and visitor figures of
// a range; Stats carries them, and so does each link of AccountStats.
type Breakdowns struct {
	Devices          []Named    `json:"devices"`
	OperatingSystems []Named    `json:"os"`
	Browsers         []Named    `json:"browsers"`
	Campaigns        *Campaigns `json:"campaigns,omitempty"`
	Visitors         *Visitors  `json:"visitors,omitempty"`
}

// AccountStats is the response body of GET /v1/stats: the owner's links
// over a range of UTC days, summed.
type AccountStats struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Links is how many links were summed: the owner's newest MaxAccountLinks,
	// or the ones named by codes.
	Links     int       `json:"links"`
	Totals    Counts    `json:"totals"`
	Series    []Point   `json:"series"`
	TopLinks  []Link    `json:"top_links"`
	Countries []Country `json:"countries"`
	Devices   []Named   `json:"devices"`
	// PerLink is each requested link's daily series, in the order of
	// codes; only when the request named codes (the console's links list:
	// one call for every sparkline of a page).
	PerLink []LinkSeries `json:"per_link,omitempty"`
	// Partial is true when the owner has more links than were summed, or
	// a breakdown read only part of its entries.
	Partial bool `json:"partial,omitempty"`
}

// MaxAccountLinks is how many of the owner's newest links GET /v1/stats sums.
const MaxAccountLinks = 1000

// Link is one entry of the top links.
type Link struct {
	Code string `json:"code"`
	Counts
}

// LinkSeries is one link's clicks of the range, day by day.
type LinkSeries struct {
	Code   string  `json:"code"`
	Totals Counts  `json:"totals"`
	Series []Point `json:"series"`
}
