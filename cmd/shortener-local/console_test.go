package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/console"
)

// chromiumPath finds Debian's chromium. These tests never download a
// browser: scripts/prereqs.sh installs the package (as root under CI) and
// a machine without it fails here, saying what to install.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SHORTENER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("the console's browser tests need headless Chromium and never skip: install Debian's package " +
		"(apt-get install chromium; scripts/prereqs.sh does it as root under CI=true) or set SHORTENER_CHROMIUM")
	return ""
}

// buildConsole bundles the console into a folder of the test's own, from
// the sources as they are (node and the pinned esbuild from npm ci).
func buildConsole(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "console")
	out, err := exec.Command("node", "../../console/build.mjs", dir).CombinedOutput()
	require.NoError(t, err, "node console/build.mjs (run scripts/prereqs.sh first for npm ci):\n%s", out)
	return dir
}

// screenshotDir is where the screenshots go: SHORTENER_SCREENSHOTS (the
// README's pictures are made with docs/img), else build/screenshots.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("SHORTENER_SCREENSHOTS")
	if dir == "" {
		dir = "build/screenshots"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// page is one headless Chromium tab on the local run.
type page struct {
	t        *testing.T
	ctx      context.Context
	base     string
	download string
	started  bool

	mu       sync.Mutex
	problems []string // exceptions, console errors, CSP reports
}

func newPage(t *testing.T, base string) *page {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	p := &page{t: t, ctx: ctx, base: base, download: t.TempDir()}
	// The first action starts the browser, in the context that lives as
	// long as the test (a timeout there would stop the browser).
	p.run("start chromium", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, log.Enable, cdp.Empty{})
		return err
	}))
	_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: p.download})
	require.NoError(t, err, "download folder")
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	consoleCalls := chromedp.Events(ctx, runtime.ConsoleAPICalled)
	entries := chromedp.Events(ctx, log.EntryAdded)
	go func() {
		for e, err := range exceptions {
			if err != nil {
				return
			}
			p.note("exception: " + (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		}
	}()
	go func() {
		for e, err := range consoleCalls {
			if err != nil {
				return
			}
			if e.Type == runtime.ConsoleAPICalledTypeError {
				p.note("console.error")
			}
		}
	}()
	go func() {
		for e, err := range entries {
			if err != nil {
				return
			}
			// Network errors are the API's 4xx answers the test asks for.
			if e.Entry.Level == log.EntryLevelError && e.Entry.Source != log.EntrySourceNetwork {
				p.note(fmt.Sprintf("%s: %s", e.Entry.Source, e.Entry.Text))
			}
		}
	}()
	return p
}

func (p *page) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, s)
}

// run runs actions, each step bounded so a stuck page fails the test.
func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	require.NoError(p.t, p.do(actions...), what)
}

func (p *page) do(actions ...chromedp.Action[chromedp.Void]) error {
	if p.started {
		ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
		defer cancel()
		return chromedp.Do(ctx, actions...)
	}
	p.started = true
	return chromedp.Do(p.ctx, actions...)
}

func (p *page) text(sel string) string {
	p.t.Helper()
	p.run("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	var s string
	p.eval(fmt.Sprintf(`document.querySelector(%q).textContent`, sel), &s)
	return strings.TrimSpace(s)
}

// eval evaluates js (awaiting a promise) and decodes its value into out.
func (p *page) eval(js string, out any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "eval %s", js)
	require.NoError(p.t, json.Unmarshal(raw, out), "eval %s: %s", js, raw)
}

// setInput types v into an input as a person's typing does: the value,
// then an input event.
func (p *page) setInput(sel, v string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q);
		const set = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(e), 'value').set;
		set.call(e, %q); e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); return true })()`, sel, v)
	p.run("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	var ok bool
	p.eval(js, &ok)
}

func (p *page) click(sel string) {
	p.t.Helper()
	p.run("click "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

// waitText waits until sel's text contains want.
func (p *page) waitText(sel, want string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q) })()`, sel, want)
	p.run(fmt.Sprintf("wait for %q in %s", want, sel), chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(30*time.Second)))
}

// screenshot saves the whole page at width, or with a negative height
// just the viewport of -height.
func (p *page) screenshot(dir, name string, width, height int64) {
	p.t.Helper()
	p.run("viewport "+name, chromedp.EmulateViewport(width, max(height, -height)), chromedp.Sleep(300*time.Millisecond))
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	shot := chromedp.FullScreenshot(100)
	if height < 0 { // the viewport only
		shot = chromedp.CaptureScreenshot()
	}
	png, err := chromedp.Run(ctx, shot)
	require.NoError(p.t, err, "screenshot %s", name)
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
	p.run("viewport back", chromedp.EmulateViewport(1280, 900))
}

// unlabelled lists the page's controls that have no accessible name: an
// input or select without a label or aria-label, a button or link
// without text or aria-label.
func (p *page) unlabelled() []string {
	p.t.Helper()
	var out []string
	p.eval(`[...document.querySelectorAll('input, select, button, a[href]')].filter(e => {
		if (e.getAttribute('aria-label')) return false;
		if (e.matches('input, select')) return !(e.labels && e.labels.length);
		return !e.textContent.trim();
	}).map(e => e.outerHTML.slice(0, 80))`, &out)
	return out
}

// downloaded waits for a downloaded file and returns its content.
func (p *page) downloaded(name string) []byte {
	p.t.Helper()
	var b []byte
	require.Eventually(p.t, func() bool {
		var err error
		b, err = os.ReadFile(filepath.Join(p.download, name))
		return err == nil && len(b) > 0
	}, 20*time.Second, 100*time.Millisecond, "download %s", name)
	return b
}

type statsSeries struct {
	Start             string
	Total, Human, Bot int64
}

type fullStats struct {
	From, To  string
	Totals    struct{ Total, Human, Bot int64 }
	Series    []statsSeries
	Countries []struct {
		Country           string
		Total, Human, Bot int64
	}
	Referrers []struct {
		Host              string
		Total, Human, Bot int64
	}
}

// TestConsoleInABrowser is a walk through the console in headless
// Chromium against the local run: sign-in (and a refused key), create
// (double-clicked: one link), the filter, an edit that meets a 412 and
// keeps the user's input, clicks through the local edge, the analytics
// page's numbers and its CSV against the stats API, QR, disable, delete,
// a CSV import with its per-row report, and the CSV export of the list.
func TestConsoleInABrowser(t *testing.T) {
	dir := buildConsole(t)
	// The reclaim runs hourly here, not each minute: the link that expires
	// in a second must still be listed, with its expired badge, when the
	// test comes to it however slow the machine (a reclaim run would turn
	// it into a tombstone, which the listing leaves out).
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s", "SHORTENER_RECLAIM_INTERVAL": "1h"})
	shots := screenshotDir(t)

	// What the local edge sends with the console, as the distribution does.
	status, h, body := r.do(t, "GET", "/console/", "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, console.ContentSecurityPolicy, h.Get("Content-Security-Policy"))
	assert.Equal(t, console.HTMLCacheControl, h.Get("Cache-Control"))
	assert.NotContains(t, strings.ToLower(string(body)), "<script>", "no inline script")
	asset := strings.SplitN(strings.SplitN(string(body), `src="`, 2)[1], `"`, 2)[0]
	status, h, _ = r.do(t, "GET", asset, "", "")
	require.Equal(t, 200, status, asset)
	assert.Equal(t, console.AssetCacheControl, h.Get("Cache-Control"))

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))

	// A key the API refuses: a clear message, and nothing kept.
	p.setInput("#apikey", "not-a-key")
	p.click(`button[type=submit]`)
	p.waitText("#signin-error", "not accepted")
	p.screenshot(shots, "console-signin.png", 1280, 700)
	var kept string
	p.eval(`sessionStorage.getItem('shortener.apiKey') || ''`, &kept)
	assert.Empty(t, kept)

	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	p.eval(`sessionStorage.getItem('shortener.apiKey') || ''`, &kept)
	assert.Equal(t, r.key, kept, "kept for the session")
	var href string
	p.eval(`location.href`, &href)
	assert.NotContains(t, href, r.key, "never in a URL")

	// Some links to look at; one whose URL is markup, which stays text.
	hostile := "https://example.com/x?q=%3Cimg%20src=x%20onerror=alert(1)%3E&a=<b>bold</b>"
	for i, u := range []string{"https://example.com/older/1", "https://example.com/older/2", hostile} {
		status, _, body := r.do(t, "POST", "/v1/links", r.key, fmt.Sprintf(`{"url":%q}`, u))
		require.Equal(t, 201, status, "link %d: %s", i, body)
	}
	// One that expires in a second, for the expired badge later.
	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/soon-gone","alias":"soon-gone","ttl_seconds":1}`)
	require.Equal(t, 201, status, string(body))

	// Create, double-clicked: one Idempotency-Key, one link.
	target := "https://example.com/console-e2e/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	p.click("#new-link")
	p.setInput("#new-url", target)
	var clicked bool
	p.eval(`(() => { const b = document.querySelector('#new-submit'); b.click(); b.click(); return true })()`, &clicked)
	p.waitText("#links-table", target)
	var code string
	require.Eventually(t, func() bool {
		var page struct{ Links []struct{ Code, URL string } }
		_, _, body := r.do(t, "GET", "/v1/links?limit=100", r.key, "")
		require.NoError(t, json.Unmarshal(body, &page))
		n := 0
		for _, l := range page.Links {
			if l.URL == target {
				n++
				code = l.Code
			}
		}
		require.LessOrEqual(t, n, 1, "a double click made %d links", n)
		return n == 1
	}, 10*time.Second, 200*time.Millisecond)
	t.Logf("created %s", code)

	// The hostile URL is shown as text; nothing in the table is markup from
	// it. The API stores it as a valid URI, "<" and ">" percent-encoded
	// (shared/link NormalizeURL), and that text is what the table shows.
	p.waitText("#links-table", "a=%3Cb%3Ebold%3C/b%3E")
	var injected int
	p.eval(`document.querySelectorAll('#links-table img, #links-table b, #links-table script').length`, &injected)
	assert.Zero(t, injected, "a stored URL became markup")
	var jsLinks int
	p.eval(`[...document.querySelectorAll('a')].filter(a => a.protocol === 'javascript:').length`, &jsLinks)
	assert.Zero(t, jsLinks)
	assert.Empty(t, p.unlabelled(), "controls without a name on the links page")
	p.screenshot(shots, "console-links.png", 1280, 800)
	p.screenshot(shots, "console-links-360.png", 360, 800)

	// The filter finds it by a piece of its URL: as typed, among the links
	// loaded; with Enter, through the API's q over all of them.
	p.setInput("#filter", target[len(target)-8:])
	p.waitText("#count", "1 of 5 loaded links")
	p.run("Enter", chromedp.Focus(chromedp.CSS("#filter")), chromedp.KeyEvent("\r"))
	p.waitText("#count", fmt.Sprintf("1 of 1 loaded links matching %q", target[len(target)-8:]))
	var rows []string
	p.eval(`[...document.querySelectorAll('#links-table tbody tr')].map(r => r.dataset.code)`, &rows)
	assert.Equal(t, []string{code}, rows)

	// Copy puts the short URL on the clipboard.
	for _, perm := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(p.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: perm}, Setting: browser.PermissionSettingGranted, Origin: r.base})
		require.NoError(t, err, perm)
	}
	p.click(fmt.Sprintf(`tr[data-code=%q] button[aria-label^="Copy"]`, code))
	p.waitText(fmt.Sprintf(`tr[data-code=%q]`, code), "Copied.")
	var clip string
	p.eval(`navigator.clipboard.readText()`, &clip)
	assert.Equal(t, r.base+"/"+code, clip)

	// Edit; meanwhile someone else changes the link: 412, input kept.
	p.click(fmt.Sprintf(`button[aria-label="Edit %s"]`, code))
	p.setInput("#edit-url", target+"/edited")
	status, _, body = r.do(t, "PATCH", "/v1/links/"+code, r.key, `{"redirect_status":307}`, "If-Match", `"1"`)
	require.Equal(t, 200, status, string(body))
	p.click("#edit-submit")
	p.waitText("#edit-error", "changed elsewhere")
	var kept2 string
	p.eval(`document.querySelector('#edit-url').value`, &kept2)
	assert.Equal(t, target+"/edited", kept2, "the user's input survives the 412")
	p.screenshot(shots, "console-412.png", 1280, 800)
	p.click("#edit-reload")
	p.waitText("#edit-error", "Reloaded version 2")
	p.click("#edit-submit")
	p.run("the form closes", chromedp.WaitNotPresent(chromedp.CSS("#edit-form")))
	var got struct {
		URL            string
		Version        int
		RedirectStatus int `json:"redirect_status"`
	}
	_, _, body = r.do(t, "GET", "/v1/links/"+code, r.key, "")
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, target+"/edited", got.URL)
	assert.Equal(t, 3, got.Version)
	assert.Equal(t, 307, got.RedirectStatus, "the change made elsewhere to a field the user left alone stays")

	// Redirect rules in the editor: a password, a limit, rules and a split
	// are saved and summed up in the row; a line that is not a rule is
	// named before anything is sent; then the password and the rules are
	// removed, and the rest stays.
	row := fmt.Sprintf(`tr[data-code=%q]`, code)
	p.click(fmt.Sprintf(`button[aria-label="Edit %s"]`, code))
	p.setInput("#edit-password", "console-secret")
	p.setInput("#edit-max-clicks", "25")
	p.setInput("#edit-rules", "country=de,AT;device=mobile;url=https://example.com/de\nlanguage=fr;url=https://example.com/fr")
	p.setInput("#edit-targets", "https://a.example.com/=70\nhttps://b.example.com/=30")
	p.screenshot(shots, "console-rules.png", 1280, 1000)
	p.click("#edit-submit")
	p.run("the form closes", chromedp.WaitNotPresent(chromedp.CSS("#edit-form")))
	p.waitText(row, "password · limit 25 · 2 rules · 2-way split")
	var rules struct {
		Protected bool
		MaxClicks int `json:"max_clicks"`
		Rules     []struct {
			URL     string
			Country []string
		}
		Targets []struct{ Weight int }
		Version int
	}
	_, _, body = r.do(t, "GET", "/v1/links/"+code, r.key, "")
	require.NoError(t, json.Unmarshal(body, &rules), string(body))
	assert.True(t, rules.Protected)
	assert.Equal(t, 25, rules.MaxClicks)
	require.Len(t, rules.Rules, 2)
	assert.Equal(t, []string{"DE", "AT"}, rules.Rules[0].Country)
	require.Len(t, rules.Targets, 2)
	assert.Equal(t, 4, rules.Version)
	assert.NotContains(t, string(body), "console-secret")

	p.click(fmt.Sprintf(`button[aria-label="Edit %s"]`, code))
	var shown string
	p.eval(`document.querySelector('#edit-rules').value`, &shown)
	assert.Equal(t, "country=DE,AT;device=mobile;url=https://example.com/de\nlanguage=fr;url=https://example.com/fr", shown, "the rules come back in the form they are typed")
	p.setInput("#edit-rules", "germany;url=https://example.com/de")
	p.click("#edit-submit")
	p.waitText("#edit-error", "Rules line 1")
	p.click("#edit-no-password")
	p.setInput("#edit-rules", "")
	p.click("#edit-submit")
	p.run("the form closes", chromedp.WaitNotPresent(chromedp.CSS("#edit-form")))
	p.waitText(row, "limit 25 · 2-way split")
	rules.Protected, rules.Rules = false, nil
	_, _, body = r.do(t, "GET", "/v1/links/"+code, r.key, "")
	require.NoError(t, json.Unmarshal(body, &rules), string(body))
	assert.False(t, rules.Protected)
	assert.Empty(t, rules.Rules)
	assert.Equal(t, 25, rules.MaxClicks)
	assert.Len(t, rules.Targets, 2)
	var rowText string
	p.eval(fmt.Sprintf(`document.querySelector(%q).textContent`, row), &rowText)
	assert.NotContains(t, rowText, "password", "a removed feature leaves the row")

	// QR preview from the API's PNG.
	p.click(fmt.Sprintf(`button[aria-label="QR code of %s"]`, code))
	p.run("QR image", chromedp.WaitVisible(chromedp.CSS("#qr-img")),
		chromedp.Poll[chromedp.Void](`document.querySelector('#qr-img').naturalWidth > 0`, chromedp.WithPollingTimeout(10*time.Second)))
	var qrWidth int
	p.eval(`document.querySelector('#qr-img').naturalWidth`, &qrWidth)
	assert.Equal(t, 256, qrWidth)
	p.click("#qr-svg")
	svg := string(p.downloaded(code + ".svg"))
	assert.Contains(t, svg, "<svg")
	p.click("#qr-png")
	assert.Equal(t, "\x89PNG", string(p.downloaded(code + ".png")[:4]))

	// Clicks through the local edge: 4 people (DE) and 2 link expanders,
	// which the click limit left on the link gives no destination and no
	// click (docs/api.md, "Links with redirect rules", Click limit).
	for i := range 6 {
		agent, country := browserAgent, "DE"
		if i >= 4 {
			agent, country = slackAgent, "US"
		}
		status, h, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", agent, "CloudFront-Viewer-Country", country,
			"Referer", "https://news.example/story")
		if agent == slackAgent {
			require.Equal(t, 200, status, "a link expander uses none of the click limit")
			require.Empty(t, h.Get("Location"))
			continue
		}
		require.Equal(t, 307, status, "the redirect status set elsewhere")
		// The split left on the link decides each click at the origin.
		require.Contains(t, []string{"https://a.example.com/", "https://b.example.com/"}, h.Get("Location"))
	}
	require.Eventually(t, func() bool {
		_, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats?granularity=hour", r.key, "")
		var s fullStats
		return json.Unmarshal(body, &s) == nil && s.Totals.Total >= 4
	}, 20*time.Second, 200*time.Millisecond, "the clicks reach the stats")

	// The analytics page shows what the stats API answers for its range.
	p.run("analytics", chromedp.Navigate(r.base+"/console/#/links/"+code+"/stats"))
	p.waitText("#total-total", "4")
	var from, to string
	p.eval(`document.querySelector('.range time:first-of-type').dateTime`, &from)
	p.eval(`document.querySelector('.range time:last-of-type').dateTime`, &to)
	_, _, body = r.do(t, "GET", "/v1/links/"+code+"/stats?granularity=hour&from="+from+"&to="+to, r.key, "")
	var api fullStats
	require.NoError(t, json.Unmarshal(body, &api), string(body))
	assert.Equal(t, strconv.FormatInt(api.Totals.Total, 10), p.text("#total-total"))
	assert.Equal(t, strconv.FormatInt(api.Totals.Human, 10), p.text("#total-human"))
	assert.Equal(t, strconv.FormatInt(api.Totals.Bot, 10), p.text("#total-bot"))
	assert.Equal(t, int64(4), api.Totals.Human)
	assert.Equal(t, int64(0), api.Totals.Bot, "the expanders' looks are no clicks")
	// The previous period: as long as the range shown, just before it.
	ft, err := time.Parse(time.RFC3339, from)
	require.NoError(t, err)
	tt, err := time.Parse(time.RFC3339, to)
	require.NoError(t, err)
	_, _, body = r.do(t, "GET", "/v1/links/"+code+"/stats?granularity=hour&from="+ft.Add(-tt.Sub(ft)).Format(time.RFC3339)+"&to="+from, r.key, "")
	var prev fullStats
	require.NoError(t, json.Unmarshal(body, &prev), string(body))
	assert.Equal(t, strconv.FormatInt(prev.Totals.Total, 10), p.text("#total-prev"))
	var countries [][]string
	p.eval(`[...document.querySelectorAll('#countries tbody tr')].map(r => [...r.cells].map(c => c.textContent))`, &countries)
	var want [][]string
	for _, c := range api.Countries {
		want = append(want, []string{c.Country, fmt.Sprint(c.Total), fmt.Sprint(c.Human), fmt.Sprint(c.Bot)})
	}
	assert.Equal(t, want, countries)
	var referrers [][]string
	p.eval(`[...document.querySelectorAll('#referrers tbody tr')].map(r => [...r.cells].map(c => c.textContent))`, &referrers)
	want = nil
	for _, h := range api.Referrers {
		want = append(want, []string{h.Host, fmt.Sprint(h.Total), fmt.Sprint(h.Human), fmt.Sprint(h.Bot)})
	}
	require.NotEmpty(t, want, "the clicks' referrer host")
	assert.Equal(t, want, referrers)
	assert.Empty(t, p.unlabelled(), "controls without a name on the analytics page")
	// Keyboard: Tab reaches the range presets, and Enter on one works.
	var focused string
	p.eval(`(() => { document.querySelector('#preset-24h').focus(); return document.activeElement.id })()`, &focused)
	assert.Equal(t, "preset-24h", focused)
	p.run("Enter on 24 h", chromedp.KeyEvent("\r"))
	p.run("24 h pressed", chromedp.Poll[chromedp.Void](`document.querySelector('#preset-24h').getAttribute('aria-pressed') === 'true'`, chromedp.WithPollingTimeout(10*time.Second)))
	p.waitText("#total-total", strconv.FormatInt(api.Totals.Total, 10))
	p.run("24 h series loaded", chromedp.Poll[chromedp.Void](`!document.querySelector('#export-stats').disabled`, chromedp.WithPollingTimeout(30*time.Second)))
	// The stats answers now come 5 s late, as over a slow network, so the
	// 24 h series is still on the page while the 7 d one loads: the export
	// must wait for the series the range names, not offer the old one.
	var slowed bool
	p.eval(`(() => { const f = window.fetch; window.fastFetch = f; window.fetch = (u, o) => f(u, o).then(r => String(u).includes('/stats') ? new Promise(ok => setTimeout(() => ok(r), 5000)) : r); return true })()`, &slowed)
	p.click("#preset-7d")
	p.run("7 d pressed", chromedp.Poll[chromedp.Void](`document.querySelector('#preset-7d').getAttribute('aria-pressed') === 'true'`, chromedp.WithPollingTimeout(10*time.Second)))
	var stale bool
	p.eval(`document.querySelector('#export-stats').disabled`, &stale)
	assert.True(t, stale, "Export CSV is offered while the 7 d series loads (it would export the 24 h one)")
	p.run("7 d series loaded", chromedp.Poll[chromedp.Void](`!document.querySelector('#export-stats').disabled`, chromedp.WithPollingTimeout(30*time.Second)))
	p.eval(`(() => { window.fetch = window.fastFetch; return true })()`, &slowed)
	p.screenshot(shots, "console-analytics.png", 1280, 1000)
	p.screenshot(shots, "console-analytics-360.png", 360, 1000)

	// The CSV export is the series the API answers, bucket by bucket.
	p.click("#export-stats")
	records, err := csv.NewReader(strings.NewReader(string(p.downloaded(code + "-hour.csv")))).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"start", "total", "human", "bot", "previous_start", "previous_total"}, records[0])
	require.Len(t, records, len(api.Series)+1)
	for i, b := range api.Series {
		assert.Equal(t, []string{b.Start, fmt.Sprint(b.Total), fmt.Sprint(b.Human), fmt.Sprint(b.Bot)}, records[i+1][:4], "bucket %d", i)
	}

	// Hide bots: humans only.
	p.click("#hide-bots")
	p.run("bots hidden", chromedp.WaitNotPresent(chromedp.CSS("#total-bot")))
	assert.Equal(t, strconv.FormatInt(api.Totals.Human, 10), p.text("#total-human"))

	// A custom range of days: the totals are the API's for the range shown.
	p.click("#hide-bots") // bots back
	p.click("#preset-custom")
	var today string
	p.eval(`(() => { const d = new Date(); const z = n => String(n).padStart(2, '0'); return d.getFullYear() + '-' + z(d.getMonth() + 1) + '-' + z(d.getDate()) })()`, &today)
	p.setInput("#custom-from", today)
	p.setInput("#custom-to", today)
	p.run("the custom range", chromedp.Poll[chromedp.Void](`document.querySelector('#granularity').value === 'day' && !!document.querySelector('#total-total')`, chromedp.WithPollingTimeout(10*time.Second)))
	var cfrom, cto string
	require.Eventually(t, func() bool {
		p.eval(`document.querySelector('.range time:first-of-type').dateTime`, &cfrom)
		return cfrom != from
	}, 10*time.Second, 100*time.Millisecond, "the page shows the custom range")
	p.eval(`document.querySelector('.range time:last-of-type').dateTime`, &cto)
	_, _, body = r.do(t, "GET", "/v1/links/"+code+"/stats?granularity=day&from="+cfrom+"&to="+cto, r.key, "")
	var custom fullStats
	require.NoError(t, json.Unmarshal(body, &custom), string(body))
	assert.Equal(t, strconv.FormatInt(custom.Totals.Total, 10), p.text("#total-total"))
	assert.Equal(t, int64(4), custom.Totals.Total, "today holds the four clicks")

	// Dates in the browser's zone, UTC on hover.
	p.run("links", chromedp.Navigate(r.base+"/console/#/links"))
	var title string
	p.run("a date", chromedp.WaitVisible(chromedp.CSS("#links-table tbody time")))
	p.eval(`document.querySelector('#links-table tbody time').title`, &title)
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z \(UTC\)$`, title)

	// Disable, then delete with confirmation.
	p.waitText(`tr[data-code="soon-gone"]`, "expired")
	p.click(fmt.Sprintf(`button[aria-label="Disable %s"]`, code))
	p.waitText(fmt.Sprintf(`tr[data-code=%q]`, code), "disabled")
	_, _, body = r.do(t, "GET", "/v1/links/"+code, r.key, "")
	assert.Contains(t, string(body), `"status":"disabled"`)
	p.click(fmt.Sprintf(`button[aria-label="Enable %s"]`, code))
	p.waitText(fmt.Sprintf(`tr[data-code=%q]`, code), "active")
	p.click(fmt.Sprintf(`button[aria-label="Delete %s"]`, code))
	p.click("#confirm-delete-" + code)
	p.waitText(fmt.Sprintf(`tr[data-code=%q]`, code), "deleted")
	status, _, _ = r.do(t, "GET", "/v1/links/"+code, r.key, "")
	assert.Equal(t, 404, status, "deleted")

	// Import a CSV of 150 rows (two batch calls): a report per row.
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	var rowsCSV strings.Builder
	rowsCSV.WriteString("url,alias,ttl_seconds,redirect_status\n")
	fmt.Fprintf(&rowsCSV, "https://example.com/import/%s/a,Imp-%s,3600,307\n", nonce, nonce)
	fmt.Fprintf(&rowsCSV, "https://example.com/import/%s/b,imp-%s,,\n", nonce, nonce) // the same alias: 409
	rowsCSV.WriteString("ftp://example.com/nope,,,\n")                                // 400
	for i := range 147 {
		fmt.Fprintf(&rowsCSV, "\"https://example.com/import/%s/%d?a=1,b\",,,\n", nonce, i)
	}
	file := filepath.Join(t.TempDir(), "links.csv")
	require.NoError(t, os.WriteFile(file, []byte(rowsCSV.String()), 0o644))
	// A slow moment of the API, as a real import meets one: the first batch
	// call's sixth row answers 503 (the call itself succeeded), and the
	// second call answers 503 whole, once. The import sends each again
	// under its Idempotency-Key and loses no row.
	var faulty bool
	p.eval(`(() => { const f = window.fetch; let calls = 0;
		window.fetch = async (u, o) => {
			if (!String(u).endsWith('/v1/links/batch')) return f(u, o);
			calls++;
			if (calls === 2) return new Response(JSON.stringify({type: '/v1/problems#unavailable', title: 'Temporarily unavailable', status: 503}), {status: 503, headers: {'content-type': 'application/problem+json', 'retry-after': '1'}});
			const r = await f(u, o);
			if (calls !== 1) return r;
			const body = await r.json();
			body.results[5] = {index: 5, status: 503, problem: {title: 'Temporarily unavailable', status: 503}};
			return new Response(JSON.stringify(body), {status: r.status, headers: r.headers});
		};
		window.restoreFetch = () => { window.fetch = f; return true };
		return true })()`, &faulty)
	p.click("#import-toggle")
	p.run("choose the file", chromedp.SetUploadFiles(chromedp.CSS("#import-file"), []string{file}))
	p.waitText("#import-summary", "150 of 150 rows sent; 148 created, 2 failed")
	p.eval(`window.restoreFetch()`, &faulty)
	var report [][]string
	p.eval(`[...document.querySelectorAll('#import-report tbody tr')].slice(0, 4).map(r => [...r.cells].map(c => c.textContent))`, &report)
	require.Len(t, report, 4)
	// The two rows of one alias: one link, one 409 (the batch's items
	// may run concurrently, so either row may win).
	assert.Equal(t, []string{"2", "3"}, []string{report[0][0], report[1][0]})
	assert.ElementsMatch(t, []string{"201", "409"}, []string{report[0][1], report[1][1]})
	assert.Equal(t, []string{"4", "400"}, report[2][:2])
	assert.Contains(t, report[2][3], "(url)")
	assert.Equal(t, "201", report[3][1])
	var progress string
	p.eval(`document.querySelector('#import-progress').value + '/' + document.querySelector('#import-progress').max`, &progress)
	assert.Equal(t, "150/150", progress)
	p.screenshot(shots, "console-import.png", 1280, -900)

	// Every link the API lists, after the import, is in the exported CSV.
	apiCodes := map[string]string{}
	for cursor := ""; ; {
		path := "/v1/links?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		var page struct {
			Links      []struct{ Code, URL string }
			NextCursor string `json:"next_cursor"`
		}
		_, _, body := r.do(t, "GET", path, r.key, "")
		require.NoError(t, json.Unmarshal(body, &page))
		for _, l := range page.Links {
			apiCodes[l.Code] = l.URL
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	imported := 0
	for _, u := range apiCodes {
		if strings.HasPrefix(u, "https://example.com/import/"+nonce+"/") {
			imported++
		}
	}
	assert.Equal(t, 148, imported, "each created row is one link")
	p.click("#export-links")
	exported, err := csv.NewReader(strings.NewReader(string(p.downloaded("links.csv")))).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"code", "short_url", "url", "alias", "status", "created_at", "expires_at", "redirect_status", "version"}, exported[0])
	csvCodes := map[string]string{}
	for _, row := range exported[1:] {
		csvCodes[row[0]] = row[2]
	}
	assert.Equal(t, apiCodes, csvCodes)

	// Sign out forgets the key.
	p.click("#signout")
	p.run("signed out", chromedp.WaitVisible(chromedp.CSS("#apikey")))
	p.eval(`sessionStorage.getItem('shortener.apiKey') || ''`, &kept)
	assert.Empty(t, kept)

	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.problems {
		assert.NotContains(t, s, r.key, "the API key in the browser's log")
	}
	// The refused sign-in's 403 is a network error the browser logs; none
	// else, and no CSP violation or exception.
	assert.Empty(t, p.problems)
}

// TestConsoleRenderFigures measures, in headless Chromium, how long the
// console takes to render the list of 1,000 links and a 90-day hourly
// chart (2,160 points), for docs/benchmarks.md. It reports the figures
// (go test -v) and asserts only what was rendered, never a time.
func TestConsoleRenderFigures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "console")
	cmd := exec.Command("node", "../../console/build.mjs", dir)
	cmd.Env = append(os.Environ(), "CONSOLE_BENCH=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("%s", strings.TrimSpace(string(out)))
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_ACCESS_LOG": "errors"})

	// 1,000 links, ten batch calls.
	for b := range 10 {
		var items []string
		for i := range 100 {
			items = append(items, fmt.Sprintf(`{"url":"https://example.com/bench/%d/%d"}`, b, i))
		}
		status, _, body := r.do(t, "POST", "/v1/links/batch", r.key, `{"links":[`+strings.Join(items, ",")+`]}`)
		require.Equal(t, 200, status, string(body))
		require.Equal(t, 100, strings.Count(string(body), `"status":201`), string(body))
	}

	p := newPage(t, r.base)
	p.run("open", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the list", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	// Load every page (Load more, 50 at a time), then filter to none.
	p.waitText("#count", "50 of 50 loaded links")
	var loaded int
	p.eval(`(async () => {
		for (let i = 0; i < 40 && document.querySelector('#more'); i++) {
			document.querySelector('#more').click();
			const n = document.querySelectorAll('#links-table tbody tr').length;
			for (let w = 0; w < 300 && document.querySelectorAll('#links-table tbody tr').length === n; w++) await new Promise(r => setTimeout(r, 50));
		}
		return document.querySelectorAll('#links-table tbody tr').length;
	})()`, &loaded)
	require.Equal(t, 1000, loaded)
	p.setInput("#filter", "no-such-link")
	p.waitText("#count", "0 of 1000 loaded links")

	const runs = 5
	measure := func(js string, check func(map[string]float64)) []float64 {
		var ms []float64
		for range runs {
			var res map[string]float64
			p.eval(js, &res)
			check(res)
			ms = append(ms, res["ms"])
		}
		slices.Sort(ms)
		return ms
	}
	// From the filter's input event, which turns 0 rows into 1,000, to
	// the first frame after them.
	list := measure(`new Promise((resolve) => {
		const e = document.querySelector('#filter');
		const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
		set.call(e, 'no-such-link'); e.dispatchEvent(new Event('input', {bubbles: true}));
		setTimeout(() => {
			const t0 = performance.now();
			set.call(e, ''); e.dispatchEvent(new Event('input', {bubbles: true}));
			requestAnimationFrame(() => setTimeout(() => resolve({ms: performance.now() - t0,
				rows: document.querySelectorAll('#links-table tbody tr').length})));
		}, 50);
	})`, func(res map[string]float64) { require.Equal(t, float64(1000), res["rows"]) })

	// The baseline, in the same page and run: 1,000 rows of six text
	// cells built with plain DOM calls, to the first frame after them.
	listBase := measure(`new Promise((resolve) => {
		const t0 = performance.now();
		const table = document.createElement('table');
		for (let i = 0; i < 1000; i++) {
			const tr = table.insertRow();
			for (let j = 0; j < 6; j++) tr.insertCell().textContent = 'cell ' + i + '.' + j;
		}
		document.body.appendChild(table);
		requestAnimationFrame(() => setTimeout(() => { table.remove(); resolve({ms: performance.now() - t0}); }));
	})`, func(map[string]float64) {})

	p.run("chart page", chromedp.Navigate(r.base+"/console/bench.html"),
		chromedp.Poll[chromedp.Void](`typeof window.benchChart === 'function'`, chromedp.WithPollingTimeout(10*time.Second)))
	chart := measure(`window.benchChart()`, func(res map[string]float64) {
		require.Equal(t, float64(2160), res["points"])
		require.GreaterOrEqual(t, res["canvases"], float64(1), "uPlot drew a canvas")
	})
	// Its baseline: the same 2,160 points stroked on a canvas of the same
	// size with plain 2D calls.
	chartBase := measure(`new Promise((resolve) => {
		const t0 = performance.now();
		const c = document.createElement('canvas');
		c.width = 1200; c.height = 260;
		document.body.appendChild(c);
		const g = c.getContext('2d');
		for (let k = 0; k < 3; k++) {
			g.beginPath();
			for (let i = 0; i < 2160; i++) g.lineTo(i * 1200 / 2160, 260 - ((i * 7919 + k * 31) % 200));
			g.stroke();
		}
		requestAnimationFrame(() => setTimeout(() => { c.remove(); resolve({ms: performance.now() - t0}); }));
	})`, func(map[string]float64) {})
	med := func(v []float64) float64 { return v[runs/2] }
	t.Logf("render, median of %d (min-max) in headless Chromium, each to the first frame after it:", runs)
	t.Logf("  1,000 links: %.0f ms (%.0f-%.0f); baseline, 1,000 plain DOM rows: %.0f ms; ratio %.1f",
		med(list), list[0], list[runs-1], med(listBase), med(list)/med(listBase))
	t.Logf("  2,160-point chart: %.0f ms (%.0f-%.0f); baseline, the points on a bare canvas: %.0f ms; ratio %.1f",
		med(chart), chart[0], chart[runs-1], med(chartBase), med(chart)/med(chartBase))
}

// TestConsoleShowsDestinations: the analytics page of a link with rules
// shows its destination breakdown as the stats API answers it.
func TestConsoleShowsDestinations(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	code := r.createLink(t, `{"url":"https://example.com/world","rules":[{"url":"https://example.de/","country":["DE"]}]}`)
	for i, c := range []string{"DE", "DE", "FR"} {
		status, _, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent, "CloudFront-Viewer-Country", c)
		require.Equal(t, 302, status, i)
	}
	var api struct {
		Totals       struct{ Total int64 }
		Destinations []struct {
			Destination       string
			Total, Human, Bot int64
		}
	}
	require.Eventually(t, func() bool {
		_, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
		return json.Unmarshal(body, &api) == nil && api.Totals.Total >= 3
	}, 20*time.Second, 200*time.Millisecond, "the clicks reach the stats")

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	p.run("analytics", chromedp.Navigate(r.base+"/console/#/links/"+code+"/stats"))
	p.waitText("#total-total", "3")
	var rows [][]string
	p.eval(`[...document.querySelectorAll('#destinations tbody tr')].map(r => [...r.cells].map(c => c.textContent))`, &rows)
	var want [][]string
	for _, d := range api.Destinations {
		want = append(want, []string{d.Destination, fmt.Sprint(d.Total), fmt.Sprint(d.Human), fmt.Sprint(d.Bot)})
	}
	assert.Equal(t, [][]string{{"rule-0", "2", "2", "0"}, {"default", "1", "1", "0"}}, want)
	assert.Equal(t, want, rows)
}

// TestConsoleCampaignBuilder: the create form's Campaign section adds the
// utm_ parameters to the destination as they are typed (encoded, the
// URL's other parameters and fragment kept, one already there replaced),
// and the link is made with exactly the URL it shows.
func TestConsoleCampaignBuilder(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))

	p.click("#new-link")
	p.setInput("#new-url", "https://example.com/spring?ref=home&utm_source=old#offer")
	var open bool
	p.eval(`document.querySelector('#new-campaign').open`, &open)
	assert.False(t, open, "the section starts collapsed")
	p.click("#new-campaign > summary")
	p.setInput("#new-utm-source", "news letter")
	p.setInput("#new-utm-medium", "email")
	p.setInput("#new-utm-campaign", "spring&sale")
	want := "https://example.com/spring?ref=home&utm_source=news%20letter&utm_medium=email&utm_campaign=spring%26sale#offer"
	p.waitText("#new-campaign-url", want)
	assert.Equal(t, want, p.text("#new-campaign-url"))
	assert.Empty(t, p.unlabelled(), "every control has a name")

	p.click("#new-submit")
	p.waitText("#links-table", want)
	var page struct{ Links []struct{ URL string } }
	_, _, body := r.do(t, "GET", "/v1/links?limit=10", r.key, "")
	require.NoError(t, json.Unmarshal(body, &page))
	var urls []string
	for _, l := range page.Links {
		urls = append(urls, l.URL)
	}
	assert.Equal(t, []string{want}, urls)

	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(t, p.problems, "no exception, console error or CSP violation")
}

// TestConsoleAliasLengths: the create form takes any alias a deployment
// may allow (1-100 characters) and leaves the length to the API, which
// answers with the deployment's own range: a one-character alias is made
// where the range is widened and refused, with the API's reason shown,
// where it is not.
func TestConsoleAliasLengths(t *testing.T) {
	dir := buildConsole(t)
	for _, tt := range []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{name: "defaults", env: map[string]string{}, wantErr: "must be 3 to 64 characters, got 1"},
		{name: "widened", env: map[string]string{"SHORTENER_ALIAS_MIN_LENGTH": "1", "SHORTENER_ALIAS_MAX_LENGTH": "100"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.env["SHORTENER_CONSOLE_DIR"] = dir
			r := startLocal(t, tt.env)
			p := newPage(t, r.base)
			p.run("open the console", chromedp.Navigate(r.base+"/console/"))
			p.setInput("#apikey", r.key)
			p.click(`button[type=submit]`)
			p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
			p.click("#new-link")
			p.setInput("#new-url", "https://example.net/first")
			p.setInput("#new-alias", "a")
			var valid bool
			p.eval(`document.querySelector('#new-alias').checkValidity()`, &valid)
			assert.True(t, valid, "the field takes a one-character alias")
			p.click("#new-submit")
			if tt.wantErr != "" {
				p.waitText("#new-error", tt.wantErr)
				return
			}
			p.waitText("#links-table", "https://example.net/first")
			status, _, _ := r.do(t, "GET", "/v1/links/a", r.key, "")
			assert.Equal(t, 200, status)

			// Its analytics show an imported click total apart.
			status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.net/zz","alias":"zz","imported_clicks":48213}`)
			require.Equal(t, 201, status, string(body))
			p.run("the analytics of zz", chromedp.Navigate(r.base+"/console/#/links/zz/stats"))
			p.waitText("#imported-clicks", "Imported: 48213 clicks")
			p.waitText("#total-total", "0")
		})
	}
}

// TestConsoleBreakdownsOverviewAndSparklines: a link's analytics show its
// devices, browsers, campaigns and visitors; the overview its top links;
// the links list a 7-day sparkline per row from one GET /v1/stats.
func TestConsoleBreakdownsOverviewAndSparklines(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	code := r.createLink(t, `{"url":"https://example.com/spring"}`)
	other := r.createLink(t, `{"url":"https://example.com/other"}`)
	for i, q := range []string{"?utm_source=newsletter&utm_medium=email&utm_campaign=spring", "", "?utm_source=newsletter"} {
		status, _, _ := r.do(t, "GET", "/"+code+q, "", "", "User-Agent", browserAgent)
		require.Equal(t, 302, status, i)
	}
	status, _, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", slackAgent)
	require.Equal(t, 302, status)
	var api struct {
		Totals   struct{ Total int64 }
		Visitors struct{ Estimate int64 }
	}
	require.Eventually(t, func() bool {
		_, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
		return json.Unmarshal(body, &api) == nil && api.Totals.Total >= 4
	}, 20*time.Second, 200*time.Millisecond, "the clicks reach the stats")
	assert.Equal(t, int64(1), api.Visitors.Estimate, "one address and one browser: one visitor; the bot none")

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	p.run("the sparklines", chromedp.WaitVisible(chromedp.CSS(`tr[data-code="`+code+`"] .spark svg`)))
	var totals map[string]string
	p.eval(`Object.fromEntries([...document.querySelectorAll('#links-table tr[data-code]')].map(r => [r.dataset.code, (r.querySelector('.spark') || {dataset: {}}).dataset.total]))`, &totals)
	assert.Equal(t, map[string]string{code: "4", other: "0"}, totals)
	var calls int
	p.eval(`performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/stats')).length`, &calls)
	assert.Equal(t, 1, calls, "one stats call for the list's sparklines")

	p.run("analytics", chromedp.Navigate(r.base+"/console/#/links/"+code+"/stats"))
	p.waitText("#total-total", "4")
	p.waitText("#visitors-estimate", "1")
	var devices, browsers, sources [][]string
	cells := `[...document.querySelectorAll('%s tbody tr')].map(r => [...r.cells].map(c => c.textContent))`
	p.eval(fmt.Sprintf(cells, "#devices"), &devices)
	p.eval(fmt.Sprintf(cells, "#browsers"), &browsers)
	p.eval(fmt.Sprintf(cells, "#campaign-sources"), &sources)
	assert.Equal(t, [][]string{{"desktop", "3", "3", "0"}, {"bot", "1", "0", "1"}}, devices)
	assert.Equal(t, [][]string{{"Safari", "3", "3", "0"}, {"other", "1", "0", "1"}}, browsers)
	assert.Equal(t, [][]string{{"newsletter", "2", "2", "0"}}, sources)

	p.click("#nav-overview")
	p.waitText("#overview-total", "4")
	assert.Contains(t, p.text("#top-links"), code)
	assert.Contains(t, p.text("#overview-devices"), "desktop")
	assert.Empty(t, p.unlabelled(), "every control has a name")

	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(t, p.problems, "no exception, console error or CSP violation")
}

// TestConsoleTags: tags are edited as chips on create and edit (typed
// with Enter or a comma, removed with their button, normalised as the API
// does), the list shows titles and tags, and the tag filter lists only
// the links carrying the tag, from the API's own tag listing; with no
// exception, console error or CSP violation.
func TestConsoleTags(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	r.createLink(t, `{"url":"https://example.com/plain"}`)
	other := r.createLink(t, `{"url":"https://example.com/other","title":"Other launch","tags":["eu"]}`)
	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	p.waitText("#links-table", "Other launch")

	// typeTag sets the tag input as setInput does, without waiting for it
	// to be visible again after a chip's re-render.
	typeTag := func(sel, v string) {
		var ok bool
		p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q);
			const set = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(e), 'value').set;
			set.call(e, %q); e.dispatchEvent(new Event('input', {bubbles: true})); return true })()`, sel, v), &ok)
	}
	chips := func(sel string) []string {
		var got []string
		p.eval(`[...document.querySelectorAll('`+sel+` .chip')].map(c => c.dataset.tag)`, &got)
		return got
	}
	// Create: three chips typed, one removed.
	p.click("#new-link")
	p.setInput("#new-url", "https://example.com/spring")
	p.setInput("#new-title", "Spring launch")
	p.setInput("#new-tag-input", " Launch ")
	p.run("Enter adds a chip", chromedp.Focus(chromedp.CSS("#new-tag-input")), chromedp.KeyEvent("\r"))
	p.setInput("#new-tag-input", "EU:de,draft")
	p.run("a comma adds the rest", chromedp.Focus(chromedp.CSS("#new-tag-input")), chromedp.KeyEvent(","))
	assert.Equal(t, []string{"launch", "eu:de", "draft"}, chips("#new-chips"))
	p.click(`#new-chips button[aria-label="Remove tag draft"]`)
	assert.Equal(t, []string{"launch", "eu:de"}, chips("#new-chips"))
	typeTag("#new-tag-input", "not ok")
	p.run("a bad tag is refused", chromedp.Focus(chromedp.CSS("#new-tag-input")), chromedp.KeyEvent("\r"))
	p.waitText("#new-tag-error", "a tag is 1-40")
	typeTag("#new-tag-input", "")
	assert.Empty(t, p.unlabelled(), "every control has a name")
	p.click("#new-submit")
	p.waitText("#links-table", "Spring launch")

	var page struct {
		Links []struct {
			Code, Title string
			Tags        []string
		}
	}
	_, _, body := r.do(t, "GET", "/v1/links?limit=10", r.key, "")
	require.NoError(t, json.Unmarshal(body, &page))
	require.NotEmpty(t, page.Links)
	spring := page.Links[0]
	assert.Equal(t, "Spring launch", spring.Title)
	assert.Equal(t, []string{"launch", "eu:de"}, spring.Tags)
	assert.Equal(t, []string{"launch", "eu:de"}, chips(`tr[data-code="`+spring.Code+`"]`), "the list shows the tags")

	// Filter: the select lists the owner's tags; picking one lists only
	// the links carrying it.
	rows := func() []string {
		var got []string
		p.eval(`[...document.querySelectorAll('#links-table tbody tr')].map(r => r.dataset.code)`, &got)
		return got
	}
	p.waitText("#tag-filter", "launch (1)")
	p.setInput("#tag-filter", "eu")
	p.waitText("#count", "tagged eu")
	require.Eventually(t, func() bool { return len(rows()) == 1 }, 5*time.Second, 50*time.Millisecond)
	assert.Equal(t, []string{other}, rows())

	// Edit: a chip removed and one added, saved with If-Match.
	p.setInput("#tag-filter", "")
	require.Eventually(t, func() bool { return len(rows()) == 3 }, 5*time.Second, 50*time.Millisecond)
	p.click(`button[aria-label="Edit ` + spring.Code + `"]`)
	assert.Equal(t, []string{"launch", "eu:de"}, chips("#edit-chips"))
	p.click(`#edit-chips button[aria-label="Remove tag eu:de"]`)
	typeTag("#edit-tag-input", "q3")
	p.run("Enter adds a chip", chromedp.Focus(chromedp.CSS("#edit-tag-input")), chromedp.KeyEvent("\r"))
	p.click("#edit-submit")
	require.Eventually(t, func() bool {
		return slices.Equal(chips(`tr[data-code="`+spring.Code+`"]`), []string{"launch", "q3"})
	}, 5*time.Second, 50*time.Millisecond)
	_, _, body = r.do(t, "GET", "/v1/tags", r.key, "")
	assert.JSONEq(t, `{"tags":[{"tag":"eu","links":1},{"tag":"launch","links":1},{"tag":"q3","links":1}]}`, string(body))

	// The overview's top tags: each tag's links' clicks of the last 7
	// days, from GET /v1/stats?tag=, most clicked first.
	status, _, _ := r.do(t, "GET", "/"+spring.Code, "", "", "User-Agent", browserAgent)
	require.Equal(t, 302, status)
	require.Eventually(t, func() bool {
		_, _, body := r.do(t, "GET", "/v1/stats?tag=q3", r.key, "")
		return strings.Contains(string(body), `"totals":{"total":1`)
	}, 20*time.Second, 200*time.Millisecond, "the click reaches the tag's stats")
	p.click("#nav-overview")
	p.run("the top tags", chromedp.WaitVisible(chromedp.CSS(`#top-tags tr[data-tag="q3"]`)))
	var top [][]string
	p.eval(`[...document.querySelectorAll('#top-tags tbody tr')].map(r => [...r.cells].map(c => c.textContent))`, &top)
	require.Len(t, top, 3)
	assert.ElementsMatch(t, [][]string{{"launch", "1", "1", "1", "0"}, {"q3", "1", "1", "1", "0"}}, top[:2], "launch and q3 carry the clicked link")
	assert.Equal(t, []string{"eu", "1", "0", "0", "0"}, top[2])

	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(t, p.problems, "no exception, console error or CSP violation")
}

// TestConsoleAuditLog: the console's Audit page lists the workspace's
// changes newest first, tells the console's own (X-Shortener-Client,
// through the local edge as through CloudFront) from the API's, filters
// by target, and shows before and after with the secrets redacted.
func TestConsoleAuditLog(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	apiCode := r.createLink(t, `{"url":"https://example.com/from-the-api","password":"correct-horse-battery"}`)

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	target := "https://example.com/from-the-console/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	p.click("#new-link")
	p.setInput("#new-url", target)
	p.click("#new-submit")
	p.waitText("#links-table", target)

	p.click("#nav-audit")
	p.run("the audit page", chromedp.WaitVisible(chromedp.CSS("#audit-table")))
	p.waitText("#audit-table", apiCode)
	var rows [][]string
	p.eval(`[...document.querySelectorAll('#audit-table tbody tr')].map(r => [r.querySelector('.source').textContent, r.querySelector('.action').textContent, r.querySelector('.target').textContent])`, &rows)
	require.Len(t, rows, 2, "%v", rows)
	assert.Equal(t, []string{"console", "create"}, rows[0][:2], "the console's create, newest first")
	assert.Equal(t, []string{"api", "create", "link " + apiCode}, rows[1])
	assert.Empty(t, p.unlabelled(), "every control has a name")

	// Filtered to the API's link; its details never show the password.
	p.setInput("#audit-target", apiCode)
	p.click(`#audit-filters button[type=submit]`)
	require.Eventually(t, func() bool {
		var n int
		p.eval(`document.querySelectorAll('#audit-table tbody tr').length`, &n)
		return n == 1
	}, 10*time.Second, 100*time.Millisecond)
	p.click("#audit-table tbody tr button")
	p.waitText("#audit-table .after", "from-the-api")
	after := p.text("#audit-table .after")
	assert.Contains(t, after, `"password": "[redacted]"`)
	assert.NotContains(t, after, "correct-horse")
	assert.NotContains(t, after, "argon2")
	p.screenshot(screenshotDir(t), "console-audit.png", 1280, 700)

	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(t, p.problems, "no exception, console error or CSP violation")
}
