package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// Outcomes of an import row.
const (
	outcomeCreated     = "created"
	outcomeExists      = "exists"       // the caller already has this link: nothing to do
	outcomeWouldCreate = "would_create" // --dry-run: a real run would create it
	outcomeFailed      = "failed"
)

// importRow is one link of the file and, once handled, its result.
type importRow struct {
	Line    int           `json:"line"`
	Outcome string        `json:"outcome"`
	Status  int           `json:"status"` // the API's status for the row; 0 when the row never reached it
	Link    *linkapi.Link `json:"link,omitempty"`
	Problem *problem      `json:"problem,omitempty"`
	// NotKept names what the source had for this row that a link here
	// cannot keep (title, tags, clicks, ...).
	NotKept []string `json:"not_kept,omitempty"`
	// Source is the row's identifier in the source (a Kutt id, a Bitly
	// id, domain/short code), so a report row can be traced back.
	Source string `json:"source,omitempty"`

	req      linkapi.CreateRequest
	disabled bool   // exported as disabled: its link is created disabled, or disabled once found
	live     bool   // its link (created, or found among the caller's) is active
	fp       string // the normalised target, for matching links without alias
}

func (r *importRow) fail(status int, p problem) {
	r.Outcome, r.Status, r.Problem = outcomeFailed, status, &p
}

// importReport is the --json output of an import.
type importReport struct {
	Created     int            `json:"created"`
	Exists      int            `json:"exists"`
	WouldCreate int            `json:"would_create,omitempty"`
	Failed      int            `json:"failed"`
	NotKept     map[string]int `json:"not_kept,omitempty"`
	Rows        []*importRow   `json:"rows"`
}

// Retries of one batch that got no answer or a 5xx/429; the batch's
// Idempotency-Key makes each retry safe.
var importBackoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

func (a *app) importCommand() *cobra.Command {
	var (
		from, keyPrefix          string
		dryRun, newCode          bool
		aliasMinLen, aliasMaxLen int
	)
	cmd := &cobra.Command{
		Use:   "import [--from " + formatNames() + "] FILE",
		Short: "Create links in bulk from a CSV file, our export, or another shortener's export",
		Long: `Create links in bulk from a file: our own CSV (url, alias, ttl_seconds,
redirect_status, or all the columns of 'shortener export'), our NDJSON export, or
the export of Bitly, Shlink, YOURLS, Kutt or Dub (--from; docs/cli.md names each
layout). Short codes and custom back-halves become aliases, and targets, expiry and
redirect status are kept where the source has them; the report says, per row and
in sum, what the source had that a link here cannot keep.

Before sending anything, every row is checked as the API would, and your existing
links are read once: a row whose alias you already hold for the same URL, or (with
no alias) a link of yours with the same URL, redirect status and expiry, is
"exists" and is not created again. So running an import twice creates nothing the
second time, however long after. --dry-run stops there and writes nothing.

Rows go to POST /v1/links/batch 100 at a time with an Idempotency-Key derived
from their content; a row that fails never fails the others. The exit code is 1
if any row failed.`,
		Example: `  shortener import links.csv
  shortener import --from shlink --dry-run shlink_exported_short_urls.csv
  shortener import --from bitly bitlinks.json --json > report.json`,
		Args: args(1, "one file"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			read, ok := importFormats[from]
			if !ok {
				return usagef("--from must be one of %s", formatNames())
			}
			data, err := os.ReadFile(argv[0])
			if err != nil {
				return usagef("read %s: %v", argv[0], err)
			}
			if err := link.CheckAliasLengths(aliasMinLen, aliasMaxLen); err != nil {
				return usagef("--alias-min-length, --alias-max-length: %v", err)
			}
			rows, err := read(data)
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
			return a.runImport(cmd.Context(), c, rows, importOptions{keyPrefix: keyPrefix, dryRun: dryRun, newCode: newCode,
				rules: link.Rules{AliasMinLen: aliasMinLen, AliasMaxLen: aliasMaxLen}})
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "csv", "the file's format: "+formatNames())
	f.BoolVar(&dryRun, "dry-run", false, "check every row and report what would be created, existing links and alias collisions; write nothing")
	f.BoolVar(&newCode, "new-code", false, "give a row whose alias cannot be kept (too short, reserved, other characters, or an earlier row's in another case) a generated code instead of failing it")
	f.StringVar(&keyPrefix, "idempotency-key", "", "prefix of the batches' Idempotency-Keys (default: from the file's content)")
	// The deployment's own bounds (aliasMinLength, aliasMaxLength in
	// docs/deploy.md): the check before sending refuses what the API would.
	f.IntVar(&aliasMinLen, "alias-min-length", link.MinAliasLen, "the shortest alias the deployment allows (its aliasMinLength)")
	f.IntVar(&aliasMaxLen, "alias-max-length", link.MaxAliasLen, "the longest alias the deployment allows (its aliasMaxLength)")
	return cmd
}

type importOptions struct {
	keyPrefix string
	dryRun    bool
	newCode   bool
	// rules are the deployment's alias bounds, the rest left at the
	// defaults the API checks too.
	rules link.Rules
}

// runImport checks the rows, matches them against the caller's links, sends
// the rest in batches (unless dry) and reports every row.
func (a *app) runImport(ctx context.Context, c *client, rows []*importRow, opt importOptions) error {
	a.checkRowsUnder(opt.rules, rows, opt.newCode)
	if err := a.matchExisting(ctx, c, rows); err != nil {
		return err
	}
	var pending []*importRow
	for _, r := range rows {
		if r.Outcome == "" {
			pending = append(pending, r)
		}
	}
	if opt.dryRun {
		for _, r := range pending {
			r.Outcome = outcomeWouldCreate
		}
		return a.printImport(rows, opt.dryRun)
	}
	for _, r := range rows {
		if err := a.disableIfLive(ctx, c, r); err != nil {
			_ = a.printImport(rows, opt.dryRun)
			return err
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
		_ = bar.Add(len(rows) - len(pending)) // rows already decided
	}
	for i := 0; i < len(pending); i += linkapi.MaxBatch {
		batch := pending[i:min(i+linkapi.MaxBatch, len(pending))]
		if err := a.sendBatch(ctx, c, batch, opt.keyPrefix); err != nil {
			// A batch the API refused whole fails each of its rows; no
			// answer at all after the retries stops the import.
			var api *apiError
			if !errors.As(err, &api) || api.unavailable() {
				if bar != nil {
					_ = bar.Exit()
				}
				_ = a.printImport(rows, opt.dryRun)
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
		if err := a.settle(ctx, c, batch); err != nil {
			_ = a.printImport(rows, opt.dryRun)
			return err
		}
		if bar != nil {
			_ = bar.Add(len(batch))
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	return a.printImport(rows, opt.dryRun)
}

// checkRows validates each row as the API would (link.Rules, the same code),
// so a dry run finds invalid rows and a real run sends none. It also fails
// the second of two rows with one alias, aliases being case-insensitive;
// with newCode, a row whose alias cannot be kept (invalid, or taken by an
// earlier row) gets a generated code instead.
// The API still checks what only it knows (its own domain, say).
func (a *app) checkRows(rows []*importRow, newCode bool) {
	a.checkRowsUnder(link.Rules{}, rows, newCode)
}

// checkRowsUnder is checkRows under rules: the deployment's alias bounds.
func (a *app) checkRowsUnder(rules link.Rules, rows []*importRow, newCode bool) {
	now := a.now()
	seen := map[string]int{}
	for _, r := range rows {
		if r.Outcome != "" {
			continue
		}
		d, err := r.req.Domain()
		if err == nil {
			_, err = rules.Validate(d, now)
		}
		var fe *link.FieldError
		if errors.As(err, &fe) && fe.Field == "alias" && newCode {
			r.NotKept = append(r.NotKept, fmt.Sprintf("alias %q (%s)", r.req.Alias, fe.Reason))
			r.req.Alias = ""
			d.Alias = ""
			_, err = rules.Validate(d, now)
		}
		if errors.As(err, &fe) {
			r.fail(0, problem{Title: "Invalid row", Field: fe.Field, Detail: fe.Error()})
			continue
		} else if err != nil {
			r.fail(0, problem{Title: "Invalid row", Detail: err.Error()})
			continue
		}
		r.fp, _ = rules.NormalizeURL(r.req.URL)
		if r.req.Alias == "" {
			continue
		}
		key := strings.ToLower(r.req.Alias)
		line, dup := seen[key]
		switch {
		case dup && newCode:
			r.NotKept = append(r.NotKept, fmt.Sprintf("alias %q (also on line %d; aliases are case-insensitive)", r.req.Alias, line))
			r.req.Alias = ""
		case dup:
			r.fail(0, problem{Title: "Duplicate alias", Field: "alias", Detail: fmt.Sprintf("alias: %q is also on line %d (aliases are case-insensitive)", r.req.Alias, line)})
		default:
			seen[key] = r.Line
		}
	}
}

// matchExisting reads the caller's links once and decides the rows that
// need no create: an alias the caller holds for the same URL exists, for
// another URL it collides; a row without alias exists when an unmatched
// link of the caller's without alias has its URL, redirect status and (if
// the row names one) expiry. This is what makes a repeated import create
// nothing, whenever it runs; the Idempotency-Key only covers the seconds
// in which a new link may not yet be listed.
func (a *app) matchExisting(ctx context.Context, c *client, rows []*importRow) error {
	wanted := false
	for _, r := range rows {
		wanted = wanted || r.Outcome == ""
	}
	if !wanted {
		return nil
	}
	byAlias := map[string]linkapi.LinkDetail{}
	plain := map[string][]linkapi.LinkDetail{} // by URL
	err := a.eachLink(ctx, c, func(links []linkapi.LinkDetail) error {
		for _, l := range links {
			if l.Alias != "" {
				byAlias[strings.ToLower(l.Alias)] = l
			} else {
				plain[l.URL] = append(plain[l.URL], l)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Outcome != "" {
			continue
		}
		if r.req.Alias != "" {
			l, ok := byAlias[strings.ToLower(r.req.Alias)]
			switch {
			case !ok:
			case l.URL == r.fp:
				r.exists(l)
			default:
				r.fail(http.StatusConflict, problem{Title: "Already taken", Status: http.StatusConflict, Field: "alias",
					Detail: fmt.Sprintf("alias: %q is already yours, for %s", r.req.Alias, l.URL)})
			}
			continue
		}
		cands := plain[r.fp]
		for i, l := range cands {
			if sameSettings(r.req, l) {
				r.exists(l)
				plain[r.fp] = append(cands[:i:i], cands[i+1:]...)
				break
			}
		}
	}
	return nil
}

// sameSettings reports whether an existing link has what the row asks for
// besides its URL: its redirect status, and its expiry when the row names
// an absolute one (a lifetime counts from the create, so it cannot match).
func sameSettings(req linkapi.CreateRequest, l linkapi.LinkDetail) bool {
	want := link.DefaultRedirect
	if req.RedirectStatus != nil {
		want = *req.RedirectStatus
	}
	if l.RedirectStatus != want {
		return false
	}
	if req.ExpiresAt != nil {
		at, err1 := time.Parse(time.RFC3339, *req.ExpiresAt)
		got, err2 := time.Parse(time.RFC3339, l.ExpiresAt)
		return err1 == nil && err2 == nil && at.Truncate(time.Second).Equal(got)
	}
	return true
}

func (r *importRow) exists(l linkapi.LinkDetail) {
	found := l.Link
	r.Outcome, r.Status, r.Link, r.live = outcomeExists, http.StatusOK, &found, l.Status == link.StatusActive
}

// batchKey is the Idempotency-Key of one batch: the prefix and a hash of
// what the batch creates, so that the same rows resent (after an
// interruption) replay, whatever rows around them were decided meanwhile.
func batchKey(prefix string, bodies []json.RawMessage) string {
	h := sha256.New()
	for _, b := range bodies {
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return prefix + "-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// sendBatch creates one batch and records each row's result.
func (a *app) sendBatch(ctx context.Context, c *client, batch []*importRow, keyPrefix string) error {
	body := linkapi.BatchRequest{Links: make([]json.RawMessage, len(batch))}
	for i, r := range batch {
		b, err := json.Marshal(r.req)
		if err != nil {
			return err
		}
		body.Links[i] = b
	}
	req := request{method: http.MethodPost, path: "/v1/links/batch", body: body, header: map[string]string{"Idempotency-Key": batchKey(keyPrefix, body.Links)}}
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
			r.Outcome, r.Link, r.live = outcomeCreated, res.Link, !r.disabled // created in the status it asked for
			continue
		}
		var p problem
		if err := json.Unmarshal(res.Problem, &p); err != nil {
			p = problem{Status: res.Status, Detail: string(res.Problem)}
		}
		r.fail(res.Status, p)
	}
	return nil
}

// settle finishes a sent batch: a 409 on an alias is looked up, since a
// link created moments ago by an interrupted run may not be listed yet (it
// is then "exists"); a link exported as disabled and found live is disabled.
func (a *app) settle(ctx context.Context, c *client, batch []*importRow) error {
	for _, r := range batch {
		if r.Outcome == outcomeFailed && r.Status == http.StatusConflict && r.req.Alias != "" {
			var l linkapi.LinkDetail
			err := a.getWithRetry(ctx, c, request{method: http.MethodGet, path: linkPath(r.req.Alias)}, &l)
			var api *apiError
			switch {
			case err == nil && l.URL == r.fp:
				r.Problem = nil
				r.exists(l)
			case err == nil:
				r.Problem.Detail = fmt.Sprintf("alias: %q is already yours, for %s", r.req.Alias, l.URL)
			case errors.As(err, &api) && api.Status == http.StatusNotFound:
				// Someone else's, or held back after a delete: the 409 stands.
			default:
				return err
			}
		}
		if err := a.disableIfLive(ctx, c, r); err != nil {
			return err
		}
	}
	return nil
}

// disableIfLive disables the link of a row exported as disabled while it is
// active: found among the caller's links, where an older version of this
// command (which created such a link live, then disabled it) was
// interrupted between the two. A link this version creates is created
// disabled and never needs it.
func (a *app) disableIfLive(ctx context.Context, c *client, r *importRow) error {
	if !r.disabled || !r.live || (r.Outcome != outcomeCreated && r.Outcome != outcomeExists) {
		return nil
	}
	status := string(link.StatusDisabled)
	var l linkapi.LinkDetail
	_, err := c.doJSON(ctx, request{method: http.MethodPatch, path: linkPath(r.Link.Code), body: linkapi.PatchRequest{Status: &status}}, &l)
	if err != nil {
		var api *apiError
		if !errors.As(err, &api) || api.unavailable() {
			return fmt.Errorf("disable %s: %w", r.Link.Code, err)
		}
		r.fail(api.Status, problem{Status: api.Status, Detail: r.Outcome + ", but not disabled: " + api.Error()})
		return nil
	}
	r.live = false
	return nil
}

// printImport reports every row, then a summary. The exit status follows
// from it: 1 when any row failed.
func (a *app) printImport(rows []*importRow, dryRun bool) error {
	rep := importReport{Rows: rows, NotKept: map[string]int{}}
	var failedLines []string
	for _, r := range rows {
		switch r.Outcome {
		case outcomeCreated:
			rep.Created++
		case outcomeExists:
			rep.Exists++
		case outcomeWouldCreate:
			rep.WouldCreate++
		default:
			rep.Failed++
			failedLines = append(failedLines, strconv.Itoa(r.Line))
		}
		if r.Outcome != outcomeFailed {
			for _, what := range r.NotKept {
				rep.NotKept[notKeptKind(what)]++
			}
		}
	}
	if a.jsonOut {
		if err := a.printJSON(rep); err != nil {
			return err
		}
	} else {
		w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			lost := ""
			if len(r.NotKept) > 0 && r.Outcome != outcomeFailed {
				lost = "\t(not kept: " + strings.Join(r.NotKept, ", ") + ")"
			}
			switch r.Outcome {
			case outcomeCreated, outcomeExists:
				fmt.Fprintf(w, "line %d\t%s\t%s\t%s%s\n", r.Line, r.Outcome, r.Link.ShortURL, r.Link.URL, lost)
			case outcomeWouldCreate:
				name := r.req.Alias
				if name == "" {
					name = "(new code)"
				}
				fmt.Fprintf(w, "line %d\twould create\t%s\t%s%s\n", r.Line, name, r.req.URL, lost)
			case outcomeFailed:
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
		parts := []string{fmt.Sprintf("%d created", rep.Created)}
		if dryRun {
			parts = []string{fmt.Sprintf("%d would be created", rep.WouldCreate)}
		}
		parts = append(parts, fmt.Sprintf("%d already there", rep.Exists), fmt.Sprintf("%d failed", rep.Failed))
		summary := strings.Join(parts, ", ")
		if len(failedLines) > 0 {
			summary += " (lines " + strings.Join(failedLines, ", ") + ")"
		}
		fmt.Fprintln(a.stdout, summary)
		if len(rep.NotKept) > 0 {
			var kinds []string
			for k, n := range rep.NotKept {
				kinds = append(kinds, fmt.Sprintf("%s (%d rows)", k, n))
			}
			sort.Strings(kinds)
			fmt.Fprintln(a.stdout, "not kept: "+strings.Join(kinds, ", "))
		}
	}
	if rep.Failed > 0 {
		return &rowsFailedError{failed: rep.Failed, total: len(rows)}
	}
	return nil
}

// notKeptKind is the summary's name for a row's loss: "alias "ab" (must
// be ...)" counts as "alias".
func notKeptKind(what string) string {
	if strings.HasPrefix(what, "alias ") {
		return "alias"
	}
	return what
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
