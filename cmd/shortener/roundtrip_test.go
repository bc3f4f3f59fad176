package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// generatedFields are the fields two exports of the same links may differ
// in after a round trip, as docs/cli.md lists them: the service sets them
// on every create. A link's code is among them only without an alias.
var generatedFields = []string{"short_url", "created_at", "updated_at", "version"}

// featureColumns are the redirect-rule columns, empty for a link without them.
var featureColumns = []string{"protected", "max_clicks", "rules", "targets", "expired_url", "imported_clicks"}

// comparableExport reads an export (CSV or NDJSON) into one JSON line per
// link without the generated fields, sorted, so two exports compare as
// sets of links.
func comparableExport(t *testing.T, format, data string) []string {
	t.Helper()
	var recs []map[string]any
	if format == "csv" {
		all, err := csv.NewReader(strings.NewReader(data)).ReadAll()
		require.NoError(t, err)
		require.NotEmpty(t, all)
		require.Equal(t, exportColumns, all[0])
		for _, row := range all[1:] {
			m := map[string]any{}
			for i, col := range all[0] {
				m[col] = row[i]
			}
			recs = append(recs, m)
		}
	} else {
		dec := json.NewDecoder(strings.NewReader(data))
		for dec.More() {
			m := map[string]any{}
			require.NoError(t, dec.Decode(&m))
			recs = append(recs, m)
		}
	}
	var out []string
	for _, m := range recs {
		for _, f := range generatedFields {
			delete(m, f)
		}
		// CSV cells are strings, NDJSON values are typed and an empty alias
		// is left out: compare both as strings.
		flat := map[string]string{}
		for k, v := range m {
			if cell, ok := v.(string); ok && cell != "" && (k == "rules" || k == "targets") {
				require.NoError(t, json.Unmarshal([]byte(cell), &v), "a CSV cell holds the JSON list")
			}
			switch v.(type) {
			case []any: // rules and targets, compared as JSON with sorted keys
				b, err := json.Marshal(v)
				require.NoError(t, err)
				flat[k] = string(b)
			default:
				flat[k] = fmt.Sprint(v)
			}
			if flat[k] == "" && slices.Contains(featureColumns, k) {
				delete(flat, k) // an empty CSV cell is a field NDJSON leaves out
			}
		}
		if flat["alias"] == "" {
			delete(flat, "alias")
			delete(flat, "code")
		}
		b, err := json.Marshal(flat)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// TestExportImportRoundTrip exports one local run's links, imports them
// into a fresh local run, and exports again: the two exports hold the same
// links but for the generated fields. Importing again, in either format,
// creates nothing; a dry run writes nothing.
func TestExportImportRoundTrip(t *testing.T) {
	srcOrigin := startLocal(t, "rt-src-key=rt-alice")
	src := newCLI(t, srcOrigin, map[string]string{"SHORTENER_ENDPOINT": srcOrigin, "SHORTENER_API_KEY": "rt-src-key"})
	expires := time.Now().Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	src.ok("shorten", "https://example.com/landing?utm_source=roundtrip")
	src.ok("shorten", "https://example.com/summer", "--alias", "Summer-Sale", "--ttl", "30d", "--status", "307")
	src.ok("shorten", `https://example.com/search?q=a,b&say="hi"`, "--status", "308", "--expires", expires)
	src.ok("shorten", "https://例え.jp/パス", "--alias", "Reise_2027")
	src.ok("shorten", "https://example.com/twice") // two links without alias for one URL stay two
	src.ok("shorten", "https://example.com/twice")
	paused := strings.TrimPrefix(strings.TrimSpace(src.ok("shorten", "https://example.com/paused", "--status", "301")), srcOrigin+"/")
	src.ok("edit", paused, "--status", "disabled")
	src.ok("shorten", "https://example.com/geo", "--alias", "Geo-Split", "--max-clicks", "500",
		"--rule", "country=de,AT;device=mobile;url=https://example.com/de?a=1,2", "--rule", "language=fr;url=https://example.com/fr",
		"--target", "https://a.example.com/=70", "--target", "https://b.example.com/?x=1=30", "--expired-url", "https://example.com/over")
	// A protected link is exported (protected true) but never imported:
	// its password cannot leave the service, and without one it would be open.
	src.ok("shorten", "https://example.com/members", "--alias", "Members", "--password", "members-only-2026")

	dir := t.TempDir()
	exports := map[string]string{}
	for _, format := range []string{"csv", "ndjson"} {
		file := filepath.Join(dir, "links."+format)
		r := src.run("export", "--format", format, "-o", file)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "exported 9 links")
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		exports[format] = string(b)
		assert.Equal(t, string(b), src.ok("export", "--format", format), "stdout and -o write the same")
	}
	require.Len(t, comparableExport(t, "csv", exports["csv"]), 9)
	require.Equal(t, comparableExport(t, "csv", exports["csv"]), comparableExport(t, "ndjson", exports["ndjson"]), "both formats carry the same fields")
	src.checkTraffic(0)

	dstOrigin := startLocal(t, "rt-dst-key=rt-bob,rt-carol-key=rt-carol")
	dst := newCLI(t, dstOrigin, map[string]string{"SHORTENER_ENDPOINT": dstOrigin, "SHORTENER_API_KEY": "rt-dst-key"})

	t.Run("dry run writes nothing", func(t *testing.T) {
		var rep importReport
		r := dst.run("--json", "import", "--from", "csv", "--dry-run", filepath.Join(dir, "links.csv"))
		assert.Equal(t, exitFailed, r.code, "the protected row fails")
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		assert.Equal(t, importReport{WouldCreate: 8, Failed: 1}, importReport{Created: rep.Created, Exists: rep.Exists, WouldCreate: rep.WouldCreate, Failed: rep.Failed, NotKept: rep.NotKept})
		var page linkapi.LinkPage
		require.NoError(t, json.Unmarshal([]byte(dst.ok("ls", "--all", "--json")), &page))
		assert.Empty(t, page.Links)
	})

	t.Run("import, then import again", func(t *testing.T) {
		r := dst.run("import", "--from", "csv", filepath.Join(dir, "links.csv"))
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stdout, "8 created, 0 already there, 1 failed")
		assert.Regexp(t, `failed\s+-\s+.*password-protected`, r.stdout)
		for _, format := range []string{"csv", "ndjson"} {
			r := dst.run("import", "--from", format, filepath.Join(dir, "links."+format))
			assert.Contains(t, r.stdout, "0 created, 8 already there, 1 failed", "a second run creates nothing (%s)", format)
		}
		assert.Equal(t, exitFailed, dst.run("get", "members").code, "the protected link was not created open")
	})

	t.Run("the second export matches the first", func(t *testing.T) {
		for _, format := range []string{"csv", "ndjson"} {
			again := dst.ok("export", "--format", format)
			var want []string
			for _, l := range comparableExport(t, format, exports[format]) {
				if !strings.Contains(l, `"protected":"true"`) {
					want = append(want, l)
				}
			}
			assert.Equal(t, want, comparableExport(t, format, again), format)
		}
		var d linkapi.LinkDetail
		require.NoError(t, json.Unmarshal([]byte(dst.ok("get", "summer-sale", "--json")), &d))
		assert.Equal(t, dstOrigin+"/Summer-Sale", d.ShortURL, "an alias keeps its short URL's path")
	})

	t.Run("collisions", func(t *testing.T) {
		other := newCLI(t, dstOrigin, map[string]string{"SHORTENER_ENDPOINT": dstOrigin, "SHORTENER_API_KEY": "rt-carol-key"})
		other.ok("shorten", "https://example.org/carol", "--alias", "Carols-Link")
		file := filepath.Join(dir, "collide.csv")
		require.NoError(t, os.WriteFile(file, []byte("url,alias\n"+
			"https://example.com/not-summer,summer-sale\n"+ // bob's, for another URL
			"https://example.org/mine,carols-link\n"+ // carol's: only the real run can tell
			"https://example.com/new,Brand-New\n"), 0o644))
		var rep importReport
		r := dst.run("--json", "import", "--dry-run", file)
		assert.Equal(t, exitFailed, r.code)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		require.Len(t, rep.Rows, 3)
		assert.Equal(t, outcomeFailed, rep.Rows[0].Outcome)
		assert.Equal(t, 409, rep.Rows[0].Status)
		assert.Contains(t, rep.Rows[0].Problem.Detail, "already yours, for https://example.com/summer")
		assert.Equal(t, outcomeWouldCreate, rep.Rows[1].Outcome, "another owner's alias is not visible to a dry run")
		assert.Equal(t, outcomeWouldCreate, rep.Rows[2].Outcome)

		r = dst.run("--json", "import", file)
		assert.Equal(t, exitFailed, r.code)
		rep = importReport{}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		assert.Equal(t, 409, rep.Rows[1].Status, "carol's alias is taken")
		assert.Equal(t, outcomeCreated, rep.Rows[2].Outcome)
		assert.Equal(t, 1, rep.Created)
		assert.Equal(t, 2, rep.Failed)
		other.checkTraffic(0)
	})
	dst.checkTraffic(0)

	t.Run("clicks", func(t *testing.T) {
		var buf bytes.Buffer
		buf.WriteString(src.ok("export", "clicks", "Summer-Sale", "--granularity", "hour", "--from", "2h"))
		all, err := csv.NewReader(&buf).ReadAll()
		require.NoError(t, err)
		require.Equal(t, clickColumns, all[0])
		require.Len(t, all, 4, "a header and 3 hourly buckets")
		for _, row := range all[1:] {
			assert.Equal(t, []string{"summer-sale", "time"}, row[:2])
			assert.Equal(t, []string{"0", "0", "0"}, row[3:])
		}
		assert.Equal(t, exitFailed, src.run("export", "clicks", "nOsUcH1").code)
		assert.Equal(t, exitUsage, src.run("export", "--format", "xml").code)
	})
}
