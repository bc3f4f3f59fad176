package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/console"
)

// signedIn is the console's session in sessionStorage (auth.js).
type signedIn struct {
	Access, Refresh, User string
	Expires               int64
}

func (p *page) session() *signedIn {
	p.t.Helper()
	var raw string
	p.eval(`sessionStorage.getItem('shortener.session') || ''`, &raw)
	if raw == "" {
		return nil
	}
	var s signedIn
	require.NoError(p.t, json.Unmarshal([]byte(raw), &s))
	return &s
}

func (p *page) noProblems() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	assert.Empty(p.t, p.problems, "no exception, console error or CSP violation")
}

// TestConsoleSignInWithTheUserPool: the console signs in through the
// local provider (Cognito's stand-in) with the code grant and PKCE: the
// login page as alice, back on /console/ with neither code nor state in
// the address bar, a link made with her access token (so hers, not the
// API key owner's), a reload that keeps the session, the token refreshed
// when the API refuses it and when it is about to expire, and a sign-out
// through the provider's logout endpoint back to the signed-out page.
func TestConsoleSignInWithTheUserPool(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})

	// What the console learns: sign-in on, the local provider's endpoints.
	status, h, body := r.do(t, "GET", "/console/config.json", "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, console.HTMLCacheControl, h.Get("Cache-Control"))
	assert.Equal(t, console.ContentSecurityPolicy, h.Get("Content-Security-Policy"), "the provider is on the console's origin: 'self' covers it")
	var cfg console.Config
	require.NoError(t, json.Unmarshal(body, &cfg))
	require.NotNil(t, cfg.Auth)
	iss := r.base + oidcPath
	assert.Equal(t, *console.HostedAuth(iss, iss, localClientID, r.base+"/console/"), *cfg.Auth)

	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.run("the sign-in page", chromedp.WaitVisible(chromedp.CSS("#signin-idp")))
	p.screenshot(screenshotDir(t), "console-signin-idp.png", 1280, 700)
	assert.Empty(t, p.unlabelled(), "every control has a name")
	p.click("#signin-idp")
	p.run("the login page", chromedp.WaitVisible(chromedp.CSS("#username")))
	var at string
	p.eval(`location.pathname + '|' + new URLSearchParams(location.search).get('code_challenge_method') + '|' + new URLSearchParams(location.search).get('code_challenge').length`, &at)
	assert.Equal(t, oidcPath+"/oauth2/authorize|S256|43", at)
	var pending struct{ Verifier, State string }
	var raw string
	p.eval(`sessionStorage.getItem('shortener.signin')`, &raw)
	require.NoError(t, json.Unmarshal([]byte(raw), &pending))
	assert.GreaterOrEqual(t, len(pending.Verifier), 43)
	assert.LessOrEqual(t, len(pending.Verifier), 128)
	assert.NotEmpty(t, pending.State)
	p.setInput("#username", "alice")
	p.click(`button[type=submit]`)

	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	var href string
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+"/console/", href, "no code or state left in the address bar")
	s := p.session()
	require.NotNil(t, s, "signed in")
	assert.Equal(t, "alice@example.com", s.User)
	assert.NotEmpty(t, s.Refresh)
	assert.Equal(t, "alice@example.com", p.text("#signed-in-as"))
	p.screenshot(screenshotDir(t), "console-signed-in.png", 1280, -400)
	var left string
	p.eval(`(sessionStorage.getItem('shortener.signin') || '') + (sessionStorage.getItem('shortener.apiKey') || '')`, &left)
	assert.Empty(t, left, "the verifier is gone once used; no API key")

	// A link made in the console is alice's: her token lists it, the
	// API key's owner does not see it.
	p.click("#new-link")
	p.setInput("#new-url", "https://example.com/alice")
	p.click("#new-submit")
	p.waitText("#links-table", "https://example.com/alice")
	status, _, body = r.do(t, "GET", "/v1/links?limit=10", "", "", "Authorization", "Bearer "+s.Access)
	require.Equal(t, 200, status, string(body))
	assert.Contains(t, string(body), "https://example.com/alice")
	status, _, body = r.do(t, "GET", "/v1/links?limit=10", r.key, "")
	require.Equal(t, 200, status)
	assert.NotContains(t, string(body), "https://example.com/alice", "the key's owner is someone else")

	// A reload keeps the session (sessionStorage).
	p.run("reload", chromedp.Reload())
	p.waitText("#links-table", "https://example.com/alice")

	// A token the API refuses is refreshed once, and the call made again.
	p.eval(`(() => { const s = JSON.parse(sessionStorage.getItem('shortener.session')); s.access = 'eyJ.e30.sig'; sessionStorage.setItem('shortener.session', JSON.stringify(s)); return true })()`, new(bool))
	p.run("reload", chromedp.Reload())
	p.waitText("#links-table", "https://example.com/alice")
	refreshed := p.session()
	require.NotNil(t, refreshed)
	assert.NotEqual(t, "eyJ.e30.sig", refreshed.Access, "refreshed after the 401")
	assert.Equal(t, s.Refresh, refreshed.Refresh, "the refresh token is kept")
	// One about to expire is refreshed before it is sent.
	p.eval(`(() => { const s = JSON.parse(sessionStorage.getItem('shortener.session')); s.access = 'eyJ.e30.sig'; s.expires = Date.now() + 1000; sessionStorage.setItem('shortener.session', JSON.stringify(s)); return true })()`, new(bool))
	p.run("reload", chromedp.Reload())
	p.waitText("#links-table", "https://example.com/alice")
	again := p.session()
	require.NotNil(t, again)
	assert.NotEqual(t, "eyJ.e30.sig", again.Access)
	assert.Greater(t, again.Expires, refreshed.Expires-1000)

	// Sign-out ends the session and goes through the provider's logout.
	p.click("#signout")
	p.run("signed out", chromedp.WaitVisible(chromedp.CSS("#signin-idp")))
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+"/console/", href)
	assert.Nil(t, p.session(), "no tokens kept")
	assert.Contains(t, r.stderr.String(), `"path":"`+oidcPath+`/logout"`, "through the provider's logout endpoint")
	assert.Contains(t, r.stderr.String(), `"path":"`+oidcPath+`/oauth2/token"`, "the code and refreshes went to the token endpoint")
	p.noProblems()
}

// TestConsoleSignInFailures: a return whose state is not the one this
// tab sent is refused with a clear message, its code never exchanged and
// nothing stored; a token endpoint that refuses the code shows its reason;
// a provider's error comes back as a message; none leaves the code in the
// address bar.
func TestConsoleSignInFailures(t *testing.T) {
	dir := buildConsole(t)
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s"})
	p := newPage(t, r.base)

	// A real code, but the tab's state changed while on the login page
	// (as a forged answer would carry someone else's).
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.click("#signin-idp")
	p.run("the login page", chromedp.WaitVisible(chromedp.CSS("#username")))
	p.eval(`(() => { const s = JSON.parse(sessionStorage.getItem('shortener.signin')); s.state = 'another'; sessionStorage.setItem('shortener.signin', JSON.stringify(s)); return true })()`, new(bool))
	p.setInput("#username", "mallory")
	p.click(`button[type=submit]`)
	p.run("back on the console", chromedp.WaitVisible(chromedp.CSS("#signin-error")))
	p.waitText("#signin-error", "does not match a sign-in started in this tab")
	var href string
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+"/console/", href, "code and state taken out of the URL")
	assert.Nil(t, p.session(), "no token stored")
	assert.NotContains(t, r.stderr.String(), `"path":"`+oidcPath+`/oauth2/token"`, "the code was never exchanged")

	// The token endpoint refuses a code it does not know.
	p.eval(`(() => { sessionStorage.setItem('shortener.signin', JSON.stringify({verifier: 'v'.repeat(43), state: 's1'})); return true })()`, new(bool))
	p.run("a return with a bad code", chromedp.Navigate(r.base+"/console/?code=not-a-code&state=s1"))
	p.waitText("#signin-error", "The sign-in service refused the sign-in (invalid_grant")
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+"/console/", href)
	assert.Nil(t, p.session())

	// The provider answers with an error instead of a code.
	p.run("a return with an error", chromedp.Navigate(r.base+"/console/?error=access_denied&error_description=not+allowed&state=s2"))
	p.waitText("#signin-error", "The sign-in was refused (access_denied: not allowed)")
	p.eval(`location.href`, &href)
	assert.Equal(t, r.base+"/console/", href)
	assert.Nil(t, p.session())
	assert.False(t, strings.Contains(p.text("main"), "not-a-code"))

	// The API key still signs in beside it.
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	p.noProblems()
}
