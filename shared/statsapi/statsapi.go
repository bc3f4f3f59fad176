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
