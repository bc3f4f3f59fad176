package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// TestCLIAgainstTheLocalRun drives every subcommand through the real local
// run: cmd/shortener-local over DynamoDB Local and kinesalite, with its
// edge and click pipeline. Every request the CLI sends and every answer it
// gets is checked against api/openapi.yaml on the way.
func TestCLIAgainstTheLocalRun(t *testing.T) {
	origin := startLocal(t, "cli-key=cli-owner,import-key=import-owner,other-key=other-owner")
	c := newCLI(t, origin, map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": "cli-key"})
	badRequests := 0 // requests sent wrong on purpose, which the document must refuse

	var code string
	t.Run("shorten", func(t *testing.T) {
		out := strings.TrimSpace(c.ok("shorten", "https://example.com/landing?utm_source=cli"))
		require.Regexp(t, "^"+regexp.QuoteMeta(origin)+"/[0-9A-Za-z]{7}$", out, "text output is the short URL alone")
		code = strings.TrimPrefix(out, origin+"/")

		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Get(out)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 302, resp.StatusCode)
		assert.Equal(t, "https://example.com/landing?utm_source=cli", resp.Header.Get("Location"))

		var l linkapi.Link
		require.NoError(t, json.Unmarshal([]byte(c.ok("--json", "shorten", "https://example.com/summer", "--alias", "Summer-Sale", "--ttl", "30d", "--status", "307")), &l))
		assert.Equal(t, "Summer-Sale", l.Alias)
		assert.Equal(t, origin+"/Summer-Sale", l.ShortURL)
		assert.Equal(t, 307, l.RedirectStatus)
		exp, err := time.Parse(time.RFC3339, l.ExpiresAt)
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now().Add(30*24*time.Hour), exp, time.Minute)

		// One expiry for both: a retry must send the same body, and two
		// clock reads can straddle a second.
		expires := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
		first := c.run("shorten", "https://example.com/order", "--idempotency-key", "order-4711", "--expires", expires)
		require.Equal(t, exitOK, first.code, first.stderr)
		again := c.run("shorten", "https://example.com/order", "--idempotency-key", "order-4711", "--expires", expires)
		require.Equal(t, exitOK, again.code, again.stderr)
		assert.Equal(t, first.stdout, again.stdout, "a retry with the same key names the same link")
		assert.Contains(t, again.stderr, "Idempotency-Key")

		r := c.run("shorten", "javascript:alert(1)")
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stderr, "400 url: ")
		r = c.run("--json", "shorten", "https://example.com/", "--alias", "ab")
		assert.Equal(t, exitFailed, r.code)
		// The document allows it (a deployment may allow 1-100); this one
		// keeps the defaults, and says so.
		var e struct {
			ExitCode int     `json:"exit_code"`
			Problem  problem `json:"problem"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr)
		assert.Equal(t, exitFailed, e.ExitCode)
		assert.Equal(t, "alias", e.Problem.Field)
		assert.Contains(t, e.Problem.Detail, "must be 3 to 64 characters, got 2")
		assert.Empty(t, r.stdout)

		r = c.run("shorten", "https://example.com/other", "--alias", "summer-SALE")
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stderr, "409")
		for _, args := range [][]string{
			{"shorten", "https://example.com/", "--ttl", "1h", "--expires", "2030-01-01T00:00:00Z"},
			{"shorten", "https://example.com/", "--ttl", "soon"},
			{"shorten", "https://example.com/", "--expires", "tomorrow"},
			{"shorten"},
			{"shorten", "a", "b"},
			{"shorten", "https://example.com/", "--status", "x"},
		} {
			assert.Equal(t, exitUsage, c.run(args...).code, "%v", args)
		}
	})

	t.Run("get", func(t *testing.T) {
		out := c.ok("get", code)
		assert.Contains(t, out, "https://example.com/landing?utm_source=cli")
		assert.Regexp(t, `(?m)^version\s+1$`, out)
		assert.Regexp(t, `(?m)^etag\s+"1"$`, out)
		var d linkapi.LinkDetail
		require.NoError(t, json.Unmarshal([]byte(c.ok("get", "SUMMER-SALE", "--json")), &d))
		assert.Equal(t, "summer-sale", d.Code)
		assert.Equal(t, "active", string(d.Status))

		r := c.run("get", "nOsUcH1")
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stderr, "404")
		r = c.run("get", code, "--api-key", "other-key")
		assert.Equal(t, exitFailed, r.code, "someone else's link is not found")
		assert.Contains(t, r.stderr, "404")
	})

	t.Run("ls", func(t *testing.T) {
		r := c.run("ls", "--limit", "2")
		require.Equal(t, exitOK, r.code, r.stderr)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		require.Len(t, lines, 3, "a header and two links:\n%s", r.stdout)
		assert.Regexp(t, `^CODE\s+SHORT URL\s+STATUS\s+EXPIRES\s+URL$`, lines[0])
		assert.Contains(t, lines[1], "https://example.com/order", "newest first")
		assert.Contains(t, r.stderr, "more links follow")

		var page linkapi.LinkPage
		require.NoError(t, json.Unmarshal([]byte(c.ok("ls", "--all", "--json")), &page))
		assert.Len(t, page.Links, 3)
		assert.Empty(t, page.NextCursor)
		require.NoError(t, json.Unmarshal([]byte(c.ok("ls", "--json", "--api-key", "other-key")), &page))
		assert.Empty(t, page.Links, "another key sees none of them")
		assert.Equal(t, exitUsage, c.run("ls", "--limit", "0").code)
	})

	t.Run("edit", func(t *testing.T) {
		out := c.ok("edit", code, "--url", "https://example.com/new", "--status", "disabled", "--redirect-status", "301", "--if-match", "1")
		assert.Regexp(t, `(?m)^url\s+https://example.com/new$`, out)
		assert.Regexp(t, `(?m)^status\s+disabled$`, out)
		assert.Regexp(t, `(?m)^redirect_status\s+301$`, out)
		assert.Regexp(t, `(?m)^version\s+2$`, out)

		r := c.run("edit", code, "--status", "active", "--if-match", "1")
		assert.Equal(t, exitFailed, r.code, "a stale version is refused")
		assert.Contains(t, r.stderr, "412")
		var d linkapi.LinkDetail
		require.NoError(t, json.Unmarshal([]byte(c.ok("--json", "edit", code, "--status", "active", "--ttl", "90d", "--if-match", `"2"`)), &d))
		assert.Equal(t, int64(3), d.Version)
		assert.Equal(t, "active", string(d.Status))

		assert.Equal(t, exitUsage, c.run("edit", code).code, "nothing to change")
		assert.Equal(t, exitUsage, c.run("edit", code, "--status", "deleted").code)
		assert.Equal(t, exitFailed, c.run("edit", "nOsUcH1", "--status", "active").code)
	})

	t.Run("qr", func(t *testing.T) {
		dir := t.TempDir()
		png := filepath.Join(dir, "code.png")
		assert.Contains(t, c.ok("qr", code, "-o", png), "wrote "+png)
		b, err := os.ReadFile(png)
		require.NoError(t, err)
		img, format, err := image.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, "png", format)
		assert.Equal(t, image.Rect(0, 0, 256, 256), img.Bounds())

		svg := c.ok("qr", "Summer-Sale", "--format", "svg", "--size", "128")
		assert.True(t, strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"`), svg)

		assert.Equal(t, exitUsage, c.run("qr", code, "--format", "gif").code)
		r := c.run("qr", code, "--size", "10", "-o", png)
		badRequests++ // below the document's minimum size
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stderr, "size")
	})

	t.Run("stats", func(t *testing.T) {
		// Clicks through the local edge: 5 GETs from a browser and a HEAD,
		// which counts as a bot whatever its user agent.
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for i := range 6 {
			method := http.MethodGet
			if i == 5 {
				method = http.MethodHead
			}
			req, err := http.NewRequest(method, origin+"/Summer-Sale", nil)
			require.NoError(t, err)
			req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
			resp, err := noFollow.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, 307, resp.StatusCode)
		}
		var st statsapi.Stats
		require.Eventually(t, func() bool {
			st = statsapi.Stats{}
			return json.Unmarshal([]byte(c.ok("stats", "Summer-Sale", "--json", "--granularity", "hour", "--from", "2h")), &st) == nil &&
				st.Totals.Total == 6
		}, 30*time.Second, 500*time.Millisecond, "the clicks reach the stats")
		assert.Equal(t, statsapi.Counts{Total: 6, Human: 5, Bot: 1}, st.Totals)
		assert.Equal(t, "summer-sale", st.Code)
		assert.Len(t, st.Series, 3, "2 hours back, rounded down, to the end of this hour")

		out := c.ok("stats", "Summer-Sale", "--granularity", "hour", "--from", "2h")
		assert.Contains(t, out, "clicks  6 total, 5 human, 1 bot")
		assert.Contains(t, out, "6 ┤")
		assert.Contains(t, out, "clicks per hour")
		assert.Contains(t, out, "top countries  DE 6")
		out = c.ok("stats", "summer-sale")
		assert.Contains(t, out, "clicks per day", "by day over the last 7 days by default")

		r := c.run("stats", "Summer-Sale", "--granularity", "hour", "--from", "2020-01-01")
		assert.Equal(t, exitFailed, r.code, "more than 92 days by the hour")
		assert.Contains(t, r.stderr, "400 from: ")
		assert.Equal(t, exitFailed, c.run("stats", "nOsUcH1").code)
	})

	t.Run("rm", func(t *testing.T) {
		r := c.run("rm", code, "--if-match", "1")
		assert.Equal(t, exitFailed, r.code)
		assert.Contains(t, r.stderr, "412")
		assert.Equal(t, "deleted "+code+"\n", c.ok("rm", code))
		assert.Equal(t, exitFailed, c.run("get", code).code)
		assert.Equal(t, exitFailed, c.run("rm", code).code)
	})

	t.Run("import", func(t *testing.T) {
		// 1,000 rows, three of them bad: an invalid URL, a reserved alias
		// and a ttl_seconds that is not a number, all refused before
		// sending. Line 1 is the header.
		var csv strings.Builder
		csv.WriteString("url,alias,ttl_seconds,redirect_status\n")
		bad := map[int]string{
			101: "not a url,,,\n",
			502: "https://example.com/import/502,,soon,\n",
			903: "https://example.com/import/903,Admin,,\n",
		}
		for line := 2; line <= 1001; line++ {
			switch {
			case bad[line] != "":
				csv.WriteString(bad[line])
			case line%10 == 0:
				fmt.Fprintf(&csv, "https://example.com/import/%d,Imported-%d,3600,301\n", line, line)
			case line%7 == 0:
				fmt.Fprintf(&csv, "\"https://example.com/import/%d?a=1,b=2\",,,\n", line)
			default:
				fmt.Fprintf(&csv, "https://example.com/import/%d,,,\n", line)
			}
		}
		file := filepath.Join(t.TempDir(), "links.csv")
		require.NoError(t, os.WriteFile(file, []byte(csv.String()), 0o644))

		imp := newCLI(t, origin, map[string]string{"SHORTENER_ENDPOINT": origin, "SHORTENER_API_KEY": "import-key"})
		r := imp.run("import", file)
		assert.Equal(t, exitFailed, r.code, "some rows failed\n%s", r.stderr)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		require.Len(t, lines, 1001, "one line per row, then the summary")
		assert.Equal(t, "997 created, 0 already there, 3 failed (lines 101, 502, 903)", lines[1000])
		assert.Regexp(t, `^line 101\s+failed\s+-\s+url: `, lines[99])
		assert.Regexp(t, `^line 502\s+failed\s+-\s+ttl_seconds: "soon" is not a whole number`, lines[500])
		assert.Regexp(t, `^line 903\s+failed\s+-\s+alias: .*reserved`, lines[901])
		assert.Regexp(t, `^line 2\s+created\s+`+regexp.QuoteMeta(origin)+`/\S+\s+https://example.com/import/2$`, lines[0])
		assert.Regexp(t, `^line 10\s+created\s+`+regexp.QuoteMeta(origin)+`/Imported-10\s`, lines[8])
		assert.Contains(t, lines[12], "https://example.com/import/14?a=1,b=2", "a quoted cell keeps its comma")

		var page linkapi.LinkPage
		require.NoError(t, json.Unmarshal([]byte(imp.ok("ls", "--all", "--json")), &page))
		assert.Len(t, page.Links, 997, "997 links created")
		seen := map[string]bool{}
		for _, l := range page.Links {
			seen[l.URL] = true
			if l.Alias == "Imported-500" {
				assert.Equal(t, 301, l.RedirectStatus)
			}
		}
		assert.True(t, seen["https://example.com/import/1001?a=1,b=2"], "the last row")
		assert.True(t, seen["https://example.com/import/999"])
		assert.False(t, seen["https://example.com/import/502"])

		// Running the same import again creates nothing twice: every
		// link is found among the owner's.
		r = imp.run("--json", "import", file)
		assert.Equal(t, exitFailed, r.code)
		var rep importReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		assert.Equal(t, 0, rep.Created)
		assert.Equal(t, 997, rep.Exists)
		assert.Equal(t, 3, rep.Failed)
		require.Len(t, rep.Rows, 1000)
		assert.Equal(t, 101, rep.Rows[99].Line)
		assert.Equal(t, outcomeFailed, rep.Rows[99].Outcome)
		assert.Equal(t, outcomeExists, rep.Rows[0].Outcome)
		assert.Equal(t, "url", rep.Rows[99].Problem.Field)
		require.NoError(t, json.Unmarshal([]byte(imp.ok("ls", "--all", "--json")), &page))
		assert.Len(t, page.Links, 997, "the second run created nothing")
		imp.checkTraffic(0)
	})

	t.Run("settings", func(t *testing.T) {
		cfgHome := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(cfgHome, "shortener"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(cfgHome, "shortener", "config.json"),
			[]byte(`{"endpoint": "`+origin+`", "api_key": "cli-key"}`), 0o600))
		fromFile := newCLI(t, origin, map[string]string{"XDG_CONFIG_HOME": cfgHome})
		fromFile.ok("ls")
		fromFile.env["SHORTENER_API_KEY"] = "nobody"
		r := fromFile.run("ls")
		assert.Equal(t, exitFailed, r.code, "the environment beats the file")
		assert.Contains(t, r.stderr, "403")
		fromFile.ok("ls", "--api-key", "cli-key") // the flag beats the environment
		fromFile.env["SHORTENER_ENDPOINT"] = "http://127.0.0.1:1"
		r = fromFile.run("ls", "--api-key", "cli-key")
		assert.Equal(t, exitUnavailable, r.code, "nothing listens there")
		assert.Contains(t, r.stderr, "cannot reach http://127.0.0.1:1")
		fromFile.ok("ls", "--api-key", "cli-key", "--endpoint", origin)
		fromFile.checkTraffic(0)

		noKey := newCLI(t, origin, map[string]string{"SHORTENER_ENDPOINT": origin})
		r = noKey.run("ls")
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "no API key")
		assert.Equal(t, exitUsage, noKey.run("ls", "--config", filepath.Join(cfgHome, "missing.json")).code)
		broken := filepath.Join(cfgHome, "broken.json")
		require.NoError(t, os.WriteFile(broken, []byte(`{"endpoint": 5}`), 0o600))
		assert.Equal(t, exitUsage, noKey.run("ls", "--config", broken).code)
		assert.Equal(t, exitUsage, noKey.run("ls", "--api-key", "k", "--endpoint", "ftp://x").code)
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{}, {"frobnicate"}, {"get"}, {"rm", "a", "b"}, {"ls", "--bogus"}, {"import"}, {"import", "/nonexistent.csv"}} {
			r := c.run(args...)
			assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
		}
		r := c.run("--help")
		assert.Equal(t, exitOK, r.code)
		assert.Contains(t, r.stdout, "Exit codes:")
	})

	c.checkTraffic(badRequests)
}
