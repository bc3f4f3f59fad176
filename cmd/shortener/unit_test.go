package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// curve is the clicks of hour h of any day in TestStats: none at night,
// 20 at most in the afternoon, a quarter of them bots.
func curve(h int) clickstore.Counts {
	if h < 8 || h >= 20 {
		return clickstore.Counts{}
	}
	n := int64(20 - (h-14)*(h-14)/2)
	return clickstore.Counts{Total: n, Human: n - n/4, Bot: n / 4}
}

// curveClicks is the analytics table behind the stats handler in TestStats.
type curveClicks struct{}

func (curveClicks) Series(_ context.Context, _ string, kind clickstore.Kind, from, to time.Time) ([]clickstore.Point, error) {
	var out []clickstore.Point
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		p := clickstore.Point{Start: t, Counts: curve(t.Hour())}
		if kind == clickstore.Day {
			if t.Hour() != 0 {
				continue
			}
			p.Counts = clickstore.Counts{}
			for h := range 24 {
				p.Counts.Add(curve(h))
			}
		}
		if p.Total > 0 {
			out = append(out, p)
		}
	}
	return out, nil
}

func (curveClicks) Breakdown(_ context.Context, _ string, kind clickstore.Kind, _, _ time.Time) (map[string]clickstore.Counts, bool, error) {
	if kind == clickstore.Country {
		return map[string]clickstore.Counts{"DE": {Total: 120, Human: 100, Bot: 20}, "FR": {Total: 76, Human: 50, Bot: 26}}, true, nil
	}
	return map[string]clickstore.Counts{"news.example.com": {Total: 40, Human: 40}}, true, nil
}

// TestStats checks the stats command's output to the character against
// the real stats handler behind the local gateway, over a stand-in
// analytics table with a known day of clicks; the local-run test cannot
// choose which hour its clicks land in.
func TestStats(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	store := linkstore.NewMemory(func() time.Time { return now })
	require.NoError(t, store.Create(context.Background(), link.Link{
		Code: "summer-sale", Alias: "Summer-Sale", Owner: "owner", URL: "https://example.com/summer",
		CreatedAt: now.AddDate(0, -1, 0), UpdatedAt: now.AddDate(0, -1, 0), ExpiresAt: now.AddDate(1, 0, 0),
		Status: link.StatusActive, Version: 1, RedirectStatus: 302,
	}, nil))
	h := statsfn.New(statsfn.Options{Links: store, Clicks: curveClicks{}, Now: func() time.Time { return now },
		Log:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{"k": "owner"}), apikey.ResolverOptions{})})
	gw, err := localgw.New(localgw.Options{
		Routes:  []localgw.Route{{Methods: []string{"GET"}, Pattern: "/v1/links/{code}/stats", NeedsKey: true, Handler: h.Handle}},
		APIKeys: localgw.StaticKeys("k"),
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		gw.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := newCLI(t, srv.URL, map[string]string{"SHORTENER_ENDPOINT": srv.URL, "SHORTENER_API_KEY": "k"})

	out := c.ok("stats", "Summer-Sale", "--granularity", "hour", "--from", "2026-11-30T00:00:00Z", "--to", "2026-12-01T00:00:00Z")
	assert.Equal(t, "hour", got.URL.Query().Get("granularity"))
	assert.Equal(t, "2026-11-30T00:00:00Z", got.URL.Query().Get("from"))
	assert.Equal(t, "2026-12-01T00:00:00Z", got.URL.Query().Get("to"))
	lines := strings.Split(out, "\n")
	assert.Equal(t, "summer-sale  2026-11-30T00:00:00Z → 2026-12-01T00:00:00Z", lines[0])
	assert.Equal(t, "clicks  170 total, 129 human, 41 bot", lines[1])
	// 8 rows of eighths for 20 clicks at most: 18 clicks fill 57.6
	// eighths, so two eighths show above the seventh row.
	assert.Equal(t, "20 ┤            ▂███▂       ", lines[3], "the tallest columns reach the top\n%s", out)
	assert.Equal(t, " 0 ┤        ▆███████████    ", lines[10], "2 clicks are 6.4 eighths of the bottom row")
	assert.Equal(t, "   └"+strings.Repeat("─", 24), lines[11])
	assert.Equal(t, "    11-30 00:00  11-30 23:00", lines[12], "the first and last hours under their columns")
	assert.Equal(t, "    clicks per hour", lines[13])
	assert.Contains(t, out, "top countries  DE 120, FR 76")
	assert.Contains(t, out, "top referrers  news.example.com 40")

	out = c.ok("stats", "summer-sale")
	assert.Equal(t, "day", got.URL.Query().Get("granularity"), "by day over the API's default range")
	assert.False(t, got.URL.Query().Has("from"))
	assert.Contains(t, out, "clicks  1190 total", "7 days of 170")
	assert.Contains(t, out, "clicks per day")

	// A range relative to the CLI's clock ends at the server's now: the
	// server must be at today's date for it, whatever day the test runs.
	now = time.Now().UTC()
	var raw map[string]any
	c.env["SHORTENER_API_KEY"] = ""
	require.NoError(t, json.Unmarshal([]byte(c.ok("stats", "Summer-Sale", "--api-key", "k", "--json", "--granularity", "hour", "--from", "36h")), &raw))
	from, err := time.Parse(time.RFC3339, got.URL.Query().Get("from"))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(-36*time.Hour), from, time.Minute)
	assert.Equal(t, "hour", raw["granularity"])

	assert.Equal(t, exitFailed, c.run("stats", "nOsUcH1", "--api-key", "k").code)
	r := c.run("stats", "Summer-Sale", "--api-key", "k", "--granularity", "hour", "--from", "2026-01-01")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "400 from: ", "over 92 days by the hour")
	assert.Equal(t, exitUsage, c.run("stats", "Summer-Sale", "--granularity", "week").code)
	assert.Equal(t, exitUsage, c.run("stats", "Summer-Sale", "--from", "yesterday").code)
	c.checkTraffic(0)
}

func TestBarChart(t *testing.T) {
	tests := []struct {
		name   string
		values []int64
		width  int
		height int
		want   string
	}{
		{
			name: "eighths", values: []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 16}, width: 60, height: 2,
			want: "16 ┤         █\n" + // 8 is half of 16: one full row
				" 0 ┤ ▁▂▃▄▅▆▇██\n" +
				"   └──────────\n" +
				"    a        b\n" +
				"    clicks per hour\n",
		},
		{
			name: "one click still shows", values: []int64{1, 0, 1000}, width: 60, height: 1,
			want: "1000 ┤▁ █\n" +
				"     └───\n" +
				"      a b\n" +
				"      clicks per hour\n",
		},
		{
			name: "summed into wider columns", values: []int64{1, 1, 2, 2, 3, 3, 4}, width: 4, height: 1,
			want: "6 ┤▃▅█▅\n" +
				"  └────\n" +
				"   a  b\n" +
				"   clicks per 2 hours\n",
		},
		{name: "no clicks", values: []int64{0, 0}, width: 60, height: 8, want: "no clicks in this range (2 hour buckets)\n"},
		{name: "no buckets", width: 60, height: 8, want: "no buckets in this range\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, barChart(tt.values, "a", "b", "hour", tt.width, tt.height))
		})
	}
}

func TestReadOwnCSV(t *testing.T) {
	rows, err := readOwnCSV([]byte("\ufeffURL, Alias ,redirect_status\n" +
		"https://example.com/a,,\n" +
		"\"https://example.com/b\nstill b\",B-alias,308\n" + // a quoted cell over two lines
		"\n" + // blank lines are skipped
		"https://example.com/c,,x\n" +
		"https://example.com/d\n" +
		"https://example.com/e,\"bad\"quote,\n" +
		"https://example.com/f,,301\n"))
	require.NoError(t, err)
	require.Len(t, rows, 6)
	lines := make([]int, len(rows))
	for i, r := range rows {
		lines[i] = r.Line
	}
	assert.Equal(t, []int{2, 3, 6, 7, 8, 9}, lines, "line numbers of the file, header and newlines in quotes counted")
	assert.Equal(t, "https://example.com/b\nstill b", rows[1].req.URL)
	assert.Equal(t, "B-alias", rows[1].req.Alias)
	assert.Equal(t, 308, *rows[1].req.RedirectStatus)
	assert.Nil(t, rows[0].Problem)
	assert.Equal(t, "redirect_status", rows[2].Problem.Field, "not a number")
	assert.NotNil(t, rows[3].Problem, "too few fields")
	assert.NotNil(t, rows[4].Problem, "a bare quote")
	assert.Nil(t, rows[5].Problem, "a bad row does not spoil the ones after it")
	assert.Equal(t, 301, *rows[5].req.RedirectStatus)

	for name, file := range map[string]string{
		"unknown column":   "url,labels\nhttps://example.com/,x\n",
		"no url column":    "alias\nabc\n",
		"duplicate column": "url,url\na,b\n",
		"empty":            "",
		"header only":      "url,alias\n",
	} {
		_, err := readOwnCSV([]byte(file))
		var usage *usageError
		assert.True(t, errors.As(err, &usage), "%s: %v", name, err)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{usagef("x"), 2},
		{fmt.Errorf("wrapped: %w", usagef("x")), 2},
		{&apiError{Status: 400}, 1},
		{&apiError{Status: 404}, 1},
		{&apiError{Status: 409}, 1},
		{&apiError{Status: 412}, 1},
		{&apiError{Status: 422}, 1},
		{&apiError{Status: 429}, 3},
		{&apiError{Status: 500}, 3},
		{&apiError{Status: 503}, 3},
		{&apiError{Status: 504}, 3},
		{&networkError{endpoint: "http://x", err: errors.New("refused")}, 3},
		{&rowsFailedError{failed: 1, total: 2}, 1},
		{errors.New("something else"), 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exitCode(tt.err), "%v", tt.err)
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]int64{"3600": 3600, "90m": 5400, "36h": 129600, "30d": 2592000, "2w": 1209600, "1.5d": 129600} {
		got, err := parseTTL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "soon", "d", "3x"} {
		_, err := parseTTL(in)
		assert.Error(t, err, in)
	}
}
