// Package statsfn answers GET /v1/links/{code}/stats: the click counts of
// one link, for its owner only. The Lambda in functions/stats and the local
// gateway run this same handler.
//
// # Request
//
//	GET /v1/links/{code}/stats?from=&to=&granularity=hour|day
//
// {code} is the link's code, or its alias in any case.
// from and to are RFC 3339 times (2026-11-30T12:00:00Z) or UTC dates
// (2026-11-30). The range is [from, to): from is rounded down and to up to
// whole buckets, and a date given as to includes that day. Defaults:
// granularity day, to the end of the current bucket, from 7 days before to,
// so a bare request gives the last 7 days, today included. Hourly ranges
// span at most 92 days, daily ones 400; a range out of bounds, an unknown
// parameter or a malformed value is a 400 problem naming the parameter.
// Someone else's link, like a missing one, is a 404: the API does not tell
// who owns which code.
//
// # Response
//
//	{
//	  "code": "Ab3dE5g",
//	  "granularity": "day",
//	  "from": "2026-11-24T00:00:00Z",
//	  "to": "2026-12-01T00:00:00Z",
//	  "totals": {"total": 28, "human": 20, "bot": 8},
//	  "series": [
//	    {"start": "2026-11-24T00:00:00Z", "total": 0, "human": 0, "bot": 0},
//	    ...
//	    {"start": "2026-11-30T00:00:00Z", "total": 28, "human": 20, "bot": 8}
//	  ],
//	  "countries": [{"country": "US", "total": 14, "human": 6, "bot": 8}, ...],
//	  "referrers": [{"host": "news.ycombinator.com", "total": 5, "human": 5, "bot": 0}, ...],
//	  "devices": [{"name": "desktop", "total": 12, "human": 12, "bot": 0}, {"name": "bot", ...}, ...],
//	  "os": [{"name": "Windows", ...}, ...],
//	  "browsers": [{"name": "Chrome", ...}, ...],
//	  "campaigns": {"sources": [{"name": "newsletter", ...}], "media": [...], "campaigns": [...]},
//	  "visitors": {"estimate": 17, "standard_error": 0.033}
//	}
//
// series has one entry per bucket of the range, zeros included, in time
// order; totals is its sum. countries and referrers are the top 10 by total
// clicks (ties by name), counted per UTC day, so with hourly granularity
// they cover the whole days the range touches; clicks without a known
// country or a Referer are in the totals but in neither list. devices, os
// and browsers list every name the User-Agent classifier gives that has
// clicks (bots are the device "bot"); campaigns the top 10 values of each
// utm_ parameter, over the clicks that carried it; visitors a HyperLogLog
// estimate of distinct people (IP and User-Agent under a salt of the UTC
// day, so each day counts its own: a range sums visitor-days), within a
// relative standard error of 3.25 %. "partial":
// true appears when a breakdown had more entries than one request reads.
// Counts start at the link's creation, so a reclaimed code never shows its
// previous owner's clicks. They lag the clicks by seconds (CloudFront
// real-time logs, then Kinesis) and never come from the link item.
package statsfn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/statsapi"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// Links reads one link; linkstore.Store satisfies it.
type Links interface {
	Get(ctx context.Context, code string) (link.Link, error)
}

// Clicks reads click counts; every clickstore.Store satisfies it.
type Clicks interface {
	Series(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) ([]clickstore.Point, error)
	Breakdown(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) (map[string]clickstore.Counts, bool, error)
}

var _ Clicks = clickstore.Store(nil)

// Viewer is a Clicks that can read all of a code's counts over a range at
// once (packedclicks, whose every read costs the same whatever it keeps):
// the handler then answers the series and both breakdowns from one read.
type Viewer interface {
	View(ctx context.Context, code string, from, to time.Time) (*packedclicks.View, error)
}

var (
	_ Viewer = (*packedclicks.Store)(nil)
	_ Clicks = (*packedclicks.View)(nil)
)

// Bounds and defaults of a request.
const (
	DefaultRange  = 7 * 24 * time.Hour
	MaxHourRange  = 92 * 24 * time.Hour // dynamo.ClickStore keeps hours 92 days
	MaxDayRange   = 400 * 24 * time.Hour
	TopBreakdowns = 10
)

// Options are what New builds a Handler from: the link, its click counts
// and the caller's owner.
type Options struct {
	Links   Links
	Clicks  Clicks
	Now     func() time.Time
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Owners resolves the caller's API key to its owner (the keys table).
	Owners apigw.Owners
	// Lists lists the owner's links for GET /v1/stats (the by-owner
	// index); Tagged, when set, those with a tag (?tag=).
	Lists  Lister
	Tagged Tagged
}

// Handler answers stats requests.
type Handler struct {
	Options
}

// New builds a handler from o.
func New(o Options) *Handler { return &Handler{Options: o} }

// counts is a click store total as the API writes it.
func counts(c clickstore.Counts) statsapi.Counts {
	return statsapi.Counts{Total: c.Total, Human: c.Human, Bot: c.Bot}
}

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return apigw.Serve(ctx, h.Log, h.Metrics, &req, h.stats), nil
}

func (h *Handler) stats(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	p, err := apigw.Authorize(ctx, req, h.Owners, apigw.RoleViewer)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	owner := p.Owner
	if req.HTTPMethod != http.MethodGet {
		return events.APIGatewayProxyResponse{}, &apigw.MethodError{Allow: http.MethodGet, Detail: "use GET to read a link's stats"}
	}
	if req.Resource == ResourceAccount || req.Resource == "" && req.Path == ResourceAccount {
		return h.account(ctx, req, owner)
	}
	q, err := parseQuery(req.QueryStringParameters, h.Now().UTC())
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	l, err := h.owned(ctx, owner, codeParam(req))
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	body, err := h.read(ctx, l, q)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	h.Metrics.Add("StatsServed", metrics.Count, 1)
	return apigw.JSON(http.StatusOK, body, nil), nil
}

// codeParam is {code}, from the path parameters API Gateway fills in, or
// from the path itself.
func codeParam(req *events.APIGatewayProxyRequest) string {
	if c := req.PathParameters["code"]; c != "" {
		return c
	}
	c := strings.TrimPrefix(req.Path, "/v1/links/")
	return strings.TrimSuffix(c, "/stats")
}

// owned returns the caller's live link named by code; see linkstore.GetOwned.
func (h *Handler) owned(ctx context.Context, owner, code string) (link.Link, error) {
	return linkstore.GetOwned(ctx, h.Links, owner, code)
}

// query is a request's parsed parameters, aligned to its buckets.
type query struct {
	kind     clickstore.Kind
	step     time.Duration
	from, to time.Time
}

func (q query) granularity() string {
	if q.kind == clickstore.Hour {
		return "hour"
	}
	return "day"
}

func parseQuery(params map[string]string, now time.Time) (query, error) {
	for name := range params {
		if name != "from" && name != "to" && name != "granularity" {
			return query{}, &link.FieldError{Field: name, Reason: "is not a known parameter; use from, to and granularity"}
		}
	}
	q := query{kind: clickstore.Day, step: 24 * time.Hour}
	limit := MaxDayRange
	switch g := params["granularity"]; g {
	case "", "day":
	case "hour":
		q.kind, q.step, limit = clickstore.Hour, time.Hour, MaxHourRange
	default:
		return query{}, &link.FieldError{Field: "granularity", Reason: "must be hour or day"}
	}

	q.to = now.Truncate(q.step).Add(q.step)
	if v := params["to"]; v != "" {
		t, date, err := parseTime(v)
		if err != nil {
			return query{}, &link.FieldError{Field: "to", Reason: err.Error()}
		}
		if date {
			t = t.AddDate(0, 0, 1) // a day given as to is included
		}
		q.to = ceil(t, q.step)
	}
	q.from = q.to.Add(-DefaultRange)
	if v := params["from"]; v != "" {
		t, _, err := parseTime(v)
		if err != nil {
			return query{}, &link.FieldError{Field: "from", Reason: err.Error()}
		}
		q.from = t.Truncate(q.step)
	}
	switch {
	case !q.from.Before(q.to):
		return query{}, &link.FieldError{Field: "from", Reason: "must be before to"}
	case q.to.Sub(q.from) > limit:
		return query{}, &link.FieldError{Field: "from", Reason: fmt.Sprintf("must be at most %d days before to for %s stats",
			limit/(24*time.Hour), q.granularity())}
	}
	return q, nil
}

// parseTime reads an RFC 3339 time or a UTC date; date says which.
func parseTime(v string) (t time.Time, date bool, err error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, true, nil
	}
	t, err = time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, false, errors.New("must be an RFC 3339 time such as 2026-11-30T12:00:00Z or a date such as 2026-11-30")
	}
	return t.UTC(), false, nil
}

// ceil rounds t up to a multiple of step since the epoch (time.Truncate's
// zero, which for hours and days in UTC is the same grid).
func ceil(t time.Time, step time.Duration) time.Time {
	if f := t.Truncate(step); !f.Equal(t) {
		return f.Add(step)
	}
	return t
}

// read gathers the stats of l over q.
func (h *Handler) read(ctx context.Context, l link.Link, q query) (statsapi.Stats, error) {
	s := statsapi.Stats{Code: l.Code, Granularity: q.granularity(), From: q.from, To: q.to,
		Series: make([]statsapi.Point, 0, q.to.Sub(q.from)/q.step), Countries: []statsapi.Country{}, Referrers: []statsapi.Referrer{},
		Breakdowns: statsapi.Breakdowns{Devices: []statsapi.Named{}, OperatingSystems: []statsapi.Named{}, Browsers: []statsapi.Named{},
			Campaigns: &statsapi.Campaigns{Sources: []statsapi.Named{}, Media: []statsapi.Named{}, Campaigns: []statsapi.Named{}},
			Visitors:  &statsapi.Visitors{StandardError: math.Round(visitors.StandardError*1000) / 1000}}}
	if l.ImportedClicks > 0 {
		// Counted elsewhere, at no known time: apart from every count here.
		s.Imported = &statsapi.Imported{Clicks: l.ImportedClicks}
	}
	// Counts before the link existed belong to whoever held the code
	// before it was reclaimed.
	from := q.from
	if created := l.CreatedAt.UTC().Truncate(q.step); created.After(from) {
		from = created
	}
	var points []clickstore.Point
	if from.Before(q.to) {
		day := 24 * time.Hour
		dayFrom, dayTo := from.Truncate(day), ceil(q.to, day)
		clicks := h.Clicks
		if v, ok := clicks.(Viewer); ok {
			view, err := v.View(ctx, l.Code, dayFrom, dayTo)
			if err != nil {
				return statsapi.Stats{}, err
			}
			clicks = view
		}
		var err error
		if points, err = clicks.Series(ctx, l.Code, q.kind, from, q.to); err != nil {
			return statsapi.Stats{}, err
		}
		countries, complete, err := clicks.Breakdown(ctx, l.Code, clickstore.Country, dayFrom, dayTo)
		if err != nil {
			return statsapi.Stats{}, err
		}
		s.Partial = !complete
		referrers, complete, err := clicks.Breakdown(ctx, l.Code, clickstore.Referrer, dayFrom, dayTo)
		if err != nil {
			return statsapi.Stats{}, err
		}
		s.Partial = s.Partial || !complete
		bd, complete, err := breakdowns(ctx, clicks, l.Code, dayFrom, dayTo)
		if err != nil {
			return statsapi.Stats{}, err
		}
		s.Breakdowns, s.Partial = bd, s.Partial || !complete
		for _, k := range top(countries) {
			s.Countries = append(s.Countries, statsapi.Country{Country: k, Counts: counts(countries[k])})
		}
		for _, k := range top(referrers) {
			s.Referrers = append(s.Referrers, statsapi.Referrer{Host: k, Counts: counts(referrers[k])})
		}
		if len(l.Rules) > 0 || len(l.Targets) > 0 {
			dests, complete, err := h.Clicks.Breakdown(ctx, l.Code, clickstore.Destination, dayFrom, dayTo)
			if err != nil {
				return statsapi.Stats{}, err
			}
			s.Partial = s.Partial || !complete
			s.Destinations = []statsapi.Destination{}
			// All of them: at most MaxRules + MaxTargets + 2, and so they
			// add up to the link's clicks.
			for _, k := range ranked(dests) {
				s.Destinations = append(s.Destinations, statsapi.Destination{Destination: k, Counts: counts(dests[k])})
			}
		}
	}
	// Zero-fill: one point per bucket, the stored ones where they are.
	i := 0
	for t := q.from; t.Before(q.to); t = t.Add(q.step) {
		p := statsapi.Point{Start: t}
		for i < len(points) && points[i].Start.Before(t) {
			i++ // outside the grid; the store does not return such
		}
		if i < len(points) && points[i].Start.Equal(t) {
			p.Counts = counts(points[i].Counts)
			i++
		}
		s.Totals.Add(p.Counts)
		s.Series = append(s.Series, p)
	}
	return s, nil
}

// top returns the keys of the TopBreakdowns largest entries, by total
// clicks, ties by key.
func top(m map[string]clickstore.Counts) []string {
	keys := ranked(m)
	return keys[:min(len(keys), TopBreakdowns)]
}

// ranked returns the keys of m by total clicks, most first, ties by key.
func ranked(m map[string]clickstore.Counts) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b].Total, m[a].Total), cmp.Compare(a, b))
	})
	return keys
}
