package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// rangeBound turns a --from or --to value into the API's query value: an RFC
// 3339 time or a UTC date passes as it is (the API reads both; a date as
// --to includes that day), and a span such as 24h or 7d is that long
// before now.
func rangeBound(s string, now time.Time) (string, error) {
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return s, nil
	}
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return s, nil
	}
	secs, err := parseTTL(s)
	if err != nil || secs < 0 {
		return "", fmt.Errorf("%q is not an RFC 3339 time, a date such as 2026-11-30, or a span back from now such as 24h or 7d", s)
	}
	return now.Add(-time.Duration(secs) * time.Second).UTC().Format(time.RFC3339), nil
}

func (a *app) statsCommand() *cobra.Command {
	var from, to, granularity string
	cmd := &cobra.Command{
		Use:   "stats CODE",
		Short: "Show the clicks of one of your links, with a chart over time",
		Long: `Show the clicks of one of your links: total, human and bot (crawlers, link-preview
fetchers, HEAD requests), a chart of clicks over time, and the top countries and referrers.
Clicks are counted from the edge's logs and appear within seconds.`,
		Example: `  shortener stats Summer-Sale                          # the last 7 days, per day
  shortener stats Summer-Sale --granularity hour --from 24h
  shortener stats Ab3dE5g --from 2026-11-01 --to 2026-11-30   # November, both days included`,
		Args: args(1, "one code"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if granularity != "hour" && granularity != "day" {
				return usagef("--granularity must be hour or day")
			}
			now := a.now().UTC()
			q := url.Values{"granularity": {granularity}}
			for name, v := range map[string]string{"from": from, "to": to} {
				if v == "" {
					continue
				}
				t, err := rangeBound(v, now)
				if err != nil {
					return usagef("--%s: %v", name, err)
				}
				q.Set(name, t)
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			var st statsapi.Stats
			resp, err := c.doJSON(cmd.Context(), request{method: http.MethodGet, path: linkPath(argv[0], "/stats"), query: q}, &st)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printRaw(resp.body)
			}
			a.printStats(st)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "start: an RFC 3339 time, a date, or a span back from now such as 24h or 7d (default: 7 days before --to)")
	f.StringVar(&to, "to", "", "end: an RFC 3339 time, a date (included), or a span back from now (default: now)")
	f.StringVar(&granularity, "granularity", "day", "hour (ranges up to 92 days) or day (up to 400)")
	return cmd
}

func (a *app) printStats(st statsapi.Stats) {
	fmt.Fprintf(a.stdout, "%s  %s → %s\n", st.Code, st.From.Format(time.RFC3339Nano), st.To.Format(time.RFC3339Nano))
	fmt.Fprintf(a.stdout, "clicks  %d total, %d human, %d bot\n", st.Totals.Total, st.Totals.Human, st.Totals.Bot)
	if st.Imported != nil {
		fmt.Fprintf(a.stdout, "imported  %d clicks counted by the source before the import, not in the counts here\n", st.Imported.Clicks)
	}
	fmt.Fprintln(a.stdout)
	values := make([]int64, len(st.Series))
	for i, b := range st.Series {
		values[i] = b.Total
	}
	first, last := "", ""
	if n := len(st.Series); n > 0 {
		first, last = shortTime(st.Series[0].Start, st.Granularity), shortTime(st.Series[n-1].Start, st.Granularity)
	}
	fmt.Fprint(a.stdout, barChart(values, first, last, st.Granularity, chartWidth, chartHeight))
	if len(st.Countries) > 0 {
		var parts []string
		for _, c := range st.Countries {
			parts = append(parts, fmt.Sprintf("%s %d", c.Country, c.Total))
		}
		fmt.Fprintf(a.stdout, "\ntop countries  %s\n", strings.Join(parts, ", "))
	}
	if len(st.Referrers) > 0 {
		var parts []string
		for _, r := range st.Referrers {
			parts = append(parts, fmt.Sprintf("%s %d", r.Host, r.Total))
		}
		fmt.Fprintf(a.stdout, "top referrers  %s\n", strings.Join(parts, ", "))
	}
	if st.Partial {
		fmt.Fprintln(a.stdout, "(the breakdowns are partial: more entries than one request reads)")
	}
}

// shortTime is a bucket start as the chart's axis shows it.
func shortTime(t time.Time, granularity string) string {
	if granularity == "day" {
		return t.UTC().Format("2006-01-02")
	}
	return t.UTC().Format("01-02 15:04")
}

// The chart's size in terminal cells: it fits an 80-column terminal with
// its axis labels.
const (
	chartWidth  = 60
	chartHeight = 8
)

// eighths are the lower block elements, one to seven eighths of a cell.
var eighths = []rune("▁▂▃▄▅▆▇")

// barChart draws values as columns of Unicode blocks, height rows tall,
// each row in eighths of a cell. More values than width are summed into
// columns of several buckets each, and the caption says how many.
func barChart(values []int64, first, last, granularity string, width, height int) string {
	if len(values) == 0 {
		return "no buckets in this range\n"
	}
	per := (len(values) + width - 1) / width
	var cols []int64
	for i := 0; i < len(values); i += per {
		var sum int64
		for _, v := range values[i:min(i+per, len(values))] {
			sum += v
		}
		cols = append(cols, sum)
	}
	var top int64
	for _, v := range cols {
		top = max(top, v)
	}
	unit := granularity
	if per > 1 {
		unit = fmt.Sprintf("%d %ss", per, granularity)
	}
	if top == 0 {
		return fmt.Sprintf("no clicks in this range (%d %s buckets)\n", len(values), granularity)
	}
	label := strconv.FormatInt(top, 10)
	pad := len(label)
	var b strings.Builder
	for row := height - 1; row >= 0; row-- {
		switch row {
		case height - 1:
			fmt.Fprintf(&b, "%*s ┤", pad, label)
		case 0:
			fmt.Fprintf(&b, "%*s ┤", pad, "0")
		default:
			fmt.Fprintf(&b, "%*s │", pad, "")
		}
		for _, v := range cols {
			// The column's height in eighths of a cell, rounded, and at
			// least one eighth for any click so none disappears.
			h := (v*int64(height)*8 + top/2) / top
			if v > 0 && h == 0 {
				h = 1
			}
			e := h - int64(row)*8
			switch {
			case e >= 8:
				b.WriteRune('█')
			case e <= 0:
				b.WriteRune(' ')
			default:
				b.WriteRune(eighths[e-1])
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%*s └%s\n", pad, "", strings.Repeat("─", len(cols)))
	axis := first
	if gap := len(cols) - len(first) - len(last); gap > 0 && last != first {
		axis += strings.Repeat(" ", gap) + last
	}
	fmt.Fprintf(&b, "%*s  %s\n", pad, "", axis)
	fmt.Fprintf(&b, "%*s  clicks per %s\n", pad, "", unit)
	return b.String()
}
