package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkcounter"
)

// The redirect rules' promises against a client that chooses its method,
// its User-Agent and its address: a click limit reveals the destination
// only with a click, and one viewer's wrong passwords lock out no other.

const (
	googleAgent = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	curlAgent   = "curl/8.5.0"
)

// probe is one request a client may send a link: a method and a
// User-Agent.
type probe struct{ method, agent string }

func (p probe) String() string {
	name := map[string]string{browserAgent: "browser", googleAgent: "bot", slackAgent: "previewer", curlAgent: "curl"}[p.agent]
	return p.method + " " + name
}

// reveals reports whether an answer tells where the link goes: a Location,
// or the destination anywhere in the body or another header.
func reveals(h http.Header, body []byte, dest string) bool {
	if h.Get("Location") != "" || strings.Contains(string(body), dest) {
		return true
	}
	for _, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, dest) {
				return true
			}
		}
	}
	return false
}

// TestClickLimitOfOneRevealsOnceThroughTheLocalRun: a link with
// max_clicks 1 is asked for by every method (GET, HEAD) and User-Agent
// (browser, bot, previewer, curl), in several orders; whatever the order,
// the destination is revealed at most once, to the browser's GET, and
// every answer that reveals nothing is no-store.
func TestClickLimitOfOneRevealsOnceThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	var all []probe
	for _, m := range []string{"GET", "HEAD"} {
		for _, a := range []string{browserAgent, googleAgent, slackAgent, curlAgent} {
			all = append(all, probe{m, a})
		}
	}
	browserGET := probe{"GET", browserAgent}
	orders := map[string][]probe{
		"browser last":  append(without(all, browserGET), browserGET),
		"browser first": all,
		"browser in the middle, twice": append(append(append([]probe{}, all[4:]...), browserGET),
			append(without(all[:4], browserGET), browserGET)...),
	}
	for name, order := range orders {
		t.Run(name, func(t *testing.T) {
			dest := "https://example.com/only-once-" + strings.ReplaceAll(name, " ", "-")
			code := r.createLink(t, fmt.Sprintf(`{"url":%q,"max_clicks":1}`, dest))
			var revealedTo []string
			for _, p := range order {
				status, h, body := r.do(t, p.method, "/"+code, "", "", "User-Agent", p.agent)
				if reveals(h, body, dest) {
					revealedTo = append(revealedTo, fmt.Sprintf("%s (%d)", p, status))
					continue
				}
				assert.Equal(t, "no-store", h.Get("Cache-Control"), "%s: %d", p, status)
				assert.Contains(t, []int{200, 410}, status, p.String())
			}
			assert.Equal(t, []string{"GET browser (302)"}, revealedTo,
				"max_clicks 1: the destination was revealed %d times", len(revealedTo))
		})
	}
}

// TestClickLimitUnderAMixedBurstThroughTheLocalRun: 80 requests at once
// on a max_clicks 5 link, 20 each of a browser's GET, a browser's HEAD, a
// bot's GET and curl's GET, reveal the destination exactly 5 times, each
// to a browser's GET.
func TestClickLimitUnderAMixedBurstThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	const dest = "https://example.com/limited-burst"
	code := r.createLink(t, fmt.Sprintf(`{"url":%q,"max_clicks":5}`, dest))
	var mu sync.Mutex
	revealed := map[string]int{}
	answers := map[string]int{}
	var wg sync.WaitGroup
	for range 20 {
		for _, p := range []probe{{"GET", browserAgent}, {"HEAD", browserAgent}, {"GET", googleAgent}, {"GET", curlAgent}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, h, body := r.do(t, p.method, "/"+code, "", "", "User-Agent", p.agent)
				mu.Lock()
				defer mu.Unlock()
				answers[fmt.Sprintf("%s %d", p, status)]++
				if reveals(h, body, dest) {
					revealed[p.String()]++
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("80 requests at once on max_clicks 5: %v", answers)
	assert.Equal(t, map[string]int{"GET browser": 5}, revealed)
}

func without(ps []probe, drop probe) []probe {
	var out []probe
	for _, p := range ps {
		if p != drop {
			out = append(out, p)
		}
	}
	return out
}

// postPasswordFrom posts pw to code's unlock path from client (viewerAt:
// another viewer address).
func (r *localRun) postPasswordFrom(t *testing.T, client *http.Client, code, pw string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", r.base+"/unlock/"+code, strings.NewReader(url.Values{"password": {pw}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", browserAgent)
	resp, err := client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, resp.Header
}

// TestOneViewerCannotLockOutAnotherThroughTheLocalRun: a viewer at
// 127.0.0.2 guesses wrong until it is refused (and keeps going), and a
// viewer at 127.0.0.3 then unlocks the link with the right password.
func TestOneViewerCannotLockOutAnotherThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/owner-gets-in","password":"correct horse"}`)
	attacker, owner := viewerAt("127.0.0.2"), viewerAt("127.0.0.3")

	var got []int
	for i := range 30 {
		status, _ := r.postPasswordFrom(t, attacker, code, fmt.Sprintf("guess %d", i))
		got = append(got, status)
	}
	t.Logf("30 wrong guesses from 127.0.0.2: %v", got)
	assert.Equal(t, 403, got[0], "a wrong guess is checked: %v", got)
	assert.Equal(t, 429, got[len(got)-1], "the attacker runs out of attempts: %v", got)

	status, h := r.postPasswordFrom(t, owner, code, "correct horse")
	require.Equal(t, 303, status, "another viewer unlocks the link after 30 wrong guesses from 127.0.0.2 (%v)", got)
	assert.Equal(t, "https://example.com/owner-gets-in", h.Get("Location"))

	status, _ = r.postPasswordFrom(t, attacker, code, "correct horse")
	assert.Equal(t, 429, status, "the attacker's own budget is spent, even for the right password")
}

// TestGuessesFromManyViewersReachTheCodeCapThroughTheLocalRun: a burst of
// guesses spread over viewers that each stay within their own budget (4 of
// 5) is still checked no more than the code's cap, however the guesses
// race; then the code refuses every viewer, a new one too, until its
// window ends.
func TestGuessesFromManyViewersReachTheCodeCapThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/many-guessers","password":"correct horse"}`)
	per := linkcounter.ViewerLimit.Max - 1
	viewers := linkcounter.CodeLimit.Max/per + 2
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for v := range viewers {
		client := viewerAt(fmt.Sprintf("127.0.0.%d", 10+v))
		for i := range per {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, _ := r.postPasswordFrom(t, client, code, fmt.Sprintf("guess %d-%d", v, i))
				mu.Lock()
				got[status]++
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	t.Logf("%d viewers x %d guesses at once: %v", viewers, per, got)
	assert.Equal(t, map[int]int{403: linkcounter.CodeLimit.Max, 429: viewers*per - linkcounter.CodeLimit.Max}, got,
		"exactly the code's cap checked")

	status, h := r.postPasswordFrom(t, viewerAt("127.0.0.3"), code, "correct horse")
	assert.Equal(t, 429, status, "the code is locked for every viewer until its window ends")
	require.NotEmpty(t, h.Get("Retry-After"))
	assert.Regexp(t, `^([1-9]|[1-5][0-9]|60)$`, h.Get("Retry-After"), "at most the code's window, 60 s")
}
