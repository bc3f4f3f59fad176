package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// parseTTL reads a lifetime as seconds: a whole number of seconds, a Go
// duration (90m, 36h) or days and weeks (30d, 2w).
func parseTTL(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	mult := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		mult = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		mult = 7 * 24 * time.Hour
	}
	if mult != 0 {
		n, err := strconv.ParseFloat(strings.TrimRight(s, "dw"), 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a lifetime such as 3600, 36h, 30d or 2w", s)
		}
		return int64(n * mult.Seconds()), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a lifetime such as 3600, 36h, 30d or 2w", s)
	}
	return int64(d / time.Second), nil
}

// checkExpires checks an RFC 3339 time before the API does, for a clearer
// message; the API has the last word.
func checkExpires(s string) error {
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return usagef("--expires %q is not an RFC 3339 time such as 2030-01-02T15:04:05Z", s)
	}
	return nil
}

func (a *app) shortenCommand() *cobra.Command {
	var (
		alias, ttl, expires, idemKey string
		status, redirectStatus       int
		ff                           featureFlags
	)
	cmd := &cobra.Command{
		Use:   "shorten URL",
		Short: "Create a short link and print its short URL",
		Example: `  shortener shorten https://example.com/landing
  shortener shorten https://example.com/summer --alias Summer-Sale --ttl 30d --status 307
  shortener shorten https://example.com/order --idempotency-key order-4711   # safe to retry
  shortener shorten https://example.com/ --rule 'country=DE,AT;url=https://example.com/de' \
      --target 'https://a.example=70' --target 'https://b.example=30' --max-clicks 1000`,
		Args: args(1, "one URL"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			body := linkapi.CreateRequest{URL: argv[0], Alias: alias}
			if err := ff.create(cmd.Flags(), a.stdin, &body); err != nil {
				return err
			}
			var err error
			if body.TTLSeconds, body.ExpiresAt, err = expiryFlags(ttl, expires); err != nil {
				return err
			}
			if status != 0 && redirectStatus != 0 && status != redirectStatus {
				return usagef("--status and --redirect-status disagree")
			}
			if s := max(status, redirectStatus); s != 0 {
				body.RedirectStatus = &s
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			r := request{method: http.MethodPost, path: "/v1/links", body: body}
			if idemKey != "" {
				r.header = map[string]string{"Idempotency-Key": idemKey}
			}
			var l linkapi.Link
			resp, err := c.doJSON(cmd.Context(), r, &l)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printRaw(resp.body)
			}
			fmt.Fprintln(a.stdout, l.ShortURL)
			if resp.header.Get("Idempotent-Replayed") == "true" {
				fmt.Fprintln(a.stderr, "(the link this Idempotency-Key created before)")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&alias, "alias", "", "custom code: 3-64 (or the deployment's range, up to 1-100) of A-Z a-z 0-9 _ -, case-insensitive")
	f.StringVar(&ttl, "ttl", "", "lifetime: seconds, or 36h, 30d, 2w (default: the service's, 5 years)")
	f.StringVar(&expires, "expires", "", "expiry as an RFC 3339 time, instead of --ttl")
	f.IntVar(&status, "status", 0, "redirect status: 301, 302 (default), 307 or 308")
	f.IntVar(&redirectStatus, "redirect-status", 0, "the same as --status")
	f.StringVar(&idemKey, "idempotency-key", "", "makes the create safe to retry: the same key answers the same link for 24 h")
	ff.register(f, false)
	return cmd
}

func (a *app) getCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "get CODE",
		Short: "Show one of your links",
		Args:  args(1, "one code"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			var l linkapi.LinkDetail
			resp, err := c.doJSON(cmd.Context(), request{method: http.MethodGet, path: linkPath(argv[0])}, &l)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printRaw(resp.body)
			}
			return a.printDetail(l, resp.header.Get("ETag"))
		},
	}
}

func (a *app) printDetail(l linkapi.LinkDetail, etag string) error {
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	rows := [][2]string{
		{"short_url", l.ShortURL},
		{"code", l.Code},
		{"url", l.URL},
	}
	if l.Alias != "" {
		rows = append(rows, [2]string{"alias", l.Alias})
	}
	rows = append(rows,
		[2]string{"status", string(l.Status)},
		[2]string{"redirect_status", strconv.Itoa(l.RedirectStatus)},
		[2]string{"created_at", l.CreatedAt},
		[2]string{"updated_at", l.UpdatedAt},
		[2]string{"expires_at", l.ExpiresAt},
		[2]string{"version", strconv.FormatInt(l.Version, 10)},
	)
	rows = append(rows, featureRows(l.Features)...)
	if etag != "" {
		rows = append(rows, [2]string{"etag", etag})
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\n", r[0], r[1])
	}
	return w.Flush()
}

func (a *app) lsCommand() *cobra.Command {
	var (
		limit  int
		all    bool
		cursor string
	)
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List your links, newest first",
		Example: `  shortener ls                 # the 20 newest
  shortener ls --limit 100
  shortener ls --all --json    # every link, for a script`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 && !all {
				return usagef("--limit must be at least 1")
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			var links []linkapi.LinkDetail
			next := cursor
			for {
				want := linkapi.MaxBatch // the API's largest page
				if !all {
					want = min(limit-len(links), want)
				}
				q := url.Values{"limit": {strconv.Itoa(want)}}
				if next != "" {
					q.Set("cursor", next)
				}
				var page linkapi.LinkPage
				if _, err := c.doJSON(cmd.Context(), request{method: http.MethodGet, path: "/v1/links", query: q}, &page); err != nil {
					return err
				}
				links = append(links, page.Links...)
				next = page.NextCursor
				if next == "" || (!all && len(links) >= limit) {
					break
				}
			}
			if a.jsonOut {
				return a.printJSON(linkapi.LinkPage{Links: links, NextCursor: next})
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "CODE\tSHORT URL\tSTATUS\tEXPIRES\tURL")
			for _, l := range links {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", l.Code, l.ShortURL, l.Status, l.ExpiresAt, l.URL)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if next != "" {
				fmt.Fprintf(a.stderr, "more links follow: --cursor %s, or --all\n", next)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&limit, "limit", 20, "at most this many links")
	f.BoolVar(&all, "all", false, "every link, page after page")
	f.StringVar(&cursor, "cursor", "", "continue where a previous listing stopped")
	return cmd
}

func (a *app) editCommand() *cobra.Command {
	var (
		target, ttl, expires, status, ifMatch string
		redirectStatus                        int
		ff                                    featureFlags
	)
	cmd := &cobra.Command{
		Use:   "edit CODE",
		Short: "Change one of your links",
		Long: `Change one of your links. Every change increments its version; with --if-match the
change applies only if the link is still at that version (412 otherwise, exit code 1).`,
		Example: `  shortener edit Ab3dE5g --url https://example.com/new
  shortener edit Summer-Sale --status disabled
  shortener edit Ab3dE5g --ttl 90d --if-match 3
  shortener edit Ab3dE5g --rule 'device=mobile;url=https://m.example.com/' --max-clicks 50
  shortener edit Ab3dE5g --clear password,targets`,
		Args: args(1, "one code"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var body linkapi.PatchRequest
			f := cmd.Flags()
			if f.Changed("url") {
				body.URL = &target
			}
			var err error
			if body.TTLSeconds, body.ExpiresAt, err = expiryFlags(ttl, expires); err != nil {
				return err
			}
			if f.Changed("status") {
				if status != "active" && status != "disabled" {
					return usagef("--status must be active or disabled")
				}
				body.Status = &status
			}
			if f.Changed("redirect-status") {
				body.RedirectStatus = &redirectStatus
			}
			if err := ff.patch(f, a.stdin, &body); err != nil {
				return err
			}
			if body.Empty() {
				return usagef("nothing to change: give --url, --ttl, --expires, --status, --redirect-status, " +
					"--password, --max-clicks, --rule, --target, --expired-url or --clear")
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			r := request{method: http.MethodPatch, path: linkPath(argv[0]), body: body}
			if ifMatch != "" {
				r.header = map[string]string{"If-Match": etagOf(ifMatch)}
			}
			var l linkapi.LinkDetail
			resp, err := c.doJSON(cmd.Context(), r, &l)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printRaw(resp.body)
			}
			return a.printDetail(l, resp.header.Get("ETag"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "url", "", "new target URL")
	f.StringVar(&ttl, "ttl", "", "new lifetime from now: seconds, or 36h, 30d, 2w")
	f.StringVar(&expires, "expires", "", "new expiry as an RFC 3339 time")
	f.StringVar(&status, "status", "", "active or disabled (a disabled link answers 410)")
	f.IntVar(&redirectStatus, "redirect-status", 0, "301, 302, 307 or 308")
	f.StringVar(&ifMatch, "if-match", "", `change only if the link is at this version (3 or "3", as get shows it)`)
	ff.register(f, true)
	return cmd
}

// etagOf turns a version as a person types it (3) into the entity tag the
// API compares ("3"); a quoted tag or * passes as it is.
func etagOf(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return `"` + v + `"`
	}
	return v
}

func (a *app) rmCommand() *cobra.Command {
	var ifMatch string
	cmd := &cobra.Command{
		Use:   "rm CODE",
		Short: "Delete one of your links",
		Long: `Delete one of your links. Its short URL answers 410 from now on, and the code is held
back from reuse for a grace period.`,
		Args: args(1, "one code"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			r := request{method: http.MethodDelete, path: linkPath(argv[0])}
			if ifMatch != "" {
				r.header = map[string]string{"If-Match": etagOf(ifMatch)}
			}
			if _, err := c.do(cmd.Context(), r); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"code": argv[0], "deleted": true})
			}
			fmt.Fprintf(a.stdout, "deleted %s\n", argv[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&ifMatch, "if-match", "", "delete only if the link is at this version")
	return cmd
}

// expiryFlags are --ttl and --expires as a request's ttl_seconds and
// expires_at: nil for a flag not given, and a usage error for both.
func expiryFlags(ttl, expires string) (ttlSeconds *int64, expiresAt *string, err error) {
	switch {
	case ttl != "" && expires != "":
		return nil, nil, usagef("give --ttl or --expires, not both")
	case ttl != "":
		n, err := parseTTL(ttl)
		if err != nil {
			return nil, nil, usagef("--ttl: %v", err)
		}
		return &n, nil, nil
	case expires != "":
		if err := checkExpires(expires); err != nil {
			return nil, nil, err
		}
		return nil, &expires, nil
	}
	return nil, nil, nil
}
