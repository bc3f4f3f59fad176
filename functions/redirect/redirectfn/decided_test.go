package redirectfn

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
)

// fakeVerify stands in for shared/password: the "hash" is "plain:" and
// the password.
func fakeVerify(encoded, pw string) (bool, error) { return encoded == "plain:"+pw, nil }

func newDecidedFixture(t *testing.T) (*fixture, *linkcounter.Memory) {
	f := newFixture(t)
	c := linkcounter.NewMemory()
	f.h.Counters, f.h.Verify = c, fakeVerify
	return f, c
}

// request builds a request of code with method, headers as pairs, and a
// body.
func request(t *testing.T, method, code, body string, headers ...string) events.APIGatewayProxyRequest {
	ev := event(t, "redirect-get.json", code)
	ev.HTTPMethod = method
	ev.Body = body
	for i := 0; i+1 < len(headers); i += 2 {
		ev.Headers[headers[i]] = headers[i+1]
		ev.MultiValueHeaders[headers[i]] = []string{headers[i+1]}
	}
	return ev
}

func (f *fixture) do(t *testing.T, ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
	t.Helper()
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	return resp
}

func post(t *testing.T, code, pw string) events.APIGatewayProxyRequest {
	return request(t, "POST", code, url.Values{"password": {pw}}.Encode(), "content-type", "application/x-www-form-urlencoded")
}

func destination(resp events.APIGatewayProxyResponse) string {
	_, d, _ := strings.Cut(resp.Headers["Content-Type"], DestinationParam+"=")
	return d
}

func TestPasswordLink(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "secret1", URL: "https://example.com/hidden-target", Features: link.Features{PasswordHash: "plain:open sesame"}})

	for _, method := range []string{"GET", "HEAD"} {
		resp := f.do(t, request(t, method, "secret1", ""))
		assert.Equal(t, 200, resp.StatusCode, method)
		assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
		assert.NotContains(t, resp.Body, "hidden-target", "the form never shows the target")
		assert.Empty(t, resp.Headers["Location"])
		assert.Empty(t, destination(resp), "a form is no click")
	}
	form := f.do(t, request(t, "GET", "secret1", "")).Body
	assert.Contains(t, form, `name="password"`)
	assert.Contains(t, form, `<form method="post" action="/unlock/secret1">`, "posts to the unlock path (link.UnlockPath)")

	resp := f.do(t, post(t, "secret1", "wrong guess"))
	assert.Equal(t, 403, resp.StatusCode)
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	assert.Contains(t, resp.Body, `name="password"`, "the form again")
	assert.NotContains(t, resp.Body, "hidden-target")

	resp = f.do(t, post(t, "secret1", "open sesame"))
	assert.Equal(t, 303, resp.StatusCode)
	assert.Equal(t, "https://example.com/hidden-target", resp.Headers["Location"])
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	assert.Equal(t, "default", destination(resp))

	b64 := post(t, "secret1", "open sesame")
	b64.Body, b64.IsBase64Encoded = base64.StdEncoding.EncodeToString([]byte(b64.Body)), true
	assert.Equal(t, 303, f.do(t, b64).StatusCode, "a base64 body, as API Gateway may send it")

	for _, bad := range []events.APIGatewayProxyRequest{
		request(t, "POST", "secret1", "password=open+sesame", "content-type", "text/plain"),
		request(t, "POST", "secret1", "", "content-type", "application/x-www-form-urlencoded"),
		request(t, "POST", "secret1", "password=%zz", "content-type", "application/x-www-form-urlencoded"),
	} {
		assert.Equal(t, 403, f.do(t, bad).StatusCode)
	}
}

// postFrom is post from the viewer at address (CloudFront-Viewer-Address).
func postFrom(t *testing.T, code, pw, address string) events.APIGatewayProxyRequest {
	return request(t, "POST", code, url.Values{"password": {pw}}.Encode(),
		"content-type", "application/x-www-form-urlencoded", "CloudFront-Viewer-Address", address)
}

// TestPasswordAttemptsLimited: a viewer's wrong tries past
// ViewerLimit.Max are 429 with Retry-After until its window ends, the
// right password included; right passwords do not use the allowance up;
// and the viewer's refusals cost no one else anything.
func TestPasswordAttemptsLimited(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "secret2", Features: link.Features{PasswordHash: "plain:right-one"}})
	const guesser, other = "198.51.100.7:40001", "203.0.113.9:50002"
	for range 2 * linkcounter.ViewerLimit.Max {
		require.Equal(t, 303, f.do(t, postFrom(t, "secret2", "right-one", guesser)).StatusCode)
	}
	for i := range linkcounter.ViewerLimit.Max {
		require.Equal(t, 403, f.do(t, postFrom(t, "secret2", "guess", guesser)).StatusCode, "try %d", i+1)
		f.clock.Add(time.Second)
	}
	resp := f.do(t, postFrom(t, "secret2", "guess", "198.51.100.7:40999"))
	assert.Equal(t, 429, resp.StatusCode, "the viewer is its address, whatever its port")
	assert.Equal(t, strconv.Itoa(int((linkcounter.ViewerLimit.Window-5*time.Second)/time.Second)), resp.Headers["Retry-After"])
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	assert.Contains(t, resp.Body, `name="password"`, "the form again")
	assert.Contains(t, resp.Body, "Try again in 15 minutes.")
	assert.Equal(t, 429, f.do(t, postFrom(t, "secret2", "right-one", guesser)).StatusCode, "no guess is checked while limited")
	assert.Equal(t, 303, f.do(t, postFrom(t, "secret2", "right-one", other)).StatusCode, "another viewer gets in")
	f.clock.Add(linkcounter.ViewerLimit.Window - 5*time.Second)
	assert.Equal(t, 303, f.do(t, postFrom(t, "secret2", "right-one", guesser)).StatusCode, "a new window")
}

// TestPasswordCodeLimit: guesses spread over many viewers, each within its
// own budget, reach the code's cap: then every viewer is refused until the
// code's window ends, and a refused attempt costs a viewer nothing of its
// own budget.
func TestPasswordCodeLimit(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "secret4", Features: link.Features{PasswordHash: "plain:right-one"}})
	per := linkcounter.ViewerLimit.Max - 1 // each viewer within its budget
	viewers := linkcounter.CodeLimit.Max/per + 1
	var got []int
	for v := range viewers {
		for range per {
			got = append(got, f.do(t, postFrom(t, "secret4", "guess", fmt.Sprintf("192.0.2.%d:1234", v+1))).StatusCode)
		}
	}
	assert.Equal(t, linkcounter.CodeLimit.Max, countOf(got, 403), "checked: %v", got)
	assert.Equal(t, viewers*per-linkcounter.CodeLimit.Max, countOf(got, 429), "refused once the code's cap is reached: %v", got)

	const owner = "[2001:db8:1:2::9]:443"
	for range linkcounter.ViewerLimit.Max + 1 {
		resp := f.do(t, postFrom(t, "secret4", "right-one", owner))
		require.Equal(t, 429, resp.StatusCode, "even the right password, while the code is locked")
		assert.Equal(t, "60", resp.Headers["Retry-After"])
		assert.Contains(t, resp.Body, "Try again in a minute.")
	}
	f.clock.Add(linkcounter.CodeLimit.Window)
	assert.Equal(t, 303, f.do(t, postFrom(t, "secret4", "right-one", owner)).StatusCode,
		"the code's refusals did not spend the owner's own budget")
}

func countOf(got []int, status int) int {
	n := 0
	for _, g := range got {
		if g == status {
			n++
		}
	}
	return n
}

func TestPasswordWithoutCountersIsUnavailable(t *testing.T) {
	f := newFixture(t)
	f.put(t, link.Link{Code: "secret3", Features: link.Features{PasswordHash: "plain:whatever1"}})
	assert.Equal(t, 503, f.do(t, post(t, "secret3", "whatever1")).StatusCode, "fail closed, never unchecked")
}

// TestClickLimit: five human clicks redirect, the sixth is 410; bots,
// previewers and HEAD never use one up, get no destination (200 while one
// is left), and get 410 once none is left.
func TestClickLimit(t *testing.T) {
	f, _ := newDecidedFixture(t)
	l := f.put(t, link.Link{Code: "limit05", Features: link.Features{MaxClicks: 5}})
	for range 3 {
		for _, ev := range []events.APIGatewayProxyRequest{
			request(t, "HEAD", "limit05", ""),
			request(t, "GET", "limit05", "", "User-Agent", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"),
		} {
			resp := f.do(t, ev)
			assert.Equal(t, 200, resp.StatusCode, ev.HTTPMethod)
			assertNoDestination(t, resp, l.URL)
		}
	}
	var got []int
	for range 8 {
		resp := f.do(t, request(t, "GET", "limit05", ""))
		got = append(got, resp.StatusCode)
		assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	}
	assert.Equal(t, []int{302, 302, 302, 302, 302, 410, 410, 410}, got)
	resp := f.do(t, request(t, "GET", "limit05", ""))
	assert.Contains(t, resp.Body, "Click limit reached")
	assert.Equal(t, 410, f.do(t, request(t, "HEAD", "limit05", "")).StatusCode, "and for bots too")
}

// assertNoDestination: resp tells nothing of where the link goes (no
// Location, no destination label, the URL in no header and not in the
// body) and no cache may keep it.
func assertNoDestination(t *testing.T, resp events.APIGatewayProxyResponse, dest string) {
	t.Helper()
	assert.Empty(t, resp.Headers["Location"])
	assert.Empty(t, destination(resp))
	assert.NotContains(t, resp.Body, dest)
	for k, v := range resp.Headers {
		assert.NotContains(t, v, dest, k)
	}
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
}

// TestClickLimitOfOneWhateverTheClientSends: a link with max_clicks 1,
// asked for by every method and User-Agent in every rotation of their
// order, reveals its destination exactly once, to the first human GET.
func TestClickLimitOfOneWhateverTheClientSends(t *testing.T) {
	agents := []string{
		"Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"facebookexternalhit/1.1",
		"curl/8.5.0",
		"",
	}
	type probe struct{ method, agent string }
	var probes []probe
	for _, m := range []string{"GET", "HEAD"} {
		for _, a := range agents {
			probes = append(probes, probe{m, a})
		}
	}
	for shift := range probes {
		order := append(slices.Clone(probes[shift:]), probes[:shift]...)
		t.Run(fmt.Sprintf("from %d", shift), func(t *testing.T) {
			f, c := newDecidedFixture(t)
			l := f.put(t, link.Link{Code: "once001", URL: "https://example.com/only-once", Features: link.Features{MaxClicks: 1}})
			var revealed []probe
			for _, p := range order {
				resp := f.do(t, request(t, p.method, "once001", "", "User-Agent", p.agent))
				if resp.Headers["Location"] != "" {
					revealed = append(revealed, p)
					assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
					continue
				}
				assertNoDestination(t, resp, l.URL)
			}
			assert.Equal(t, []probe{{"GET", agents[0]}}, revealed)
			used, err := c.ClicksUsed(context.Background(), linkcounter.ClickKey(l.Code, l.CreatedAt))
			require.NoError(t, err)
			assert.Equal(t, int64(1), used, "one click used, by the one redirect")
		})
	}
}

// TestPasswordAndClickLimit: a right password is a click like a GET: a
// browser's uses one and gets the destination, a bot's or curl's gets
// neither, and past the limit the right password is 410.
func TestPasswordAndClickLimit(t *testing.T) {
	f, c := newDecidedFixture(t)
	l := f.put(t, link.Link{Code: "pwonce1", URL: "https://example.com/once-behind-a-door",
		Features: link.Features{PasswordHash: "plain:right-one", MaxClicks: 1}})
	for _, agent := range []string{"curl/8.5.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"} {
		ev := postFrom(t, "pwonce1", "right-one", "192.0.2.1:1")
		ev.Headers["User-Agent"], ev.MultiValueHeaders["User-Agent"] = agent, []string{agent}
		resp := f.do(t, ev)
		assert.Equal(t, 200, resp.StatusCode, agent)
		assertNoDestination(t, resp, l.URL)
	}
	resp := f.do(t, postFrom(t, "pwonce1", "right-one", "192.0.2.1:1"))
	assert.Equal(t, 303, resp.StatusCode)
	assert.Equal(t, l.URL, resp.Headers["Location"])
	resp = f.do(t, postFrom(t, "pwonce1", "right-one", "192.0.2.1:1"))
	assert.Equal(t, 410, resp.StatusCode)
	assertNoDestination(t, resp, l.URL)
	used, err := c.ClicksUsed(context.Background(), linkcounter.ClickKey(l.Code, l.CreatedAt))
	require.NoError(t, err)
	assert.Equal(t, int64(1), used)
}

func TestClickLimitConcurrent(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "limit5c", Features: link.Features{MaxClicks: 5}})
	var mu sync.Mutex
	count := map[int]int{}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := f.h.Handle(context.Background(), request(t, "GET", "limit5c", ""))
			assert.NoError(t, err)
			mu.Lock()
			count[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, map[int]int{302: 5, 410: 45}, count)
}

// TestRulesAndTargets: a rule by country answers DE and FR viewers
// differently, every time, in any order; the targets split by the draw.
func TestRulesAndTargets(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "geo0001", URL: "https://example.com/world", RedirectStatus: 301, Features: link.Features{
		Rules:   []link.Rule{{URL: "https://example.de/", Country: []string{"DE", "AT"}}, {URL: "https://example.com/fr", Language: []string{"fr"}}},
		Targets: []link.Target{{URL: "https://a.example/", Weight: 70}, {URL: "https://b.example/", Weight: 30}},
	}})
	draw := 0
	f.h.Draw = func() int { return draw }
	for _, country := range []string{"DE", "FR", "FR", "DE", "AT", "FR"} {
		resp := f.do(t, request(t, "GET", "geo0001", "", "cloudfront-viewer-country", country, "CloudFront-Viewer-Country", country))
		assert.Equal(t, 302, resp.StatusCode, "a decided link's 301 is temporary")
		assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
		if country == "FR" {
			assert.Equal(t, "https://a.example/", resp.Headers["Location"])
			assert.Equal(t, "target-0", destination(resp))
		} else {
			assert.Equal(t, "https://example.de/", resp.Headers["Location"])
			assert.Equal(t, "rule-0", destination(resp))
		}
	}
	draw = 70
	resp := f.do(t, request(t, "GET", "geo0001", "", "CloudFront-Viewer-Country", "US"))
	assert.Equal(t, "https://b.example/", resp.Headers["Location"])
	resp = f.do(t, request(t, "GET", "geo0001", "", "CloudFront-Viewer-Country", "CH", "accept-language", "fr-CH, de;q=0.8"))
	assert.Equal(t, "rule-1", destination(resp), "language from Accept-Language, in any case of the header name")
	assert.Equal(t, 405, f.do(t, post(t, "geo0001", "x")).StatusCode, "POST only for a password")
}

// TestPlainLinkIsUnchanged: a link without features keeps its edge
// caching and never answers POST.
func TestPlainLinkIsUnchanged(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "plain01"})
	resp := f.do(t, request(t, "GET", "plain01", "", "CloudFront-Viewer-Country", "FR"))
	assert.Equal(t, "public, max-age=0, s-maxage=86400", resp.Headers["Cache-Control"])
	assert.Empty(t, resp.Headers["Content-Type"])
	assert.Equal(t, 405, f.do(t, post(t, "plain01", "x")).StatusCode)
}

// TestExpiredURL: past its expiry a link with an expired URL sends there,
// cached no longer than the 410 would be; before it, the plain redirect
// is never kept past the expiry.
func TestExpiredURL(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "expire1", ExpiresAt: start.Add(30 * time.Second), Features: link.Features{ExpiredURL: "https://example.com/over"}})
	resp := f.do(t, request(t, "GET", "expire1", ""))
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, "public, max-age=0, s-maxage=30", resp.Headers["Cache-Control"])
	f.clock.Add(31 * time.Second)
	resp = f.do(t, request(t, "GET", "expire1", ""))
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, "https://example.com/over", resp.Headers["Location"])
	assert.Equal(t, "expired", destination(resp))
	assert.NotContains(t, resp.Headers["Cache-Control"], "s-maxage=86400")

	f.put(t, link.Link{Code: "disabl1", Status: link.StatusDisabled, Features: link.Features{ExpiredURL: "https://example.com/over"}})
	assert.Equal(t, 410, f.do(t, request(t, "GET", "disabl1", "")).StatusCode, "only expiry sends to the expired URL")

	// Turned into its tombstone (reclaim, or TTL then ttlstream), the
	// expired link still sends there until its code is reclaimed.
	written, err := f.store.Tombstone(context.Background(), link.NewTombstone("expire1", "owner-1", link.ReasonExpired, f.clock.Now(), time.Hour))
	require.NoError(t, err)
	require.True(t, written)
	f.clock.Add(time.Minute) // past any in-process entry of the link
	resp = f.do(t, request(t, "GET", "expire1", ""))
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, "https://example.com/over", resp.Headers["Location"])
	assert.Equal(t, "expired", destination(resp))
}

// TestPasswordFormKeepsTheVisitorsQuery: a protected link's form posts the
// visitor's query back with the password, so the 303 that answers the
// right one leaves with the query the edge's query-forward function merges,
// as a plain link's redirect does; a link that keeps the query out posts
// none.
func TestPasswordFormKeepsTheVisitorsQuery(t *testing.T) {
	f, _ := newDecidedFixture(t)
	f.put(t, link.Link{Code: "secret2", URL: "https://example.com/t", Features: link.Features{PasswordHash: "plain:pw"}})
	f.put(t, link.Link{Code: "secret3", URL: "https://example.com/t", Features: link.Features{KeepQueryOut: true, PasswordHash: "plain:pw"}})
	f.put(t, link.Link{Code: "secret4", URL: "https://example.com/t", Features: link.Features{QueryPrecedence: link.QueryVisitor, PasswordHash: "plain:pw"}})

	withQuery := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyRequest {
		// API Gateway hands the query decoded, by name (REST proxy event).
		ev.QueryStringParameters = map[string]string{"utm_source": "news letter", "ref": "b"}
		ev.MultiValueQueryStringParameters = map[string][]string{"utm_source": {"news letter"}, "ref": {"a", "b"}}
		return ev
	}
	form := f.do(t, withQuery(request(t, "GET", "secret2", ""))).Body
	assert.Contains(t, form, `action="/unlock/secret2?ref=a&amp;ref=b&amp;utm_source=news+letter"`)
	wrong := f.do(t, withQuery(post(t, "secret2", "nope")))
	assert.Equal(t, 403, wrong.StatusCode)
	assert.Contains(t, wrong.Body, `action="/unlock/secret2?ref=a&amp;ref=b&amp;utm_source=news+letter"`, "the form again keeps it")

	right := f.do(t, withQuery(post(t, "secret4", "pw")))
	assert.Equal(t, 303, right.StatusCode)
	assert.Equal(t, edgespec.QueryForwardVisitor, right.Headers[edgespec.QueryForwardHeader], "the edge merges the posted query as the link says")

	off := f.do(t, withQuery(request(t, "GET", "secret3", ""))).Body
	assert.Contains(t, off, `action="/unlock/secret3"`, "nothing to carry for a link that keeps the query out")
	offPost := f.do(t, withQuery(post(t, "secret3", "pw")))
	assert.Equal(t, edgespec.QueryForwardOff, offPost.Headers[edgespec.QueryForwardHeader])
}
