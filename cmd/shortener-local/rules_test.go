package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkcounter"
)

// The redirect rules (docs/api.md, "Redirect rules") through the local run: the edge, the
// gateway, the real handlers, DynamoDB Local and the click pipeline.

func (r *localRun) createLink(t *testing.T, body string) string {
	t.Helper()
	status, _, b := r.do(t, "POST", "/v1/links", r.key, body)
	require.Equal(t, 201, status, string(b))
	var c created
	require.NoError(t, json.Unmarshal(b, &c))
	return c.Code
}

func (r *localRun) postPassword(t *testing.T, code, pw string) (int, map[string][]string, string) {
	t.Helper()
	status, h, b := r.do(t, "POST", "/unlock/"+code, "", url.Values{"password": {pw}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded", "User-Agent", browserAgent)
	return status, h, string(b)
}

// TestPasswordLinkThroughTheLocalRun: the form (no target in it,
// no-store), a wrong password 403, the right one 303 to the target, and
// a viewer's wrong try past its budget 429 with Retry-After.
func TestPasswordLinkThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/behind-the-door","password":"open sesame 1"}`)

	for range 2 { // the second from no cache either
		status, h, body := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent)
		require.Equal(t, 200, status)
		assert.Equal(t, "no-store", h.Get("Cache-Control"))
		assert.Contains(t, string(body), `name="password"`)
		assert.Contains(t, string(body), `action="/unlock/`+code+`"`)
		assert.NotContains(t, string(body), "behind-the-door")
		assert.Empty(t, h.Get("Location"))
	}
	status, _, body := r.postPassword(t, code, "wrong guess")
	assert.Equal(t, 403, status)
	assert.Contains(t, body, `name="password"`)
	assert.NotContains(t, body, "behind-the-door")
	status, h, _ := r.postPassword(t, code, "open sesame 1")
	assert.Equal(t, 303, status)
	assert.Equal(t, "https://example.com/behind-the-door", h["Location"][0])
	status, _, _ = r.do(t, "POST", "/"+code, "", "password=open+sesame+1", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, 403, status, "the redirects' behaviour takes no POST, as CloudFront's with an origin group")
	// The right password's 303 is the link's one click; the forms and the
	// 403s are none.
	require.Eventually(t, func() bool {
		_, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
		var st statsBody
		return json.Unmarshal(body, &st) == nil && st.Totals.Total >= 1
	}, 20*time.Second, 200*time.Millisecond, "the click reaches the stats")
	time.Sleep(time.Second)
	_, _, body2 := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
	var st statsBody
	require.NoError(t, json.Unmarshal(body2, &st))
	assert.Equal(t, int64(1), st.Totals.Total, "counted once")
	assert.Equal(t, int64(1), st.Totals.Human)

	locked := r.createLink(t, `{"url":"https://example.com/vault","password":"correct horse"}`)
	for i := range linkcounter.ViewerLimit.Max {
		status, _, _ := r.postPassword(t, locked, fmt.Sprintf("guess %d", i))
		require.Equal(t, 403, status, "wrong try %d", i+1)
	}
	status, h, _ = r.postPassword(t, locked, "one guess too many")
	assert.Equal(t, 429, status, "the viewer's wrong try past its budget")
	require.NotEmpty(t, h["Retry-After"])
	assert.Regexp(t, `^[1-9][0-9]{0,2}$`, h["Retry-After"][0], "at most the viewer's window, 900 s")
	status, _, _ = r.postPassword(t, locked, "correct horse")
	assert.Equal(t, 429, status, "no guess of this viewer is checked while it is limited")
}

// TestClickLimitThroughTheLocalRun: a max_clicks 5 link clicked 20 times
// answers 5 redirects then 410s (a link previewer uses none up, and is
// not redirected); 50 concurrent clicks on a fresh one give exactly 5
// redirects.
func TestClickLimitThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/limited","max_clicks":5}`)
	for range 3 {
		status, h, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", slackAgent)
		require.Equal(t, 200, status, "a previewer uses no click up")
		assert.Empty(t, h.Get("Location"), "and gets no destination")
	}
	var got []int
	for range 20 {
		status, h, body := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent)
		got = append(got, status)
		assert.Equal(t, "no-store", h.Get("Cache-Control"))
		if status == 410 {
			assert.Contains(t, string(body), "Click limit reached")
		}
	}
	assert.Equal(t, []int{302, 302, 302, 302, 302, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410, 410}, got)

	fresh := r.createLink(t, `{"url":"https://example.com/limited-race","max_clicks":5}`)
	var mu sync.Mutex
	count := map[int]int{}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, _ := r.do(t, "GET", "/"+fresh, "", "", "User-Agent", browserAgent)
			mu.Lock()
			count[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Equal(t, map[int]int{302: 5, 410: 45}, count, "exactly max_clicks redirects, however they race")
}

// TestCountryRuleThroughTheLocalRun: DE and FR viewers get their own
// destinations in either order, with no cross-over through the edge or
// the redirect's in-process cache.
func TestCountryRuleThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/world","rules":[{"url":"https://example.de/","country":["DE","AT"]},{"url":"https://example.fr/","country":["FR"]}]}`)
	want := map[string]string{"DE": "https://example.de/", "FR": "https://example.fr/", "US": "https://example.com/world"}
	for _, c := range []string{"DE", "FR", "FR", "DE", "US", "DE", "FR", "US", "FR", "DE"} {
		status, h, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent, "CloudFront-Viewer-Country", c)
		require.Equal(t, 302, status, c)
		assert.Equal(t, want[c], h.Get("Location"), c)
		assert.Equal(t, "Miss from cloudfront", h.Get("X-Cache"), "%s: never from the edge's cache", c)
		assert.Equal(t, "no-store", h.Get("Cache-Control"))
	}
}

// TestSplitAndDestinationsThroughTheLocalRun: a 70/30 split over 2,000
// clicks lands within 65-75 %, and the stats' destination breakdown adds
// up to the total.
func TestSplitAndDestinationsThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/ab","targets":[{"url":"https://example.com/a","weight":70},{"url":"https://example.com/b","weight":30}]}`)
	const n, workers = 2000, 8
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	next := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				status, h, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent)
				if !assert.Equal(t, 302, status) {
					continue
				}
				mu.Lock()
				got[h.Get("Location")]++
				mu.Unlock()
			}
		}()
	}
	for range n {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	share := float64(got["https://example.com/a"]) / n
	t.Logf("split over %d clicks: %v (a: %.1f %%)", n, got, 100*share)
	assert.Equal(t, n, got["https://example.com/a"]+got["https://example.com/b"])
	assert.True(t, share >= 0.65 && share <= 0.75, "a got %.1f %%", 100*share)

	type dest struct {
		Destination       string
		Total, Human, Bot int64
	}
	var stats struct {
		Totals       struct{ Total, Human, Bot int64 }
		Destinations []dest
	}
	require.Eventually(t, func() bool {
		status, _, body := r.do(t, "GET", "/v1/links/"+code+"/stats", r.key, "")
		require.Equal(t, 200, status, string(body))
		require.NoError(t, json.Unmarshal(body, &stats))
		return stats.Totals.Total >= n
	}, 30*time.Second, 200*time.Millisecond, "the clicks reach the stats")
	assert.Equal(t, int64(n), stats.Totals.Total)
	var sum int64
	by := map[string]int64{}
	for _, d := range stats.Destinations {
		sum += d.Total
		by[d.Destination] = d.Total
	}
	assert.Equal(t, stats.Totals.Total, sum, "the destination breakdown adds up to the total: %+v", stats.Destinations)
	assert.Equal(t, int64(got["https://example.com/a"]), by["target-0"])
	assert.Equal(t, int64(got["https://example.com/b"]), by["target-1"])
	assert.False(t, strings.Contains(fmt.Sprint(by), "default"))
}
