package statsfn

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// ResourceAccount is the API Gateway resource of the account's stats.
const ResourceAccount = "/v1/stats"

// MaxCodes bounds the codes one account request names: a page of the
// links list (linkstore.MaxPage).
const MaxCodes = linkstore.MaxPage

// readers is how many links an account request reads at once.
const readers = 16

// Lister lists an owner's links, newest first; linkstore.Store satisfies
// it (a Query on the by-owner index).
type Lister interface {
	List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error)
}

// Tagged lists an owner's links that carry a tag, newest first, at most
// limit; more is true when there were more. It is the seam for ?tag=: a
// deployment without it answers ?tag= with a 400.
type Tagged interface {
	ListTagged(ctx context.Context, owner, tag string, limit int) (links []link.Link, more bool, err error)
}

// account answers GET /v1/stats?from=&to=[&codes=a,b][&tag=t]: the
// owner's newest statsapi.MaxAccountLinks links (or the ones codes names,
// or those tagged tag), summed per UTC day.
func (h *Handler) account(ctx context.Context, req *events.APIGatewayProxyRequest, owner string) (events.APIGatewayProxyResponse, error) {
	params := map[string]string{}
	var codes []string
	var tag string
	for k, v := range req.QueryStringParameters {
		switch k {
		case "codes":
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					codes = append(codes, c)
				}
			}
			if len(codes) == 0 || len(codes) > MaxCodes {
				return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "codes", Reason: "must name 1 to 100 links, separated by commas"}
			}
		case "tag":
			tag = v
		case "granularity":
			if v != "day" {
				return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "granularity", Reason: "must be day: the account's stats are daily"}
			}
		case "from", "to":
			params[k] = v
		default:
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: k, Reason: "is not a known parameter; use from, to, codes and tag"}
		}
	}
	if tag != "" && codes != nil {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "tag", Reason: "cannot be combined with codes"}
	}
	q, err := parseQuery(params, h.Now().UTC())
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	links, more, err := h.accountLinks(ctx, owner, codes, tag)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	body, err := h.sum(ctx, links, q, codes != nil)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	body.Partial = body.Partial || more
	for i := range body.PerLink {
		body.PerLink[i].Code = codes[i] // as the caller named it, alias spelling and all
	}
	h.Metrics.Add("AccountStatsServed", metrics.Count, 1)
	h.Metrics.Add("AccountStatsLinks", metrics.Count, float64(len(links)))
	return apigw.JSON(http.StatusOK, body, nil), nil
}

// accountLinks picks the links an account request sums; more is true when
// the owner has more than were picked.
func (h *Handler) accountLinks(ctx context.Context, owner string, codes []string, tag string) ([]link.Link, bool, error) {
	switch {
	case codes != nil:
		links := make([]link.Link, 0, len(codes))
		for _, c := range codes {
			l, err := h.owned(ctx, owner, c)
			if errors.Is(err, link.ErrNotFound) {
				// Someone else's or gone: it has no clicks for this caller.
				links = append(links, link.Link{Code: c})
				continue
			}
			if err != nil {
				return nil, false, err
			}
			links = append(links, l)
		}
		return links, false, nil
	case tag != "":
		if h.Tagged == nil {
			return nil, false, &link.FieldError{Field: "tag", Reason: "filtering by tag is not available here yet"}
		}
		return h.Tagged.ListTagged(ctx, owner, tag, statsapi.MaxAccountLinks)
	}
	if h.Lists == nil {
		return nil, false, errors.New("account stats: no link lister configured")
	}
	var links []link.Link
	cursor := ""
	for {
		page, next, err := h.Lists.List(ctx, owner, linkstore.MaxPage, cursor)
		if err != nil {
			return nil, false, err
		}
		links = append(links, page...)
		if next == "" {
			return links, false, nil
		}
		if len(links) >= statsapi.MaxAccountLinks {
			return links[:statsapi.MaxAccountLinks], true, nil
		}
		cursor = next
	}
}

// linkFigures are one link's counts of an account request.
type linkFigures struct {
	points    []clickstore.Point
	countries map[string]clickstore.Counts
	agents    map[string]clickstore.Counts
	complete  bool
}

// sum reads each link's days (readers at a time) and adds them up.
func (h *Handler) sum(ctx context.Context, links []link.Link, q query, perLink bool) (statsapi.AccountStats, error) {
	day := 24 * time.Hour
	figs := make([]linkFigures, len(links))
	errs := make([]error, len(links))
	var wg sync.WaitGroup
	sem := make(chan struct{}, readers)
	for i, l := range links {
		from := q.from
		if created := l.CreatedAt.UTC().Truncate(day); created.After(from) {
			from = created
		}
		if l.Owner == "" || !from.Before(q.to) {
			figs[i].complete = true // not the caller's, or made after the range
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			figs[i], errs[i] = h.linkFigures(ctx, l.Code, from.Truncate(day), ceil(q.to, day))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return statsapi.AccountStats{}, err
	}

	out := statsapi.AccountStats{From: q.from, To: q.to, Links: len(links), TopLinks: []statsapi.Link{},
		Countries: []statsapi.Country{}, Devices: []statsapi.Named{}}
	series := map[int64]clickstore.Counts{}
	countries, devices, totals := map[string]clickstore.Counts{}, map[string]clickstore.Counts{}, map[string]clickstore.Counts{}
	for i, f := range figs {
		out.Partial = out.Partial || !f.complete
		var lt clickstore.Counts
		for _, p := range f.points {
			addTo(series, p.Start.Unix(), p.Counts)
			lt.Add(p.Counts)
		}
		if lt.Total > 0 {
			totals[links[i].Code] = lt
		}
		for k, n := range f.countries {
			addTo(countries, k, n)
		}
		for k, n := range f.agents {
			d, _, _ := clickstore.SplitAgentDim(k)
			addTo(devices, d, n)
		}
		if perLink {
			ls := statsapi.LinkSeries{Code: links[i].Code, Series: grid(q, f.points)}
			for _, p := range ls.Series {
				ls.Totals.Add(p.Counts)
			}
			out.PerLink = append(out.PerLink, ls)
		}
	}
	byDay := make([]clickstore.Point, 0, len(series))
	for t := q.from; t.Before(q.to); t = t.Add(day) {
		if n, ok := series[t.Unix()]; ok {
			byDay = append(byDay, clickstore.Point{Start: t, Counts: n})
		}
	}
	out.Series = grid(q, byDay)
	for _, p := range out.Series {
		out.Totals.Add(p.Counts)
	}
	for _, k := range top(totals) {
		out.TopLinks = append(out.TopLinks, statsapi.Link{Code: k, Counts: counts(totals[k])})
	}
	for _, k := range top(countries) {
		out.Countries = append(out.Countries, statsapi.Country{Country: k, Counts: counts(countries[k])})
	}
	out.Devices = named(devices, 5)
	return out, nil
}

// linkFigures reads one link's daily series, countries and agents over the
// UTC days [from, to), in one read where the store allows it.
func (h *Handler) linkFigures(ctx context.Context, code string, from, to time.Time) (linkFigures, error) {
	clicks := h.Clicks
	if v, ok := clicks.(Viewer); ok {
		view, err := v.View(ctx, code, from, to)
		if err != nil {
			return linkFigures{}, err
		}
		clicks = view
	}
	var f linkFigures
	var err error
	if f.points, err = clicks.Series(ctx, code, clickstore.Day, from, to); err != nil {
		return f, err
	}
	c1, c2 := false, false
	if f.countries, c1, err = clicks.Breakdown(ctx, code, clickstore.Country, from, to); err != nil {
		return f, err
	}
	if f.agents, c2, err = clicks.Breakdown(ctx, code, clickstore.Agent, from, to); err != nil {
		return f, err
	}
	f.complete = c1 && c2
	return f, nil
}

// grid is points on q's daily grid, zeros included.
func grid(q query, points []clickstore.Point) []statsapi.Point {
	out := make([]statsapi.Point, 0, q.to.Sub(q.from)/q.step)
	i := 0
	for t := q.from; t.Before(q.to); t = t.Add(q.step) {
		p := statsapi.Point{Start: t}
		for i < len(points) && points[i].Start.Before(t) {
			i++
		}
		if i < len(points) && points[i].Start.Equal(t) {
			p.Counts = counts(points[i].Counts)
			i++
		}
		out = append(out, p)
	}
	return out
}
