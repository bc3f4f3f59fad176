package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// exportColumns are the columns of `export --format csv`, in order. They
// are every field of a link as the API lists it, so that `import --from
// csv` can recreate it; docs/cli.md says which of them a re-import keeps.
// The redirect-rule columns come last: rules and targets as the API's
// JSON, protected "true" for a link with a password (which is never
// exported: only its hash is stored).
var exportColumns = []string{"code", "alias", "url", "short_url", "status", "redirect_status", "created_at", "updated_at", "expires_at", "version",
	"protected", "max_clicks", "rules", "targets", "expired_url",
	// The click total another shortener counted before an import
	// (withImportedClicks fills it in).
	"imported_clicks"}

// pageBackoff spaces the retries of one page that got no answer, a 5xx or a
// 429. A list request only reads, so a retry is always safe.
var pageBackoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// getWithRetry sends a read-only request, retrying it when the API could not
// answer or asked to be called again later.
func (a *app) getWithRetry(ctx context.Context, c *client, r request, out any) error {
	for attempt := 0; ; attempt++ {
		_, err := c.doJSON(ctx, r, out)
		var api *apiError
		var netw *networkError
		retryable := errors.As(err, &netw) || errors.As(err, &api) && api.unavailable()
		if !retryable || attempt == len(pageBackoff) || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(pageBackoff[attempt]):
		case <-ctx.Done():
			return err
		}
	}
}

// eachLink pages through all of the caller's links, newest first, and hands
// each page to fn as it arrives, so that 100 k links never sit in memory at
// once and no single request runs long.
func (a *app) eachLink(ctx context.Context, c *client, fn func([]linkapi.LinkDetail) error) error {
	cursor := ""
	for {
		q := url.Values{"limit": {strconv.Itoa(linkapi.MaxBatch)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page linkapi.LinkPage
		if err := a.getWithRetry(ctx, c, request{method: http.MethodGet, path: "/v1/links", query: q}, &page); err != nil {
			if cursor != "" {
				return fmt.Errorf("list links after cursor %s: %w", cursor, err)
			}
			return fmt.Errorf("list links: %w", err)
		}
		if err := fn(page.Links); err != nil {
			return err
		}
		if page.NextCursor == "" {
			return nil
		}
		cursor = page.NextCursor
	}
}

// linkWriter writes exported links in one format.
type linkWriter interface {
	write(linkapi.LinkDetail) error
	flush() error
}

type csvLinkWriter struct{ w *csv.Writer }

func newCSVLinkWriter(w io.Writer) (*csvLinkWriter, error) {
	cw := csv.NewWriter(w)
	return &csvLinkWriter{w: cw}, cw.Write(exportColumns)
}

func (w *csvLinkWriter) write(l linkapi.LinkDetail) error {
	return w.w.Write([]string{
		l.Code, l.Alias, l.URL, l.ShortURL, string(l.Status), strconv.Itoa(l.RedirectStatus),
		l.CreatedAt, l.UpdatedAt, l.ExpiresAt, strconv.FormatInt(l.Version, 10),
		boolCell(l.Protected), intCell(l.MaxClicks), jsonCell(l.Rules), jsonCell(l.Targets), l.ExpiredURL,
		intCell(l.ImportedClicks),
	})
}

// boolCell, intCell and jsonCell leave a cell empty for a field the link
// does not use.
func boolCell(b bool) string {
	if !b {
		return ""
	}
	return "true"
}

func intCell(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func jsonCell[T any](list []T) string {
	if len(list) == 0 {
		return ""
	}
	b, _ := json.Marshal(list) // lists of strings and numbers always marshal
	return string(b)
}

func (w *csvLinkWriter) flush() error { w.w.Flush(); return w.w.Error() }

// ndjsonLinkWriter writes one link per line, exactly as the API shows it.
type ndjsonLinkWriter struct{ enc *json.Encoder }

func newNDJSONLinkWriter(w io.Writer) *ndjsonLinkWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &ndjsonLinkWriter{enc: enc}
}

func (w *ndjsonLinkWriter) write(l linkapi.LinkDetail) error { return w.enc.Encode(l) }
func (w *ndjsonLinkWriter) flush() error                     { return nil }

// output opens where an export goes: stdout, or a temporary file beside
// FILE that is renamed to FILE only once the export is complete, so that an
// interrupted export never leaves a file that looks whole.
func (a *app) output(file string) (w io.Writer, commit func() error, abort func(), err error) {
	if file == "" || file == "-" {
		return a.stdout, func() error { return nil }, func() {}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.part")
	if err != nil {
		return nil, nil, nil, usagef("write %s: %v", file, err)
	}
	commit = func() error {
		if err := f.Close(); err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("write %s: %w", file, err)
		}
		if err := os.Rename(f.Name(), file); err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("write %s: %w", file, err)
		}
		return nil
	}
	abort = func() { f.Close(); os.Remove(f.Name()) }
	return f, commit, abort, nil
}

// detailReaders bounds the link reads one export page makes at once.
const detailReaders = 8

// withImportedClicks fills in each link's imported click total, which a
// listing leaves out (the by-owner index's projection cannot change:
// linkstore.Listed), with one GET of each link, detailReaders at a time. A
// link gone since it was listed keeps none.
func (a *app) withImportedClicks(ctx context.Context, c *client, links []linkapi.LinkDetail) error {
	errs := make([]error, len(links))
	sem := make(chan struct{}, detailReaders)
	var wg sync.WaitGroup
	for i := range links {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var d linkapi.LinkDetail
			err := a.getWithRetry(ctx, c, request{method: http.MethodGet, path: linkPath(links[i].Code)}, &d)
			var api *apiError
			switch {
			case errors.As(err, &api) && (api.Status == http.StatusNotFound || api.Status == http.StatusGone):
			case err != nil:
				errs[i] = fmt.Errorf("read link %s: %w", links[i].Code, err)
			default:
				links[i].ImportedClicks = d.ImportedClicks
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (a *app) exportCommand() *cobra.Command {
	var format, outFile string
	importedClicks := true
	cmd := &cobra.Command{
		Use:   "export [--format csv|ndjson] [-o FILE]",
		Short: "Export all of your links as CSV or NDJSON, or a link's clicks as CSV",
		Long: `Export all of your links, newest first, as CSV (a header row, then one link a row)
or NDJSON (one link a line, as the API shows it). Every field a re-import needs is
there: 'shortener import --from csv|ndjson FILE' reads the file back.

A listing leaves out a link's imported click total (imported_clicks), so each
link is read once more for it; --imported-clicks=false skips those reads.

Links are read 100 a page and written as they arrive, so exports of any size
stream; a page that gets no answer, a 5xx or a 429 is retried up to five times
(1 s to 16 s apart). With -o the file appears only once the export is complete.

'shortener export clicks CODE' writes a link's clicks as CSV instead.`,
		Example: `  shortener export -o links.csv
  shortener export --format ndjson > links.ndjson
  shortener export clicks Summer-Sale --from 30d -o summer-sale-clicks.csv`,
		Args: args(0, "no arguments (or: clicks CODE)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "csv" && format != "ndjson" {
				return usagef("--format must be csv or ndjson")
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			w, commit, abort, err := a.output(outFile)
			if err != nil {
				return err
			}
			var lw linkWriter
			if format == "csv" {
				cw, err := newCSVLinkWriter(w)
				if err != nil {
					abort()
					return err
				}
				lw = cw
			} else {
				lw = newNDJSONLinkWriter(w)
			}
			n := 0
			err = a.eachLink(cmd.Context(), c, func(links []linkapi.LinkDetail) error {
				if importedClicks {
					if err := a.withImportedClicks(cmd.Context(), c, links); err != nil {
						return err
					}
				}
				for _, l := range links {
					if err := lw.write(l); err != nil {
						return err
					}
				}
				n += len(links)
				return lw.flush() // a page at a time, so a reader sees progress
			})
			if err != nil {
				abort()
				return err
			}
			if err := commit(); err != nil {
				return err
			}
			if outFile != "" && outFile != "-" {
				fmt.Fprintf(a.stderr, "exported %d links to %s\n", n, outFile)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "csv", "csv or ndjson")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write to FILE instead of stdout")
	cmd.Flags().BoolVar(&importedClicks, "imported-clicks", true, "read each link once more for its imported click total, which listings leave out (false: one request per 100 links, imported_clicks left empty)")
	cmd.AddCommand(a.exportClicksCommand())
	return cmd
}

// clickColumns are the columns of `export clicks`: one row per time
// bucket (dimension "time"), per country and per referrer host.
var clickColumns = []string{"code", "dimension", "value", "total", "human", "bot"}

func (a *app) exportClicksCommand() *cobra.Command {
	var from, to, granularity, outFile string
	cmd := &cobra.Command{
		Use:   "clicks CODE [--from F] [--to T] [--granularity hour|day] [-o FILE]",
		Short: "Export a link's clicks as CSV: the series over time and the top countries and referrers",
		Long: `Export a link's clicks as CSV with the columns code, dimension, value, total, human,
bot: one row per hour or day of the range (dimension "time", value the bucket's
start), then one per country (dimension "country", ISO 3166-1 alpha-2) and one per
referrer host (dimension "referrer"), the top 10 of each as the stats API gives them.
--from, --to and --granularity are those of 'shortener stats'.`,
		Args: args(1, "one code"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if granularity != "hour" && granularity != "day" {
				return usagef("--granularity must be hour or day")
			}
			q := url.Values{"granularity": {granularity}}
			now := a.now().UTC()
			for _, p := range []struct{ name, v string }{{"from", from}, {"to", to}} {
				if p.v == "" {
					continue
				}
				t, err := rangeBound(p.v, now)
				if err != nil {
					return usagef("--%s: %v", p.name, err)
				}
				q.Set(p.name, t)
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			var st statsapi.Stats
			if err := a.getWithRetry(cmd.Context(), c, request{method: http.MethodGet, path: linkPath(argv[0], "/stats"), query: q}, &st); err != nil {
				return err
			}
			w, commit, abort, err := a.output(outFile)
			if err != nil {
				return err
			}
			if err := writeClicksCSV(w, st); err != nil {
				abort()
				return err
			}
			return commit()
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "start: an RFC 3339 time, a date, or a span back from now such as 24h or 7d")
	f.StringVar(&to, "to", "", "end: an RFC 3339 time, a date (included), or a span back from now")
	f.StringVar(&granularity, "granularity", "day", "hour (ranges up to 92 days) or day (up to 400)")
	f.StringVarP(&outFile, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}

// writeClicksCSV writes a link's stats as the rows `export clicks` promises.
func writeClicksCSV(w io.Writer, st statsapi.Stats) error {
	cw := csv.NewWriter(w)
	row := func(dim, value string, n statsapi.Counts) error {
		return cw.Write([]string{st.Code, dim, value, strconv.FormatInt(n.Total, 10), strconv.FormatInt(n.Human, 10), strconv.FormatInt(n.Bot, 10)})
	}
	if err := cw.Write(clickColumns); err != nil {
		return err
	}
	for _, b := range st.Series {
		if err := row("time", b.Start.Format(time.RFC3339Nano), b.Counts); err != nil {
			return err
		}
	}
	for _, c := range st.Countries {
		if err := row("country", c.Country, c.Counts); err != nil {
			return err
		}
	}
	for _, r := range st.Referrers {
		if err := row("referrer", r.Host, r.Counts); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
