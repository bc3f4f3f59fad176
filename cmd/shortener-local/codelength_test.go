package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

// issuedLink is a link created in one run of the length-change test, with
// the clicks its visits should have counted so far.
type issuedLink struct {
	code, url string
	// short is the path of the short URL the create answered.
	short string
	// spellings are other paths that name the link: an alias in other cases.
	spellings []string
	clicks    int64
	// patched is set while the redirect may still serve the old target.
	patched bool
}

// TestCodesSurviveALengthChange is the regression test, end to end: links
// issued under one SHORTENER_CODE_LENGTH keep redirecting, answering the
// management API (GET, PATCH, DELETE), showing their stats and counting
// their clicks after the operator changes the length, 7 -> 8 -> 12 -> 7, on
// the same tables of DynamoDB Local. Each run has its own edge and click
// stream, so every count comes from that run's clicks.
func TestCodesSurviveALengthChange(t *testing.T) {
	tables := map[string]string{
		"LINKS_TABLE":       testenv.UniqueName(t, "links"),
		"IDEMPOTENCY_TABLE": testenv.UniqueName(t, "idem"),
		"ANALYTICS_TABLE":   testenv.UniqueName(t, "analytics"),
		"MISSES_TABLE":      testenv.UniqueName(t, "misses"),
		// The clicks mapping hands records over at once.
		"SHORTENER_CLICKS_BATCH_WINDOW": "0s",
	}
	var current *localRun
	start := func(length int) *localRun {
		if current != nil {
			require.NoError(t, current.stop())
		}
		e := maps.Clone(tables)
		e["SHORTENER_CODE_LENGTH"] = strconv.Itoa(length)
		current = startLocal(t, e)
		return current
	}
	var links []*issuedLink

	// Length 7: a generated code with capitals, an alias spelt like a
	// 7-character code, one spelt like an 8-character code and one that no
	// code can look like.
	r := start(7)
	gen7 := createGenerated(t, r, 7, "https://example.com/gen7")
	links = append(links, gen7,
		createAlias(t, r, "Promo12", "https://example.com/promo"),
		createAlias(t, r, "MyBrand8", "https://example.com/brand"),
		createAlias(t, r, "Summer-Sale", "https://example.com/sale"))
	reachAll(t, r, links)

	r = start(8)
	reachAll(t, r, links)
	gen8 := createGenerated(t, r, 8, "https://example.com/gen8")
	links = append(links, gen8)
	reachAll(t, r, links)

	r = start(12)
	reachAll(t, r, links)
	patch(t, r, gen7, "https://example.com/gen7-patched")
	patch(t, r, gen8, "https://example.com/gen8-patched")
	reachAll(t, r, links)

	r = start(7)
	reachAll(t, r, links)
	for _, l := range []*issuedLink{gen7, gen8, links[2]} {
		status, _, body := r.do(t, "DELETE", "/v1/links/"+l.code, r.key, "")
		require.Equal(t, 204, status, "DELETE %s: %s", l.code, body)
		status, _, _ = r.do(t, "GET", "/v1/links/"+l.code, r.key, "")
		assert.Equal(t, 404, status, "GET %s after its DELETE", l.code)
		// The redirect's in-process cache may keep the link for up to
		// its TTL: the promise is 30 s.
		assert.Eventually(t, func() bool {
			status, _, _ := r.do(t, "GET", l.short, "", "")
			return status == 410
		}, 30*time.Second, 250*time.Millisecond, "%s is 410 after its DELETE", l.short)
	}
}

// createGenerated creates a link with a generated code and checks the code
// has the run's length. It draws again until the code has a capital, so
// that it differs from its own lower-cased spelling.
func createGenerated(t *testing.T, r *localRun, length int, target string) *issuedLink {
	t.Helper()
	for range 20 {
		status, _, body := r.do(t, "POST", "/v1/links", r.key, fmt.Sprintf(`{"url":%q}`, target))
		require.Equal(t, 201, status, string(body))
		var c created
		require.NoError(t, json.Unmarshal(body, &c))
		require.Len(t, c.Code, length, "a generated code of the configured length")
		if strings.ToLower(c.Code) != c.Code {
			return &issuedLink{code: c.Code, url: target, short: shortPath(t, c.ShortURL)}
		}
	}
	t.Fatal("20 generated codes without a capital")
	return nil
}

// createAlias creates a link with a custom alias; it is also reached in
// capitals and lower-cased.
func createAlias(t *testing.T, r *localRun, alias, target string) *issuedLink {
	t.Helper()
	status, _, body := r.do(t, "POST", "/v1/links", r.key, fmt.Sprintf(`{"url":%q,"alias":%q}`, target, alias))
	require.Equal(t, 201, status, string(body))
	var c created
	require.NoError(t, json.Unmarshal(body, &c))
	return &issuedLink{code: c.Code, url: target, short: shortPath(t, c.ShortURL),
		spellings: []string{"/" + alias, "/" + strings.ToUpper(alias), "/" + strings.ToLower(alias)}}
}

func shortPath(t *testing.T, shortURL string) string {
	t.Helper()
	u, err := url.Parse(shortURL)
	require.NoError(t, err)
	return u.Path
}

func patch(t *testing.T, r *localRun, l *issuedLink, target string) {
	t.Helper()
	status, _, body := r.do(t, "PATCH", "/v1/links/"+l.code, r.key, fmt.Sprintf(`{"url":%q}`, target))
	require.Equal(t, 200, status, "PATCH %s: %s", l.code, body)
	l.url, l.patched = target, true
}

// reachAll checks every link through r: each of its spellings redirects to
// its target (one click each), the management API and the stats answer
// for its code and its short URL, and the stats count every click made so
// far, across runs of other lengths.
func reachAll(t *testing.T, r *localRun, links []*issuedLink) {
	t.Helper()
	for _, l := range links {
		paths := append([]string{l.short, "/" + l.code}, l.spellings...)
		for _, p := range paths {
			var status int
			var location string
			// Every visit that ends in the link's redirect is one click.
			click := func() {
				if status, location = visit(t, r, p); status == 302 {
					l.clicks++
				}
			}
			click()
			// The redirect's in-process cache may hold a patched link
			// for up to its TTL: the promise is 30 s.
			for deadline := time.Now().Add(30 * time.Second); l.patched && location != l.url && time.Now().Before(deadline); {
				time.Sleep(250 * time.Millisecond)
				click()
			}
			assert.Equal(t, [2]any{302, l.url}, [2]any{status, location}, "GET %s (link %s)", p, l.code)
		}
		l.patched = false
		if l.code != strings.ToLower(l.code) {
			status, _ := visit(t, r, "/"+strings.ToLower(l.code))
			assert.Equal(t, 404, status, "a generated code is case-sensitive: %s", strings.ToLower(l.code))
		}
		for _, p := range []string{"/" + l.code, l.short} {
			status, _, body := r.do(t, "GET", "/v1/links"+p, r.key, "")
			if assert.Equal(t, 200, status, "GET /v1/links%s: %s", p, body) {
				var c created
				require.NoError(t, json.Unmarshal(body, &c))
				assert.Equal(t, l.code, c.Code)
				assert.Equal(t, l.url, c.URL)
			}
		}
	}
	for _, l := range links {
		var got statsBody
		ok := assert.Eventually(t, func() bool {
			status, _, body := r.do(t, "GET", "/v1/links/"+l.code+"/stats", r.key, "")
			if status != 200 {
				return false
			}
			got = statsBody{}
			return json.Unmarshal(body, &got) == nil && got.Totals.Total >= l.clicks
		}, 15*time.Second, 200*time.Millisecond, "stats of %s", l.code)
		if ok {
			assert.Equal(t, l.clicks, got.Totals.Total, "clicks of %s", l.code)
		} else {
			t.Errorf("stats of %s: %d clicks, want %d", l.code, got.Totals.Total, l.clicks)
		}
	}
}

// visit clicks path as a browser and follows a redirect to another path of
// the short domain, as a browser would: it returns the last answer's
// status and Location.
func visit(t *testing.T, r *localRun, path string) (int, string) {
	t.Helper()
	for range 3 {
		status, h, _ := r.do(t, "GET", path, "", "", "User-Agent", browserAgent)
		loc := h.Get("Location")
		if status < 300 || status > 399 || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
			return status, loc
		}
		path = loc
	}
	return 0, "too many redirects"
}
