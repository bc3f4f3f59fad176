package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// importFormats are the values of `import --from`, each with the reader of
// that tool's own export. The column layouts, and where they were read, are
// in docs/cli.md and next to each reader.
var importFormats = map[string]func([]byte) ([]*importRow, error){
	"csv":    readOwnCSV,
	"ndjson": readOwnNDJSON,
	"bitly":  readBitly,
	"shlink": readShlink,
	"yourls": readYOURLS,
	"kutt":   readKutt,
	"dub":    readDub,
}

func formatNames() string {
	var names []string
	for n := range importFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// Columns that the lost-and-kept report names. Each is something a source
// had that a link here has no place for.
const (
	lostTitle       = "title"
	lostTags        = "tags"
	lostClicks      = "clicks"
	lostDomain      = "domain"
	lostDescription = "description"
	lostArchived    = "archived"
	lostIP          = "creator IP"
	lostLeads       = "leads"
	lostConversions = "conversions"
	lostRevenue     = "revenue"
)

// csvTable reads a CSV file with a header row and calls row for each record
// with its line number (the header is line 1; a quoted cell spanning lines
// counts them all) and a lookup by column name. A record the CSV reader
// cannot read, or with another number of fields than the header, fails on
// its own line.
type csvTable struct {
	cols  map[string]int
	width int // the header's number of fields
}

// has reports whether the header names column (compared case-insensitively).
func (t csvTable) has(name string) bool { _, ok := t.cols[strings.ToLower(name)]; return ok }

func readCSVTable(data []byte, row func(t csvTable, line int, cell func(string) string) *importRow) (csvTable, []*importRow, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a spreadsheet's byte order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // checked per row, so a short row fails alone
	header, err := r.Read()
	if err != nil {
		return csvTable{}, nil, usagef("the CSV file has no header row: %v", err)
	}
	t, err := newTable(header)
	if err != nil {
		return t, nil, err
	}
	var rows []*importRow
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			bad := &importRow{Line: perr.StartLine}
			bad.fail(0, problem{Title: "Malformed CSV", Detail: perr.Err.Error()})
			rows = append(rows, bad)
			continue
		} else if err != nil {
			return t, nil, usagef("read the CSV file: %v", err)
		}
		line, _ := r.FieldPos(0)
		rows = append(rows, t.record(line, rec, row))
	}
	if len(rows) == 0 {
		return t, nil, usagef("the CSV file has a header but no rows")
	}
	return t, rows, nil
}

// readTabTable is readCSVTable for the tab-separated output of `mysql
// --batch`: a header row of column names, then a row a line, no quoting,
// and a tab, newline, NUL or backslash in a value written as \t, \n, \0
// or \\ (mysql/mysql-server, client/mysql.cc, safe_put_field). A SQL NULL
// is written NULL, which the caller tells apart if it cares.
func readTabTable(data []byte, row func(t csvTable, line int, cell func(string) string) *importRow) (csvTable, []*importRow, error) {
	lines := strings.Split(string(bytes.TrimPrefix(data, []byte("\ufeff"))), "\n")
	split := func(line string) []string {
		fields := strings.Split(strings.TrimSuffix(line, "\r"), "\t")
		for i, f := range fields {
			fields[i] = mysqlUnescape.Replace(f)
		}
		return fields
	}
	t, err := newTable(split(lines[0]))
	if err != nil {
		return t, nil, err
	}
	var rows []*importRow
	for i, line := range lines[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		rows = append(rows, t.record(i+2, split(line), row))
	}
	if len(rows) == 0 {
		return t, nil, usagef("the tab-separated file has a header but no rows")
	}
	return t, rows, nil
}

var mysqlUnescape = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\0`, "\x00")

// isTabSeparated reports whether a file's header row is separated by tabs.
func isTabSeparated(data []byte) bool {
	header, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.ContainsRune(header, '\t')
}

// newTable indexes a header row by lower-cased column name.
func newTable(header []string) (csvTable, error) {
	t := csvTable{cols: map[string]int{}, width: len(header)}
	for i, name := range header {
		name = strings.ToLower(strings.TrimSpace(name))
		if _, dup := t.cols[name]; dup {
			return t, usagef("column %q appears twice", name)
		}
		t.cols[name] = i
	}
	return t, nil
}

// record makes the row of one record: row's, or a failed one when the
// record has another number of fields than the header.
func (t csvTable) record(line int, rec []string, row func(t csvTable, line int, cell func(string) string) *importRow) *importRow {
	if len(rec) != t.width {
		bad := &importRow{Line: line}
		bad.fail(0, problem{Title: "Malformed CSV", Detail: fmt.Sprintf("%d fields where the header has %d", len(rec), t.width)})
		return bad
	}
	return row(t, line, func(name string) string {
		if i, ok := t.cols[strings.ToLower(name)]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	})
}

// requireColumns is a usage error naming the first column the header lacks.
func requireColumns(t csvTable, format string, names ...string) error {
	for _, n := range names {
		if !t.has(n) {
			return usagef("this is not a %s export: the header names no %q column", format, n)
		}
	}
	return nil
}

// ownColumns are the columns `import --from csv` reads: the four of a
// hand-made file, and those of `export --format csv`. The ones
// generatedColumns lists are the service's own and are not sent.
var ownColumns = append([]string{"url", "alias", "ttl_seconds", "redirect_status", "expires_at", "status",
	"max_clicks", "rules", "targets", "expired_url", "protected", "imported_clicks"}, generatedColumns...)

// generatedColumns are fields the service sets on every link: a re-import
// reads and drops them (docs/cli.md, "Round trip").
var generatedColumns = []string{"code", "short_url", "created_at", "updated_at", "version"}

// readOwnCSV reads a hand-made CSV file (url, alias, ttl_seconds,
// redirect_status) or the output of `export --format csv`.
func readOwnCSV(data []byte) ([]*importRow, error) {
	t, rows, err := readCSVTable(data, func(_ csvTable, line int, cell func(string) string) *importRow {
		row := &importRow{Line: line, req: linkapi.CreateRequest{URL: cell("url"), Alias: cell("alias")}}
		row.Source = row.req.Alias
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
				return row
			}
			num.set(n)
		}
		if v := cell("expires_at"); v != "" {
			row.req.ExpiresAt = &v
		}
		if !setFeatureCells(row, cell) {
			return row
		}
		if v := cell("imported_clicks"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				row.fail(0, problem{Title: "Invalid row", Field: "imported_clicks", Detail: fmt.Sprintf("imported_clicks: %q is not a whole number", v)})
				return row
			}
			row.req.ImportedClicks = &n
		}
		setStatus(row, cell("status"))
		return row
	})
	if err != nil {
		return nil, err
	}
	for name := range t.cols {
		if !contains(ownColumns, name) {
			return nil, usagef("column %q is not one of %s", name, strings.Join(ownColumns, ", "))
		}
	}
	if !t.has("url") {
		return nil, usagef("the header names no url column")
	}
	return rows, nil
}

// setStatus applies an exported status: a disabled link is created
// disabled, never live.
func setStatus(row *importRow, status string) {
	switch status {
	case "", "active":
	case "disabled":
		row.disabled = true
		row.req.Status = &status
	default:
		row.fail(0, problem{Title: "Invalid row", Field: "status", Detail: fmt.Sprintf("status: %q is not active or disabled", status)})
	}
}

// readOwnNDJSON reads the output of `export --format ndjson`: one link a
// line as the API shows it. Blank lines are skipped.
func readOwnNDJSON(data []byte) ([]*importRow, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var rows []*importRow
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		row := &importRow{Line: line}
		var l linkapi.LinkDetail
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			row.fail(0, problem{Title: "Malformed JSON", Detail: err.Error()})
			rows = append(rows, row)
			continue
		}
		row.req = linkapi.CreateRequest{URL: l.URL, Alias: l.Alias}
		row.Source = l.Alias
		if l.ExpiresAt != "" {
			exp := l.ExpiresAt
			row.req.ExpiresAt = &exp
		}
		if l.RedirectStatus != 0 {
			s := l.RedirectStatus
			row.req.RedirectStatus = &s
		}
		setFeatures(row, l.Features)
		if l.ImportedClicks != 0 {
			n := l.ImportedClicks
			row.req.ImportedClicks = &n
		}
		setStatus(row, string(l.Status))
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("read the NDJSON file: %v", err)
	}
	if len(rows) == 0 {
		return nil, usagef("the NDJSON file has no links")
	}
	return rows, nil
}

// readShlink reads the CSV that Shlink's web client writes from "Export"
// on its short URLs list. Its columns, in order (shlinkio/shlink-web-component,
// src/short-urls/helpers/ExportShortUrlsBtn.tsx, exportShortUrls):
//
//	createdAt, domain, shortCode, shortUrl, longUrl, title, tags, visits
//
// with tags joined by "|". The short code becomes the alias; the export
// carries neither expiry (validSince/validUntil) nor redirect type.
func readShlink(data []byte) ([]*importRow, error) {
	t, rows, err := readCSVTable(data, func(t csvTable, line int, cell func(string) string) *importRow {
		row := &importRow{Line: line, req: linkapi.CreateRequest{URL: cell("longUrl"), Alias: cell("shortCode")}}
		row.Source = cell("domain") + "/" + cell("shortCode")
		row.lose(cell("title") != "", lostTitle)
		row.lose(cell("tags") != "", lostTags)
		visits, column := cell("visits"), "visits"
		if t.has("visitsCount") {
			visits, column = cell("visitsCount"), "visitsCount" // the API's name, in a CSV made from it
		}
		row.keepClicks(column, visits)
		row.lose(cell("domain") != "", lostDomain)
		return row
	})
	if err != nil {
		return nil, err
	}
	return rows, requireColumns(t, "Shlink", "shortCode", "longUrl")
}

// readYOURLS reads the yourls_url table of YOURLS, which has no export of
// its own, in the shapes people get it out in: a CSV export of the table
// (phpMyAdmin, or any client) or the tab-separated output of `mysql
// --batch`, both with a header row of the columns its installer creates
// (YOURLS/YOURLS, includes/functions-install.php, yourls_create_sql_tables):
//
//	keyword, url, title, timestamp, ip, clicks
//
// or the CSV of the common YOURLS Import/Export plugin
// (GautamGupta/YOURLS-Import-Export, fileio/csv.php): source ("/keyword/"),
// target, hits. The keyword becomes the alias. YOURLS has no expiry and
// redirects 301 (includes/functions.php, yourls_redirect_shorturl), which is
// kept.
func readYOURLS(data []byte) ([]*importRow, error) {
	table := readCSVTable
	if isTabSeparated(data) {
		table = readTabTable
	}
	t, rows, err := table(data, func(t csvTable, line int, cell func(string) string) *importRow {
		keyword, url, clicks, clicksColumn := cell("keyword"), cell("url"), cell("clicks"), "clicks"
		if t.has("source") {
			keyword = strings.TrimSuffix(strings.TrimPrefix(cell("source"), "/"), "/")
			url, clicks, clicksColumn = cell("target"), cell("hits"), "hits"
		}
		status := 301
		row := &importRow{Line: line, req: linkapi.CreateRequest{URL: url, Alias: keyword, RedirectStatus: &status}}
		row.Source = keyword
		row.lose(cell("title") != "" && cell("title") != "NULL", lostTitle) // NULL: mysql --batch's SQL NULL
		row.keepClicks(clicksColumn, clicks)
		row.lose(cell("ip") != "", lostIP)
		return row
	})
	if err != nil {
		return nil, err
	}
	if t.has("source") {
		return rows, requireColumns(t, "YOURLS Import/Export", "source", "target")
	}
	return rows, requireColumns(t, "YOURLS", "keyword", "url")
}

// readDub reads the CSV of Dub's "Export links" (dubinc/dub,
// apps/web/lib/zod/schemas/links.ts, exportLinksColumns: each column's
// label and how its value is written; rows from
// apps/web/lib/api/links/format-links-for-export.ts). Its columns are
// chosen in the dialog among, in this order:
//
//	Short link, Destination URL, Clicks, Leads, Conversions, Revenue,
//	Created at, Link ID, Updated at, Tags, Archived
//
// (older versions wrote a Title column and Archived as true/false; the
// current one writes Yes/No). The short link's path is the key, which
// becomes the alias. An archived Dub link still redirects; it stays active
// here. A domain's root link (key "_root") is exported as the bare domain
// (linkConstructor in packages/utils): it has no path to keep as a code.
func readDub(data []byte) ([]*importRow, error) {
	t, rows, err := readCSVTable(data, func(_ csvTable, line int, cell func(string) string) *importRow {
		row := &importRow{Line: line}
		alias, domain, err := backHalf(cell("Short link"))
		if err != nil {
			row.fail(0, problem{Title: "Invalid row", Field: "Short link", Detail: err.Error()})
			return row
		}
		row.req = linkapi.CreateRequest{URL: cell("Destination URL"), Alias: alias}
		row.Source = domain + "/" + alias
		if alias == "" {
			row.fail(0, problem{Title: "Not imported", Field: "Short link",
				Detail: fmt.Sprintf("%s is the root link of %s in Dub: a bare domain is not a short code here, so it would get a new one", cell("Short link"), domain)})
			return row
		}
		row.keepClicks("Clicks", cell("Clicks"))
		row.lose(positive(cell("Leads")), lostLeads)
		row.lose(positive(cell("Conversions")), lostConversions)
		row.lose(strings.ContainsAny(cell("Revenue"), "123456789"), lostRevenue)
		row.lose(cell("Tags") != "" && cell("Tags") != "[]", lostTags)
		row.lose(cell("Title") != "", lostTitle)
		row.lose(isYes(cell("Archived")), lostArchived)
		row.lose(domain != "", lostDomain)
		return row
	})
	if err != nil {
		return nil, err
	}
	return rows, requireColumns(t, "Dub", "Short link", "Destination URL")
}

// isYes reads a yes/no cell as the tools write it: Dub's Yes/No, or
// true/false.
func isYes(s string) bool {
	return strings.EqualFold(s, "yes") || strings.EqualFold(s, "true")
}

// bitlink is a Bitly link as its API v4 shows it (BitlinkBody in
// https://dev.bitly.com/api-reference, "Retrieve Bitlinks by Group":
// GET /v4/groups/{group_guid}/bitlinks answers {"links": [...], "pagination": ...}).
type bitlink struct {
	ID             string   `json:"id"`
	Link           string   `json:"link"`
	CustomBitlinks []string `json:"custom_bitlinks"`
	LongURL        string   `json:"long_url"`
	Title          string   `json:"title"`
	Archived       bool     `json:"archived"`
	CreatedAt      string   `json:"created_at"`
	Tags           []string `json:"tags"`
}

// readBitly reads Bitly links as their API lists them: a page of GET
// /v4/groups/{group_guid}/bitlinks ({"links": [...]}), an array of such
// links, or a CSV whose header uses the same field names (long_url, link,
// custom_bitlinks, created_at, title, tags, archived), list cells being a
// JSON array or values joined by "|". Each bitlink gives a row per
// back-half it answers to (bitlinkRows).
func readBitly(data []byte) ([]*importRow, error) {
	if isJSON(data) {
		var links []bitlink
		lines, err := jsonItems(data, "links", func(raw json.RawMessage) error {
			var b bitlink
			err := json.Unmarshal(raw, &b)
			links = append(links, b)
			return err
		})
		if err != nil {
			return nil, err
		}
		var rows []*importRow
		for i, b := range links {
			rows = append(rows, bitlinkRows(lines[i], b)...)
		}
		return rows, nil
	}
	links := map[*importRow]bitlink{}
	t, read, err := readCSVTable(data, func(_ csvTable, line int, cell func(string) string) *importRow {
		row := &importRow{Line: line}
		links[row] = bitlink{
			ID: cell("id"), Link: cell("link"), LongURL: cell("long_url"), Title: cell("title"),
			CustomBitlinks: listCell(cell("custom_bitlinks")), Tags: listCell(cell("tags")),
			Archived: isYes(cell("archived")), CreatedAt: cell("created_at"),
		}
		return row
	})
	if err != nil {
		return nil, err
	}
	if err := requireColumns(t, "Bitly", "link", "long_url"); err != nil {
		return nil, err
	}
	var rows []*importRow
	for _, r := range read {
		if b, ok := links[r]; ok {
			rows = append(rows, bitlinkRows(r.Line, b)...)
		} else {
			rows = append(rows, r) // a malformed record
		}
	}
	return rows, nil
}

// bitlinkRows makes a row of each back-half a bitlink answers to: its own
// (link), then its custom ones (custom_bitlinks). Every one of them
// redirected in Bitly and may have been shared, so each becomes a link
// here; back-halves that differ only in domain or case are one alias here
// and make one row. All redirect with 301, as Bitly does.
func bitlinkRows(line int, b bitlink) []*importRow {
	shorts := b.CustomBitlinks
	if b.Link != "" || len(shorts) == 0 {
		shorts = append([]string{b.Link}, shorts...)
	}
	var rows []*importRow
	seen := map[string]bool{}
	for _, short := range shorts {
		row := &importRow{Line: line}
		alias, domain, err := backHalf(short)
		if err != nil {
			row.fail(0, problem{Title: "Invalid row", Field: "link", Detail: err.Error()})
			rows = append(rows, row)
			continue
		}
		if seen[strings.ToLower(alias)] {
			continue
		}
		seen[strings.ToLower(alias)] = true
		status := bitlyRedirect
		row.req = linkapi.CreateRequest{URL: b.LongURL, Alias: alias, RedirectStatus: &status}
		row.Source = domain + "/" + alias
		if short == b.Link && b.ID != "" {
			row.Source = b.ID
		}
		row.lose(b.Title != "", lostTitle)
		row.lose(len(b.Tags) > 0, lostTags)
		row.lose(b.Archived, lostArchived)
		row.lose(domain != "", lostDomain)
		rows = append(rows, row)
	}
	return rows
}

// bitlyRedirect is the status Bitly redirects with: links there are
// permanent (https://en.wikipedia.org/wiki/Bitly: "The company uses HTTP
// 301 redirects for its links").
const bitlyRedirect = http.StatusMovedPermanently

// kuttLink is a Kutt link as its API v2 lists it (thedevs-network/kutt,
// server/utils/utils.js, sanitize.link; GET /api/v2/links answers
// {"limit", "skip", "total", "data": [...]}).
type kuttLink struct {
	ID          string          `json:"id"`
	Address     string          `json:"address"`
	Target      string          `json:"target"`
	Description *string         `json:"description"`
	ExpireIn    *string         `json:"expire_in"`
	Password    any             `json:"password"` // true, or the hash in older versions
	Banned      bool            `json:"banned"`
	VisitCount  int64           `json:"visit_count"`
	Domain      *string         `json:"domain"`
	Link        json.RawMessage `json:"link"`
}

// readKutt reads Kutt links as GET /api/v2/links answers them ({"data":
// [...]}), or an array of them. The address becomes the alias and
// expire_in the expiry. A password-protected or banned link is not
// imported: here it would redirect to anyone.
func readKutt(data []byte) ([]*importRow, error) {
	if !isJSON(data) {
		return nil, usagef("a Kutt export is the JSON of GET /api/v2/links")
	}
	var links []kuttLink
	lines, err := jsonItems(data, "data", func(raw json.RawMessage) error {
		var k kuttLink
		err := json.Unmarshal(raw, &k)
		links = append(links, k)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows := make([]*importRow, len(links))
	for i, k := range links {
		row := &importRow{Line: lines[i], req: linkapi.CreateRequest{URL: k.Target, Alias: k.Address}}
		row.Source = k.ID
		rows[i] = row
		switch {
		case k.Password != nil && k.Password != false && k.Password != "":
			row.fail(0, problem{Title: "Not imported", Field: "password", Detail: "the link is password-protected in Kutt; without a password here it would redirect anyone"})
			continue
		case k.Banned:
			row.fail(0, problem{Title: "Not imported", Field: "banned", Detail: "the link is banned in Kutt"})
			continue
		}
		if k.ExpireIn != nil && *k.ExpireIn != "" {
			t, err := parseSourceTime(*k.ExpireIn)
			if err != nil {
				row.fail(0, problem{Title: "Invalid row", Field: "expire_in", Detail: err.Error()})
				continue
			}
			s := t.UTC().Format(time.RFC3339)
			row.req.ExpiresAt = &s
		}
		row.lose(k.Description != nil && *k.Description != "", lostDescription)
		row.keepClicks("visit_count", strconv.FormatInt(k.VisitCount, 10))
		row.lose(k.Domain != nil && *k.Domain != "", lostDomain)
	}
	return rows, nil
}

// lose records that the source had something for this row that a link here
// cannot keep.
func (r *importRow) lose(had bool, what string) {
	if had {
		r.NotKept = append(r.NotKept, what)
	}
}

// keepClicks keeps a source's click total (its column named column) as the
// link's imported_clicks, shown apart in its stats. A cell that is no total
// (empty, SQL NULL, 0) keeps nothing; one that is not a whole number, or
// past what the API takes, is reported as a total not kept.
func (r *importRow) keepClicks(column, cell string) {
	cell = strings.TrimSpace(cell)
	if cell == "" || cell == "NULL" || cell == "0" {
		return
	}
	n, err := strconv.ParseInt(cell, 10, 64)
	if err != nil || n < 0 || n > link.MaxImportedClicks {
		r.NotKept = append(r.NotKept, fmt.Sprintf("%s (%s %q is not a click total from 0 to %d)", lostClicks, column, cell, link.MaxImportedClicks))
		return
	}
	r.req.ImportedClicks = &n
}

func positive(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0
}

// listCell splits a CSV cell holding a list: a JSON array, or values
// joined by "|".
func listCell(s string) []string {
	if s == "" {
		return nil
	}
	var list []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &list) == nil {
		return list
	}
	for _, v := range strings.Split(s, "|") {
		if v = strings.TrimSpace(v); v != "" {
			list = append(list, v)
		}
	}
	return list
}

// backHalf splits a short URL (https://bit.ly/3xYz, or bit.ly/3xYz
// without a scheme) into its path, which an alias may keep, and its host.
func backHalf(short string) (path, host string, err error) {
	if short == "" {
		return "", "", fmt.Errorf("no short link")
	}
	if !strings.Contains(short, "://") {
		short = "https://" + short
	}
	u, err := url.Parse(short)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("%q is not a short link", short)
	}
	return strings.TrimPrefix(u.Path, "/"), u.Host, nil
}

// parseSourceTime reads the times other tools write: RFC 3339, or a SQL
// datetime taken as UTC.
func parseSourceTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time such as 2030-01-02T15:04:05Z", s)
}

func isJSON(data []byte) bool {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// jsonItems streams the items of a JSON array, either the whole document
// or the member key of an object, to fn, and returns each item's line in
// the file. An item fn cannot read fails the whole file: JSON exports are
// made by programs, so a bad one is not a file worth half-importing.
func jsonItems(data []byte, key string, fn func(json.RawMessage) error) ([]int, error) {
	data, escapedNewlines := escapeControls(bytes.TrimPrefix(data, []byte("\ufeff")))
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, usagef("read the JSON file: %v", err)
	}
	if tok == json.Delim('{') {
		found := false
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, usagef("read the JSON file: %v", err)
			}
			if k == key {
				if tok, err = dec.Token(); err != nil || tok != json.Delim('[') {
					return nil, usagef("read the JSON file: %q is not an array", key)
				}
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, usagef("read the JSON file: %v", err)
			}
		}
		if !found {
			return nil, usagef("the JSON file has no %q array", key)
		}
	} else if tok != json.Delim('[') {
		return nil, usagef("the JSON file is neither an array nor an object with %q", key)
	}
	var lines []int
	for dec.More() {
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, usagef("read the JSON file: %v", err)
		}
		// The item starts at the first brace after the previous token.
		start := int(off) + bytes.IndexByte(data[off:], '{')
		at := max(start, int(off))
		lines = append(lines, 1+bytes.Count(data[:at], []byte("\n"))+sort.SearchInts(escapedNewlines, at))
		if err := fn(raw); err != nil {
			return nil, usagef("item on line %d: %v", lines[len(lines)-1], err)
		}
	}
	if len(lines) == 0 {
		return nil, usagef("the JSON file has no links")
	}
	return lines, nil
}

// escapeControls escapes the raw control characters (U+0000 to U+001F)
// inside the strings of a JSON document, which JSON forbids there. A title
// pasted from a word processor with a vertical tab in it, say, would
// otherwise make the whole file unreadable; escaped, it fails at most its
// own field. It returns the offsets, in the result, of the raw newlines it
// escaped, so line numbers still count them.
func escapeControls(data []byte) ([]byte, []int) {
	var out []byte // nil until a control character is found
	var newlines []int
	inString, escaped := false, false
	for i, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString && c < 0x20:
			if out == nil {
				out = append(make([]byte, 0, len(data)+16), data[:i]...)
			}
			if c == '\n' {
				newlines = append(newlines, len(out))
			}
			out = fmt.Appendf(out, "\\u%04x", c)
			continue
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return data, nil
	}
	return out, newlines
}

// setFeatures carries an exported link's redirect-rule fields into its
// create request. A password cannot be: only its hash was ever stored, and
// created without one the link would redirect anyone, so a protected link
// is not imported (as the Kutt reader does with Kutt's).
func setFeatures(row *importRow, f linkapi.Features) {
	if f.MaxClicks != 0 {
		n := f.MaxClicks
		row.req.MaxClicks = &n
	}
	row.req.Rules, row.req.Targets, row.req.ExpiredURL = f.Rules, f.Targets, f.ExpiredURL
	if f.Protected {
		row.fail(0, problem{Title: "Not imported", Field: "protected",
			Detail: "the link is password-protected and an export cannot carry its password (only a hash of it is stored); without one it would redirect anyone, so create it with `shortener shorten --password -`"})
	}
}

// setFeatureCells reads the redirect-rule columns of an exported CSV row;
// false when a cell is malformed and the row has failed.
func setFeatureCells(row *importRow, cell func(string) string) bool {
	var f linkapi.Features
	if v := cell("max_clicks"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			row.fail(0, problem{Title: "Invalid row", Field: "max_clicks", Detail: fmt.Sprintf("max_clicks: %q is not a whole number", v)})
			return false
		}
		f.MaxClicks = n
	}
	for _, c := range []struct {
		name string
		dst  any
	}{{"rules", &f.Rules}, {"targets", &f.Targets}} {
		if v := cell(c.name); v != "" {
			dec := json.NewDecoder(strings.NewReader(v))
			dec.DisallowUnknownFields()
			if err := dec.Decode(c.dst); err != nil {
				row.fail(0, problem{Title: "Invalid row", Field: c.name, Detail: fmt.Sprintf("%s: not the JSON list export writes: %v", c.name, err)})
				return false
			}
		}
	}
	f.ExpiredURL = cell("expired_url")
	f.Protected = cell("protected") == "true"
	setFeatures(row, f)
	return true
}
