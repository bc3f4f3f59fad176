package statsfn

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/statsapi"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const owner = "p6r4ocs3d1" // the owner of the fixtures' API key

var now = time.Date(2026, 11, 30, 15, 20, 0, 0, time.UTC)

func day(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }

func event(t *testing.T, name string) events.APIGatewayProxyRequest {
	t.Helper()
	return eventtest.Load[events.APIGatewayProxyRequest](t, filepath.Join("testdata", name))
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

func n(total, human, bot int64) statsapi.Counts {
	return statsapi.Counts{Total: total, Human: human, Bot: bot}
}

// seed is what the clicks function would have written: 20 human GETs, 3
// HEADs and 5 Slackbot unfurls of Ab3dE5g between 12:00 and 13:59 on
// 30 November, 3 clicks on the 25th, clicks on Spring-Sale from before it
// existed (the code's previous owner), and a link seen from 12 countries.
var seed = map[clickstore.Key]clickstore.Counts{
	clickstore.HourKey("Ab3dE5g", day(30).Add(12*time.Hour)):           c(16, 12, 4),
	clickstore.HourKey("Ab3dE5g", day(30).Add(13*time.Hour)):           c(12, 8, 4),
	clickstore.DayKey("Ab3dE5g", day(30)):                              c(28, 20, 8),
	clickstore.CountryKey("Ab3dE5g", day(30), "DE"):                    c(10, 10, 0),
	clickstore.CountryKey("Ab3dE5g", day(30), "US"):                    c(14, 6, 8),
	clickstore.CountryKey("Ab3dE5g", day(30), "FR"):                    c(4, 4, 0),
	clickstore.ReferrerKey("Ab3dE5g", day(30), "news.ycombinator.com"): c(5, 5, 0),
	clickstore.ReferrerKey("Ab3dE5g", day(30), "t.co"):                 c(3, 3, 0),
	clickstore.HourKey("Ab3dE5g", day(25).Add(9*time.Hour)):            c(3, 3, 0),
	clickstore.DayKey("Ab3dE5g", day(25)):                              c(3, 3, 0),
	clickstore.CountryKey("Ab3dE5g", day(25), "US"):                    c(3, 3, 0),
	clickstore.DayKey("spring-sale", day(10)):                          c(50, 50, 0),
	clickstore.CountryKey("spring-sale", day(10), "GB"):                c(50, 50, 0),
	clickstore.DayKey("spring-sale", day(29)):                          c(2, 1, 1),
	clickstore.ReferrerKey("spring-sale", day(29), "t.co"):             c(1, 1, 0),
}

func manyCountries() map[clickstore.Key]clickstore.Counts {
	m := map[clickstore.Key]clickstore.Counts{clickstore.DayKey("worldwide", day(30)): c(78, 78, 0)}
	for i, cc := range []string{"AT", "BE", "CH", "DE", "ES", "FI", "GR", "HU", "IE", "JP", "KR", "LU"} {
		m[clickstore.CountryKey("worldwide", day(30), cc)] = c(int64(i+1), int64(i+1), 0)
	}
	return m
}

type fixture struct {
	h       *Handler
	links   *linkstore.Memory
	metrics *bytes.Buffer
}

var clicksStore *dynamo.ClickStore // one seeded table for the read-only tests

func seededClicks(t *testing.T) *dynamo.ClickStore {
	t.Helper()
	if clicksStore != nil {
		return clicksStore
	}
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "stats")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Analytics()))
	s := dynamo.NewClickStore(db, dynamo.ClickConfig{Table: table, Timeout: 20 * time.Second})
	for i, counts := range []map[clickstore.Key]clickstore.Counts{seed, manyCountries()} {
		ch := clickstore.Chunk{Shard: "test", First: fmt.Sprint(i + 1), Last: fmt.Sprint(i + 1)}
		for k, v := range counts {
			ch.Items = append(ch.Items, clickstore.Item{Key: k, Counts: v})
		}
		require.NoError(t, s.Apply(context.Background(), ch))
	}
	clicksStore = s
	return s
}

func newFixture(t *testing.T, clicks Clicks) *fixture {
	t.Helper()
	links := linkstore.NewMemory(func() time.Time { return now })
	for _, l := range []link.Link{
		{Code: "Ab3dE5g", Owner: owner, CreatedAt: day(1)},
		{Code: "spring-sale", Alias: "Spring-Sale", Owner: owner, CreatedAt: day(20).Add(10 * time.Hour)},
		{Code: "worldwide", Owner: owner, CreatedAt: day(1)},
		{Code: "0therXy", Owner: "someone-else", CreatedAt: day(1)},
		{Code: "promo25", Alias: "Promo25", Owner: owner, CreatedAt: day(1)},
		{Code: "Xyz1234", Owner: "someone-else", CreatedAt: day(1)},
		{Code: "xyz1234", Alias: "XYZ1234", Owner: owner, CreatedAt: day(1)},
		{Code: "tomb123", Status: link.StatusTombstone},
	} {
		l.URL, l.Status, l.ExpiresAt, l.Version, l.RedirectStatus = "https://example.com/", cmpStatus(l.Status), now.Add(time.Hour), 1, 302
		require.NoError(t, links.Create(context.Background(), l, nil))
	}
	f := &fixture{links: links, metrics: &bytes.Buffer{}}
	f.h = New(Options{
		Links:   links,
		Clicks:  clicks,
		Now:     func() time.Time { return now },
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: metrics.New(f.metrics, "Shortener", "stats"),
		// The keys table: the fixtures' key belongs to owner.
		Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{"k3yV4lu3Examp1e": owner}), apikey.ResolverOptions{}),
	})
	return f
}

func cmpStatus(s link.Status) link.Status {
	if s == "" {
		return link.StatusActive
	}
	return s
}

// get sends the default fixture for code with the query params.
func get(t *testing.T, f *fixture, code string, params map[string]string) events.APIGatewayProxyResponse {
	t.Helper()
	ev := event(t, "stats-default.json")
	ev.Path = "/v1/links/" + code + "/stats"
	ev.PathParameters = map[string]string{"code": code}
	ev.QueryStringParameters = params
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	return resp
}

func decode(t *testing.T, resp events.APIGatewayProxyResponse) statsapi.Stats {
	t.Helper()
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	s := apigwtest.Decode[statsapi.Stats](t, resp)
	return s
}

func TestHourlyFixture(t *testing.T) {
	f := newFixture(t, seededClicks(t))

	resp, err := f.h.Handle(context.Background(), event(t, "stats-request.json"))

	require.NoError(t, err)
	got := decode(t, resp)
	assert.Equal(t, statsapi.Stats{
		Code:        "Ab3dE5g",
		Granularity: "hour",
		From:        day(30).Add(12 * time.Hour),
		To:          day(30).Add(14 * time.Hour),
		Totals:      n(28, 20, 8),
		Series: []statsapi.Point{
			{Start: day(30).Add(12 * time.Hour), Counts: n(16, 12, 4)},
			{Start: day(30).Add(13 * time.Hour), Counts: n(12, 8, 4)},
		},
		Countries: []statsapi.Country{{Country: "US", Counts: n(14, 6, 8)}, {Country: "DE", Counts: n(10, 10, 0)}, {Country: "FR", Counts: n(4, 4, 0)}},
		Referrers: []statsapi.Referrer{{Host: "news.ycombinator.com", Counts: n(5, 5, 0)}, {Host: "t.co", Counts: n(3, 3, 0)}},
	}, got)
}

func TestResponseJSON(t *testing.T) {
	// The wire names the package doc promises.
	f := newFixture(t, seededClicks(t))

	resp := get(t, f, "Ab3dE5g", map[string]string{"from": "2026-11-30T13:00:00Z", "to": "2026-11-30T14:00:00Z", "granularity": "hour"})

	require.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{
		"code": "Ab3dE5g", "granularity": "hour",
		"from": "2026-11-30T13:00:00Z", "to": "2026-11-30T14:00:00Z",
		"totals": {"total": 12, "human": 8, "bot": 4},
		"series": [{"start": "2026-11-30T13:00:00Z", "total": 12, "human": 8, "bot": 4}],
		"countries": [{"country": "US", "total": 14, "human": 6, "bot": 8}, {"country": "DE", "total": 10, "human": 10, "bot": 0}, {"country": "FR", "total": 4, "human": 4, "bot": 0}],
		"referrers": [{"host": "news.ycombinator.com", "total": 5, "human": 5, "bot": 0}, {"host": "t.co", "total": 3, "human": 3, "bot": 0}]
	}`, resp.Body)
}

func TestRanges(t *testing.T) {
	zeroDays := func(from, to int) []statsapi.Point {
		var ps []statsapi.Point
		for d := from; d < to; d++ {
			ps = append(ps, statsapi.Point{Start: day(d)})
		}
		return ps
	}
	withDay := func(ps []statsapi.Point, d int, counts statsapi.Counts) []statsapi.Point {
		for i := range ps {
			if ps[i].Start.Equal(day(d)) {
				ps[i].Counts = counts
			}
		}
		return ps
	}
	tests := []struct {
		name        string
		code        string
		params      map[string]string
		wantFrom    time.Time
		wantTo      time.Time
		wantGran    string
		wantSeries  []statsapi.Point // nil: only the length is checked
		wantLen     int
		wantTotals  statsapi.Counts
		wantCountry []statsapi.Country
		wantCode    string // when not the code asked for
	}{
		{
			name: "defaults: the last 7 days, today included", code: "Ab3dE5g",
			wantFrom: day(24), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day",
			wantSeries:  withDay(withDay(zeroDays(24, 31), 25, n(3, 3, 0)), 30, n(28, 20, 8)),
			wantTotals:  n(31, 23, 8),
			wantCountry: []statsapi.Country{{Country: "US", Counts: n(17, 9, 8)}, {Country: "DE", Counts: n(10, 10, 0)}, {Country: "FR", Counts: n(4, 4, 0)}},
		},
		{
			name: "hourly default: the last 7 days of hours", code: "Ab3dE5g", params: map[string]string{"granularity": "hour"},
			wantFrom: day(30).Add(16 * time.Hour).Add(-7 * 24 * time.Hour), wantTo: day(30).Add(16 * time.Hour), wantGran: "hour",
			wantLen: 7 * 24, wantTotals: n(31, 23, 8),
		},
		{
			name: "dates: to is included", code: "Ab3dE5g", params: map[string]string{"from": "2026-11-25", "to": "2026-11-25"},
			wantFrom: day(25), wantTo: day(26), wantGran: "day",
			wantSeries: []statsapi.Point{{Start: day(25), Counts: n(3, 3, 0)}}, wantTotals: n(3, 3, 0),
			wantCountry: []statsapi.Country{{Country: "US", Counts: n(3, 3, 0)}},
		},
		{
			name: "times round out to whole buckets", code: "Ab3dE5g",
			params:   map[string]string{"from": "2026-11-30T12:59:59Z", "to": "2026-11-30T13:00:01Z", "granularity": "hour"},
			wantFrom: day(30).Add(12 * time.Hour), wantTo: day(30).Add(14 * time.Hour), wantGran: "hour",
			wantSeries: []statsapi.Point{{Start: day(30).Add(12 * time.Hour), Counts: n(16, 12, 4)}, {Start: day(30).Add(13 * time.Hour), Counts: n(12, 8, 4)}},
			wantTotals: n(28, 20, 8),
		},
		{
			name: "offsets are read as UTC", code: "Ab3dE5g",
			params:   map[string]string{"from": "2026-11-30T13:00:00+01:00", "to": "2026-11-30T15:00:00+02:00", "granularity": "hour"},
			wantFrom: day(30).Add(12 * time.Hour), wantTo: day(30).Add(13 * time.Hour), wantGran: "hour",
			wantSeries: []statsapi.Point{{Start: day(30).Add(12 * time.Hour), Counts: n(16, 12, 4)}}, wantTotals: n(16, 12, 4),
		},
		{
			name: "a quiet range is all zeros", code: "Ab3dE5g", params: map[string]string{"from": "2026-11-26", "to": "2026-11-28"},
			wantFrom: day(26), wantTo: day(29), wantGran: "day", wantSeries: zeroDays(26, 29), wantCountry: []statsapi.Country{},
		},
		{
			name: "counts start at the link's creation", code: "spring-sale", params: map[string]string{"from": "2026-11-01", "to": "2026-11-30"},
			wantFrom: day(1), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day",
			wantSeries: withDay(zeroDays(1, 31), 29, n(2, 1, 1)), wantTotals: n(2, 1, 1), wantCountry: []statsapi.Country{},
		},
		{
			name: "alias in its display form", code: "Spring-Sale", params: map[string]string{"from": "2026-11-29", "to": "2026-11-29"},
			wantFrom: day(29), wantTo: day(30), wantGran: "day",
			wantSeries: []statsapi.Point{{Start: day(29), Counts: n(2, 1, 1)}}, wantTotals: n(2, 1, 1), wantCountry: []statsapi.Country{},
		},
		{
			name: "code-shaped alias typed in capitals", code: "PROMO25",
			wantFrom: day(24), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day", wantSeries: zeroDays(24, 31), wantCountry: []statsapi.Country{},
		},
		{
			// Xyz1234 is someone else's generated code; the caller's alias
			// xyz1234 is what the capitals name for them.
			name: "someone else's code, the caller's alias", code: "Xyz1234", wantCode: "xyz1234",
			wantFrom: day(24), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day", wantSeries: zeroDays(24, 31), wantCountry: []statsapi.Country{},
		},
		{
			name: "top 10 countries", code: "worldwide", params: map[string]string{"from": "2026-11-30", "to": "2026-11-30"},
			wantFrom: day(30), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day", wantLen: 1, wantTotals: n(78, 78, 0),
			wantCountry: []statsapi.Country{
				{Country: "LU", Counts: n(12, 12, 0)}, {Country: "KR", Counts: n(11, 11, 0)}, {Country: "JP", Counts: n(10, 10, 0)},
				{Country: "IE", Counts: n(9, 9, 0)}, {Country: "HU", Counts: n(8, 8, 0)}, {Country: "GR", Counts: n(7, 7, 0)},
				{Country: "FI", Counts: n(6, 6, 0)}, {Country: "ES", Counts: n(5, 5, 0)}, {Country: "DE", Counts: n(4, 4, 0)},
				{Country: "CH", Counts: n(3, 3, 0)},
			},
		},
		{
			name: "31 days of hours", code: "Ab3dE5g", params: map[string]string{"from": "2026-10-31", "to": "2026-11-30", "granularity": "hour"},
			wantFrom: time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC), wantTo: day(30).AddDate(0, 0, 1), wantGran: "hour",
			wantLen: 31 * 24, wantTotals: n(31, 23, 8),
		},
		{
			name: "91 days of hours", code: "Ab3dE5g", params: map[string]string{"from": "2026-09-01", "to": "2026-11-30", "granularity": "hour"},
			wantFrom: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), wantTo: day(30).AddDate(0, 0, 1), wantGran: "hour",
			wantLen: 91 * 24, wantTotals: n(31, 23, 8),
		},
		{
			name: "400 days", code: "Ab3dE5g", params: map[string]string{"from": "2025-10-27", "to": "2026-11-30"},
			wantFrom: time.Date(2025, 10, 27, 0, 0, 0, 0, time.UTC), wantTo: day(30).AddDate(0, 0, 1), wantGran: "day",
			wantLen: 400, wantTotals: n(31, 23, 8),
		},
	}
	f := newFixture(t, seededClicks(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decode(t, get(t, f, tt.code, tt.params))

			wantCode := cmp.Or(tt.wantCode, strings.ToLower(tt.code))
			assert.Equal(t, wantCode, strings.ToLower(got.Code))
			if tt.wantCode != "" {
				assert.Equal(t, tt.wantCode, got.Code)
			}

			assert.Equal(t, tt.wantGran, got.Granularity)
			assert.Equal(t, tt.wantFrom, got.From)
			assert.Equal(t, tt.wantTo, got.To)
			assert.Equal(t, tt.wantTotals, got.Totals)
			if tt.wantSeries != nil {
				assert.Equal(t, tt.wantSeries, got.Series)
			} else {
				assert.Len(t, got.Series, tt.wantLen)
			}
			step := 24 * time.Hour
			if got.Granularity == "hour" {
				step = time.Hour
			}
			for i, p := range got.Series {
				assert.Equal(t, got.From.Add(time.Duration(i)*step), p.Start, "bucket %d", i)
			}
			if tt.wantCountry != nil {
				assert.Equal(t, tt.wantCountry, got.Countries)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name       string
		code       string
		method     string
		noKey      bool
		params     map[string]string
		wantStatus int
		wantField  string
	}{
		{name: "no API key", code: "Ab3dE5g", noKey: true, wantStatus: 401},
		{name: "someone else's link", code: "0therXy", wantStatus: 404},
		{name: "unknown link", code: "nothing", wantStatus: 404},
		{name: "tombstone", code: "tomb123", wantStatus: 404},
		{name: "impossible code", code: "a.b", wantStatus: 404},
		{name: "reserved word", code: "admin", wantStatus: 404},
		{name: "POST", code: "Ab3dE5g", method: "POST", wantStatus: 405},
		{name: "granularity week", code: "Ab3dE5g", params: map[string]string{"granularity": "week"}, wantStatus: 400, wantField: "granularity"},
		{name: "granularity in capitals", code: "Ab3dE5g", params: map[string]string{"granularity": "DAY"}, wantStatus: 400, wantField: "granularity"},
		{name: "from not a time", code: "Ab3dE5g", params: map[string]string{"from": "yesterday"}, wantStatus: 400, wantField: "from"},
		{name: "from epoch seconds", code: "Ab3dE5g", params: map[string]string{"from": "1796040000"}, wantStatus: 400, wantField: "from"},
		{name: "to not a time", code: "Ab3dE5g", params: map[string]string{"to": "2026-13-01"}, wantStatus: 400, wantField: "to"},
		{name: "from after to", code: "Ab3dE5g", params: map[string]string{"from": "2026-11-30", "to": "2026-11-29"}, wantStatus: 400, wantField: "from"},
		{name: "from equal to to", code: "Ab3dE5g", params: map[string]string{"from": "2026-11-30T12:00:00Z", "to": "2026-11-30T12:00:00Z", "granularity": "hour"}, wantStatus: 400, wantField: "from"},
		{name: "93 days of hours", code: "Ab3dE5g", params: map[string]string{"from": "2026-08-30", "to": "2026-11-30", "granularity": "hour"}, wantStatus: 400, wantField: "from"},
		{name: "401 days", code: "Ab3dE5g", params: map[string]string{"from": "2025-10-26", "to": "2026-11-30"}, wantStatus: 400, wantField: "from"},
		{name: "year one", code: "Ab3dE5g", params: map[string]string{"from": "0001-01-01"}, wantStatus: 400, wantField: "from"},
		{name: "unknown parameter", code: "Ab3dE5g", params: map[string]string{"granulatiry": "hour"}, wantStatus: 400, wantField: "granulatiry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Refusals never read the clicks: a nil store would panic.
			f := newFixture(t, nil)
			ev := event(t, "stats-default.json")
			ev.Path = "/v1/links/" + tt.code + "/stats"
			ev.PathParameters = map[string]string{"code": tt.code}
			ev.QueryStringParameters = tt.params
			if tt.method != "" {
				ev.HTTPMethod = tt.method
			}
			if tt.noKey {
				ev.RequestContext.Identity.APIKey = ""
			}

			resp, err := f.h.Handle(context.Background(), ev)

			require.NoError(t, err)
			// A 404 is the not-found problem: someone else's link looks missing.
			apigwtest.RequireProblem(t, resp, tt.wantStatus, tt.wantField)
			if tt.wantStatus == 405 {
				assert.Equal(t, "GET", resp.Headers["Allow"])
			}
		})
	}
}

// failingClicks answers every read with err.
type failingClicks struct{ err error }

func (f failingClicks) Series(context.Context, string, clickstore.Kind, time.Time, time.Time) ([]clickstore.Point, error) {
	return nil, f.err
}

func (f failingClicks) Breakdown(context.Context, string, clickstore.Kind, time.Time, time.Time) (map[string]clickstore.Counts, bool, error) {
	return nil, false, f.err
}

// failingLinks answers every read with err.
type failingLinks struct{ err error }

func (f failingLinks) Get(context.Context, string) (link.Link, error) { return link.Link{}, f.err }

func TestDependencyFailures(t *testing.T) {
	unavailable := fmt.Errorf("query: %w: %w", link.ErrUnavailable, errors.New("throttled"))
	tests := []struct {
		name       string
		links      Links
		clicks     Clicks
		wantStatus int
	}{
		{name: "analytics table unavailable", clicks: failingClicks{err: unavailable}, wantStatus: 503},
		{name: "analytics table broken", clicks: failingClicks{err: errors.New("validation")}, wantStatus: 500},
		{name: "links table unavailable", links: failingLinks{err: unavailable}, clicks: failingClicks{}, wantStatus: 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.clicks)
			if tt.links != nil {
				f.h.Links = tt.links
			}

			resp := get(t, f, "Ab3dE5g", nil)

			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			assert.NotContains(t, resp.Body, "throttled", "internal errors stay internal")
			assert.NotContains(t, resp.Body, "validation")
		})
	}
}

func TestPartialBreakdown(t *testing.T) {
	f := newFixture(t, partialClicks{})

	got := decode(t, get(t, f, "Ab3dE5g", nil))

	assert.True(t, got.Partial)
	assert.True(t, strings.Contains(get(t, f, "Ab3dE5g", nil).Body, `"partial":true`))
}

// partialClicks has one bucket and breakdowns cut short.
type partialClicks struct{}

func (partialClicks) Series(context.Context, string, clickstore.Kind, time.Time, time.Time) ([]clickstore.Point, error) {
	return []clickstore.Point{{Start: day(30), Counts: c(1, 1, 0)}}, nil
}

func (partialClicks) Breakdown(context.Context, string, clickstore.Kind, time.Time, time.Time) (map[string]clickstore.Counts, bool, error) {
	return map[string]clickstore.Counts{"DE": c(1, 1, 0)}, false, nil
}

// TestDestinationBreakdown: a link with rules or targets gets every
// destination's clicks (no top-N cut), adding up to its total; a plain
// link gets none.
func TestDestinationBreakdown(t *testing.T) {
	clicks := clickstore.NewMemory(0)
	cc := func(t, h, b int64) clickstore.Counts { return clickstore.Counts{Total: t, Human: h, Bot: b} }
	at := day(30).Add(12 * time.Hour)
	items := map[clickstore.Key]clickstore.Counts{
		clickstore.HourKey("geo1234", at): cc(0, 0, 0),
		clickstore.DayKey("geo1234", at):  cc(0, 0, 0),
		clickstore.HourKey("Ab3dE5g", at): cc(3, 3, 0),
		clickstore.DayKey("Ab3dE5g", at):  cc(3, 3, 0),
	}
	var total clickstore.Counts
	for i := range 12 { // more than TopBreakdowns
		c := cc(int64(i+1), int64(i+1), 0)
		items[clickstore.DestinationKey("geo1234", at, fmt.Sprintf("rule-%d", i))] = c
		total.Add(c)
	}
	items[clickstore.HourKey("geo1234", at)], items[clickstore.DayKey("geo1234", at)] = total, total
	items[clickstore.DestinationKey("Ab3dE5g", at, "default")] = cc(3, 3, 0)
	ch := clickstore.Chunk{Shard: "test", First: "1", Last: "1"}
	for k, v := range items {
		ch.Items = append(ch.Items, clickstore.Item{Key: k, Counts: v})
	}
	require.NoError(t, clicks.Apply(context.Background(), ch))
	f := newFixture(t, clicks)
	require.NoError(t, f.links.Create(context.Background(), link.Link{Code: "geo1234", Owner: owner, CreatedAt: day(1), URL: "https://example.com/",
		Status: link.StatusActive, ExpiresAt: now.Add(time.Hour), Version: 1, RedirectStatus: 302,
		Features: link.Features{Rules: []link.Rule{{URL: "https://example.de/", Country: []string{"DE"}}}}}, nil))

	got := decode(t, get(t, f, "geo1234", map[string]string{"from": day(30).Format(time.RFC3339), "to": day(30).Add(24 * time.Hour).Format(time.RFC3339)}))
	require.Len(t, got.Destinations, 12)
	assert.Equal(t, "rule-11", got.Destinations[0].Destination)
	var sum statsapi.Counts
	for _, d := range got.Destinations {
		sum.Add(d.Counts)
	}
	assert.Equal(t, got.Totals, sum, "the breakdown adds up to the total")

	plain := get(t, f, "Ab3dE5g", map[string]string{"from": day(30).Format(time.RFC3339), "to": day(30).Add(24 * time.Hour).Format(time.RFC3339)})
	assert.Nil(t, decode(t, plain).Destinations)
	assert.NotContains(t, plain.Body, "destinations")
}

// TestImportedClicksApart: a link imported with another shortener's click
// total shows it as "imported", never inside the totals, the series or a
// breakdown, and a link without one has no "imported" at all.
func TestImportedClicksApart(t *testing.T) {
	clicks := clickstore.NewMemory(0)
	at := day(30).Add(12 * time.Hour)
	ch := clickstore.Chunk{Shard: "test", First: "1", Last: "1", Items: []clickstore.Item{
		{Key: clickstore.HourKey("zz", at), Counts: c(4, 3, 1)},
		{Key: clickstore.DayKey("zz", at), Counts: c(4, 3, 1)},
		{Key: clickstore.CountryKey("zz", at, "DE"), Counts: c(4, 3, 1)},
	}}
	require.NoError(t, clicks.Apply(context.Background(), ch))
	f := newFixture(t, clicks)
	require.NoError(t, f.links.Create(context.Background(), link.Link{Code: "zz", Alias: "zz", Owner: owner, CreatedAt: day(1), URL: "https://example.com/",
		Status: link.StatusActive, ExpiresAt: now.Add(time.Hour), Version: 1, RedirectStatus: 301, ImportedClicks: 48213}, nil))
	params := map[string]string{"from": day(30).Format(time.RFC3339), "to": day(30).Add(24 * time.Hour).Format(time.RFC3339)}

	resp := get(t, f, "zz", params)
	got := decode(t, resp)
	require.NotNil(t, got.Imported)
	assert.Equal(t, int64(48213), got.Imported.Clicks)
	assert.Equal(t, n(4, 3, 1), got.Totals, "the imported total is not counted in")
	assert.Equal(t, n(4, 3, 1), got.Countries[0].Counts)
	assert.Contains(t, resp.Body, `"imported":{"clicks":48213}`)

	plain := get(t, f, "Ab3dE5g", params)
	assert.Nil(t, decode(t, plain).Imported)
	assert.NotContains(t, plain.Body, "imported")
}
