package main

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// TestImportYOURLSKeywordsOfEveryLength imports YOURLS's own keywords, end
// to end: its first links are numbered from one character up and a keyword
// may be 100 long (varchar(100)). Under the default alias lengths (3-64)
// each is refused with a report that says why, by the importer's check and,
// when the importer is told a wider range than the deployment has, by the
// API; a deployment widened to 1-100 keeps them, with their click totals
// apart in the stats, redirecting at the edge, and in the export.
func TestImportYOURLSKeywordsOfEveryLength(t *testing.T) {
	file := filepath.Join("testdata", "import", "yourls-short-keywords.csv")
	long := "yourls-" + strings.Repeat("k", 93)
	require.Len(t, long, 100)
	wide := []string{"--alias-min-length", "1", "--alias-max-length", "100"}
	importJSON := func(t *testing.T, c *cli, extra ...string) (importReport, result) {
		t.Helper()
		args := append(append([]string{"--json", "import", "--from", "yourls"}, extra...), file)
		r := c.run(args...)
		var rep importReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout+r.stderr)
		require.Len(t, rep.Rows, 4)
		return rep, r
	}

	t.Run("the default lengths refuse them, row by row", func(t *testing.T) {
		origin := startLocal(t, "len-key=len-alice")
		c := newCLI(t, origin, map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": "len-key"})
		for _, tt := range []struct {
			name       string
			flags      []string
			wantStatus int // 0: refused before sending
		}{
			{name: "by the importer's check"},
			{name: "by the API, when the importer is told more than the deployment allows", flags: wide, wantStatus: http.StatusBadRequest},
		} {
			t.Run(tt.name, func(t *testing.T) {
				rep, r := importJSON(t, c, tt.flags...)
				assert.Equal(t, exitFailed, r.code)
				assert.Equal(t, 4, rep.Failed)
				for i, n := range []int{1, 2, 100} {
					row := rep.Rows[i]
					assert.Equal(t, outcomeFailed, row.Outcome, "line %d", row.Line)
					assert.Equal(t, tt.wantStatus, row.Status, "line %d", row.Line)
					require.NotNil(t, row.Problem)
					assert.Equal(t, "alias", row.Problem.Field)
					assert.Contains(t, row.Problem.Detail, "must be 3 to 64 characters, got "+itoa(n))
				}
				assert.Equal(t, "alias", rep.Rows[3].Problem.Field, "v1: too short, or told 1-100, reserved")
			})
		}
		plain := c.run("import", "--from", "yourls", file)
		assert.Contains(t, plain.stdout, "0 created, 0 already there, 4 failed")
		assert.Contains(t, plain.stdout, "must be 3 to 64 characters, got 1", "the report says why, per row")
		assert.Equal(t, exitUsage, c.run("import", "--from", "yourls", "--alias-min-length", "0", file).code)
		c.checkTraffic(0)
	})

	t.Run("a deployment widened to 1-100 keeps them and their clicks", func(t *testing.T) {
		origin := startLocal(t, "len-wide-key=len-bob", "SHORTENER_ALIAS_MIN_LENGTH=1", "SHORTENER_ALIAS_MAX_LENGTH=100")
		c := newCLI(t, origin, map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": "len-wide-key"})
		rep, r := importJSON(t, c, wide...)
		assert.Equal(t, exitFailed, r.code, "v1 stays reserved")
		assert.Equal(t, 3, rep.Created)
		for i, alias := range []string{"a", "zz", long} {
			require.Equal(t, outcomeCreated, rep.Rows[i].Outcome, "%+v", rep.Rows[i].Problem)
			assert.Equal(t, origin+"/"+alias, rep.Rows[i].Link.ShortURL)
		}
		assert.Equal(t, "alias", rep.Rows[3].Problem.Field)
		assert.Contains(t, rep.Rows[3].Problem.Detail, `"v1" is reserved`)

		var st statsapi.Stats
		require.NoError(t, json.Unmarshal([]byte(c.ok("--json", "stats", "a")), &st))
		require.NotNil(t, st.Imported)
		assert.Equal(t, int64(48213), st.Imported.Clicks)
		assert.Zero(t, st.Totals.Total, "the imported total is never counted in")
		var zz statsapi.Stats
		require.NoError(t, json.Unmarshal([]byte(c.ok("--json", "stats", "zz")), &zz))
		assert.Nil(t, zz.Imported, "a source total of 0 is none")
		assert.Contains(t, c.ok("stats", long), "imported  17 clicks")

		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for path, want := range map[string]string{"/a": "https://example.net/first", "/ZZ": "https://example.net/zz", "/" + long: "https://example.net/long"} {
			resp, err := noFollow.Get(origin + path)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode, path)
			assert.Equal(t, want, resp.Header.Get("Location"), path)
		}
		for _, path := range []string{"/v1", "/V1", "/qr"} {
			resp, err := noFollow.Get(origin + path)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s is a route, never a link", path)
		}

		again := c.run("import", "--from", "yourls", "--alias-min-length", "1", "--alias-max-length", "100", file)
		assert.Contains(t, again.stdout, "0 created, 3 already there, 1 failed", "a second run creates nothing")

		rows, err := csv.NewReader(strings.NewReader(c.ok("export"))).ReadAll()
		require.NoError(t, err)
		imported := map[string]string{}
		for _, row := range rows[1:] {
			imported[row[1]] = row[len(exportColumns)-1]
		}
		assert.Equal(t, map[string]string{"a": "48213", "zz": "", long: "17"}, imported, "the export carries the totals for a re-import")
		c.checkTraffic(0)
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
