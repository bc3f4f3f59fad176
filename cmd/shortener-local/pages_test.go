package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// The service's HTML pages in headless Chromium, through the local edge
// with the response headers the description gives the distribution
// (shared/edgespec): what a browser does with the headers CloudFront
// will send.

// destination is a site a short link sends visitors to: a local httptest
// server that keeps the requests it gets. It listens on 127.0.0.2, another
// host than the local run's 127.0.0.1, which a link may not point at (it
// would loop).
type destination struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func newDestination(t *testing.T) *destination {
	d := &destination{}
	d.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.seen = append(d.seen, r.Clone(r.Context()))
		d.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Arrived</title><h1 id="arrived">You have arrived</h1>`)
	}))
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	require.NoError(t, err, "a listener on another loopback address")
	d.Listener.Close()
	d.Listener = ln
	d.Start()
	t.Cleanup(d.Close)
	return d
}

func (d *destination) requests() []*http.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*http.Request(nil), d.seen...)
}

// TestPasswordFormInABrowser: a visitor types the password into the
// form, sends it, and lands on the destination; the form names neither
// the destination nor where it will go before the password.
func TestPasswordFormInABrowser(t *testing.T) {
	dest := newDestination(t)
	r := startLocal(t, map[string]string{"SHORTENER_ACCESS_LOG": "on"})
	target := dest.URL + "/behind-the-door"
	code := r.createLink(t, fmt.Sprintf(`{"url":%q,"password":"open sesame 1"}`, target))

	// The form's own headers survive the edge: its CSP (form-action open
	// to the 303 that follows the POST) and its Referrer-Policy.
	status, h, body := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent)
	require.Equal(t, 200, status)
	assert.NotContains(t, string(body), "behind-the-door")
	assert.NotContains(t, h.Get("Content-Security-Policy"), dest.URL, "the CSP names no destination before the password")
	assert.NotContains(t, h.Get("Content-Security-Policy"), "form-action 'none'")
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
	assert.Equal(t, "DENY", h.Get("X-Frame-Options"), "the other security headers stay")
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.NotEmpty(t, h.Get("Strict-Transport-Security"))

	p := newPage(t, r.base)
	p.run("open the form", chromedp.Navigate(r.base+"/"+code))
	assert.Equal(t, "This link is protected", p.text("h1"))
	p.setInput(`input[name=password]`, "open sesame 1")
	p.click(`button[type=submit]`)
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	_, err := chromedp.Run(ctx, chromedp.WaitVisible(chromedp.CSS("#arrived")))
	cancel()
	var href string
	p.eval(`location.href`, &href)
	require.NoError(t, err, "the browser did not reach the destination: it is at %s; POSTs to /unlock/%s: %d; the browser's problems: %v",
		href, code, r.originRequests(t, "/unlock/"+code), p.problems)
	assert.Equal(t, target, href)

	var got []*http.Request
	for _, req := range dest.requests() {
		if req.URL.Path == "/behind-the-door" { // not the favicon
			got = append(got, req)
		}
	}
	require.Len(t, got, 1)
	assert.Equal(t, http.MethodGet, got[0].Method, "the 303 turns the POST into a GET")
	assert.Empty(t, got[0].Header.Get("Referer"), "the form's no-referrer keeps the short link from the destination")
	assert.Equal(t, 1, r.originRequests(t, "/unlock/"+code), "one POST, the password's")
	assert.Empty(t, p.problems, "no CSP violation or script error")
}

// TestGonePagesInABrowser: an expired link's 410 page and a used-up
// link's click-limit page render under the edge's strict CSP with no
// violation.
func TestGonePagesInABrowser(t *testing.T) {
	dest := newDestination(t)
	r := startLocal(t, nil)
	expired := r.createLink(t, fmt.Sprintf(`{"url":%q,"ttl_seconds":1}`, dest.URL+"/soon-gone"))
	limited := r.createLink(t, fmt.Sprintf(`{"url":%q,"max_clicks":1}`, dest.URL+"/once"))
	status, _, _ := r.do(t, "GET", "/"+limited, "", "", "User-Agent", browserAgent)
	require.Equal(t, 302, status, "the one click")
	require.Eventually(t, func() bool {
		status, _, _ := r.do(t, "GET", "/"+expired, "", "", "User-Agent", browserAgent)
		return status == http.StatusGone
	}, 30*time.Second, 250*time.Millisecond, "the link expires")

	tests := []struct {
		name, code, heading string
	}{
		{"expired", expired, "This link has expired"},
		{"click limit", limited, "Click limit reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, _ := r.do(t, "GET", "/"+tt.code, "", "", "User-Agent", browserAgent)
			require.Equal(t, http.StatusGone, status)
			assert.Equal(t, edgespec.StrictCSP, h.Get("Content-Security-Policy"), "the edge's default for answers without their own")
			assert.Equal(t, "DENY", h.Get("X-Frame-Options"))

			p := newPage(t, r.base)
			p.run("open "+tt.name, chromedp.Navigate(r.base+"/"+tt.code))
			assert.Equal(t, tt.heading, p.text("h1"))
			assert.Empty(t, p.problems, "no CSP violation or script error")
		})
	}
	assert.Len(t, dest.requests(), 0, "the browser never reached a destination")
}

// TestConsoleHeadersInABrowser: the console's pages through the edge with
// the console's own response headers policy, loaded by Chromium without a
// CSP violation (its script and style from 'self' only).
func TestConsoleHeadersInABrowser(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir})
	html := edgespec.ConsoleHTMLHeaders()
	for _, path := range []string{"/console/", "/console/index.html"} {
		status, h, _ := r.do(t, "GET", path, "", "")
		require.Equal(t, 200, status, path)
		for _, want := range html.Headers() {
			assert.Equal(t, want.Value, h.Get(want.Name), "%s %s", path, want.Name)
		}
	}
	status, h, _ := r.do(t, "GET", "/console", "", "")
	require.Equal(t, http.StatusMovedPermanently, status, "the rewrite function's answer")
	assert.Equal(t, console.PathPrefix, h.Get("Location"))

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console"))
	p.run("the sign-in form", chromedp.WaitVisible(chromedp.CSS("#apikey")))
	var href string
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+console.PathPrefix, href)
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	assert.Empty(t, p.problems, "no CSP violation or script error")
}
