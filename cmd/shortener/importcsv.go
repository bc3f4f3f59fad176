package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// importColumns are the columns an import file may have; url is required.
var importColumns = []string{"url", "alias", "ttl_seconds", "redirect_status"}

// importRow is one data row of the file and, once sent, its result.
type importRow struct {
	Line    int           `json:"line"`
	Status  int           `json:"status"` // the item's status; 0 when the row never reached the API
	Link    *linkapi.Link `json:"link,omitempty"`
	Problem *problem      `json:"problem,omitempty"`

	req linkapi.CreateRequest
}

func (r *importRow) fail(status int, p problem) {
	r.Status, r.Problem = status, &p
}

// importReport is the --json output of an import.
type importReport struct {
	Created int          `json:"created"`
	Failed  int          `json:"failed"`
	Rows    []*importRow `json:"rows"`
}

// Retries of one batch that got no answer or a 5xx/429; the batch's
// Idempotency-Key makes each retry safe.
var importBackoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

func (a *app) importCommand() *cobra.Command {
	var keyPrefix string
	cmd := &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Create links in bulk from a CSV file",
		Long: `Create links in bulk from a CSV file with a header row naming its columns:
url (required), alias, ttl_seconds, redirect_status; empty cells are left out.
Rows go to POST /v1/links/batch 100 at a time; a row that fails never fails
the others. The report names every row by its line number in the file; the exit
code is 1 if any row failed.

Each batch is sent with an Idempotency-Key derived from the file's content (or
from --idempotency-key), so running the same import again within 24 hours, after
an interruption say, creates nothing twice: rows already created answer with the
same links, rows that failed are tried again.`,
		Example: `  shortener import links.csv
  shortener import links.csv --json > report.json`,
		Args: args(1, "one CSV file"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			data, err := os.ReadFile(argv[0])
			if err != nil {
				return usagef("read %s: %v", argv[0], err)
			}
			rows, err := readImport(data)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			if keyPrefix == "" {
				sum := sha256.Sum256(data)
				keyPrefix = "import-" + hex.EncodeToString(sum[:12])
			}
			return a.runImport(cmd.Context(), c, rows, keyPrefix)
		},
	}
	cmd.Flags().StringVar(&keyPrefix, "idempotency-key", "", "prefix of the batches' Idempotency-Keys (default: from the file's content)")
	return cmd
}

// readImport parses the file: the header, then one row per record with its
// line number. A row the CSV reader cannot make sense of fails on its own.
func readImport(data []byte) ([]*importRow, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a spreadsheet's byte order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // checked per row, so a short row fails alone
	header, err := r.Read()
	if err != nil {
		return nil, usagef("the CSV file has no header row: %v", err)
	}
	cols := map[string]int{}
	for i, name := range header {
		name = strings.ToLower(strings.TrimSpace(name))
		if !contains(importColumns, name) {
			return nil, usagef("column %q is not one of %s", name, strings.Join(importColumns, ", "))
		}
		if _, dup := cols[name]; dup {
			return nil, usagef("column %q appears twice", name)
		}
		cols[name] = i
	}
	if _, ok := cols["url"]; !ok {
		return nil, usagef("the header names no url column")
	}
	var rows []*importRow
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		row := &importRow{}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			row.Line = perr.StartLine
			row.fail(0, problem{Title: "Malformed CSV", Detail: perr.Err.Error()})
			rows = append(rows, row)
			continue
		} else if err != nil {
			return nil, usagef("read the CSV file: %v", err)
		}
		row.Line, _ = r.FieldPos(0)
		if len(rec) != len(header) {
			row.fail(0, problem{Title: "Malformed CSV", Detail: fmt.Sprintf("%d fields where the header has %d", len(rec), len(header))})
			rows = append(rows, row)
			continue
		}
		cell := func(name string) string {
			if i, ok := cols[name]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row.req = linkapi.CreateRequest{URL: cell("url"), Alias: cell("alias")}
		for _, num := range []struct {
			name string
			set  func(int64)
		}{
			{"ttl_seconds", func(n int64) { row.req.TTLSeconds = &n }},
			{"redirect_status", func(n int64) { s := int(n); row.req.RedirectStatus = &s }},
		} {
			v := cell(num.name)
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				row.fail(0, problem{Title: "Invalid row", Field: num.name, Detail: fmt.Sprintf("%s: %q is not a whole number", num.name, v)})
				break
			}
			num.set(n)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, usagef("the CSV file has a header but no rows")
	}
	return rows, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// runImport sends the rows that parsed in batches and reports every row.
func (a *app) runImport(ctx context.Context, c *client, rows []*importRow, keyPrefix string) error {
	var pending []*importRow
	for _, r := range rows {
		if r.Problem == nil {
			pending = append(pending, r)
		}
	}
	var bar *progressbar.ProgressBar
	if a.isTerminal(a.stderr) && !a.jsonOut {
		bar = progressbar.NewOptions(len(rows),
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("importing"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		_ = bar.Add(len(rows) - len(pending)) // rows that failed to parse are done
	}
	for i := 0; i < len(pending); i += linkapi.MaxBatch {
		batch := pending[i:min(i+linkapi.MaxBatch, len(pending))]
		key := keyPrefix + "-" + strconv.Itoa(i/linkapi.MaxBatch)
		if err := a.sendBatch(ctx, c, batch, key); err != nil {
			// A batch the API refused whole fails each of its rows; no
			// answer at all after the retries stops the import.
			var api *apiError
			if !errors.As(err, &api) || api.unavailable() {
				if bar != nil {
					_ = bar.Exit()
				}
				a.printImport(rows)
				return err
			}
			p := api.Problem
			if p.Status == 0 {
				p = problem{Status: api.Status, Detail: api.Error()}
			}
			for _, r := range batch {
				r.fail(api.Status, p)
			}
		}
		if bar != nil {
			_ = bar.Add(len(batch))
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	return a.printImport(rows)
}

// sendBatch creates one batch and records each row's result.
func (a *app) sendBatch(ctx context.Context, c *client, batch []*importRow, key string) error {
	body := linkapi.BatchRequest{Links: make([]json.RawMessage, len(batch))}
	for i, r := range batch {
		b, err := json.Marshal(r.req)
		if err != nil {
			return err
		}
		body.Links[i] = b
	}
	req := request{method: http.MethodPost, path: "/v1/links/batch", body: body, header: map[string]string{"Idempotency-Key": key}}
	var out linkapi.BatchResponse
	var err error
	for attempt := 0; ; attempt++ {
		_, err = c.doJSON(ctx, req, &out)
		var api *apiError
		var netw *networkError
		retryable := errors.As(err, &netw) || errors.As(err, &api) && api.unavailable()
		if !retryable || attempt == len(importBackoff) || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(importBackoff[attempt]):
		case <-ctx.Done():
		}
	}
	if err != nil {
		return err
	}
	if len(out.Results) != len(batch) {
		return fmt.Errorf("the API answered %d results for %d rows", len(out.Results), len(batch))
	}
	for _, res := range out.Results {
		if res.Index < 0 || res.Index >= len(batch) {
			return fmt.Errorf("the API answered a result for item %d of %d", res.Index, len(batch))
		}
		r := batch[res.Index]
		r.Status = res.Status
		if res.Link != nil {
			r.Link = res.Link
			continue
		}
		var p problem
		if err := json.Unmarshal(res.Problem, &p); err != nil {
			p = problem{Status: res.Status, Detail: string(res.Problem)}
		}
		r.Problem = &p
	}
	return nil
}

// printImport reports every row, then a summary. The exit status follows
// from it: 1 when any row failed.
func (a *app) printImport(rows []*importRow) error {
	rep := importReport{Rows: rows}
	var failedLines []string
	for _, r := range rows {
		if r.Link != nil {
			rep.Created++
			continue
		}
		rep.Failed++
		failedLines = append(failedLines, strconv.Itoa(r.Line))
	}
	if a.jsonOut {
		if err := a.printJSON(rep); err != nil {
			return err
		}
	} else {
		w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			switch {
			case r.Link != nil:
				fmt.Fprintf(w, "line %d\tcreated\t%s\t%s\n", r.Line, r.Link.ShortURL, r.Link.URL)
			case r.Problem != nil:
				status := "-"
				if r.Status != 0 {
					status = strconv.Itoa(r.Status)
				}
				fmt.Fprintf(w, "line %d\tfailed\t%s\t%s\n", r.Line, status, r.Problem)
			default:
				fmt.Fprintf(w, "line %d\tnot sent\t\t\n", r.Line)
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		summary := fmt.Sprintf("%d created, %d failed", rep.Created, rep.Failed)
		if len(failedLines) > 0 {
			summary += " (lines " + strings.Join(failedLines, ", ") + ")"
		}
		fmt.Fprintln(a.stdout, summary)
	}
	if rep.Failed > 0 {
		return &rowsFailedError{failed: rep.Failed, total: len(rows)}
	}
	return nil
}
