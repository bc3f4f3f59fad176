package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
)

// localRun is the local gateway started in-process for an end-to-end
// test, on its own tables of the shared DynamoDB Local.
type localRun struct {
	base   string
	key    string
	client *http.Client // does not follow redirects
	stderr *logtest.Buffer
	// stop stops the run and returns run's error; later calls return the
	// same. The test's cleanup calls it too.
	stop func() error
}

var errNotStopped = errors.New("the local run did not stop within 30 s")

func startLocal(t *testing.T, extra map[string]string) *localRun {
	t.Helper()
	e := map[string]string{
		"SHORTENER_ADDR":              "127.0.0.1:0",
		"SHORTENER_API_KEYS":          "e2e-key=e2e-owner,other-key=other-owner",
		"SHORTENER_DYNAMODB_ENDPOINT": testenv.DynamoDBEndpoint(t),
		"LINKS_TABLE":                 testenv.UniqueName(t, "links"),
		"IDEMPOTENCY_TABLE":           testenv.UniqueName(t, "idem"),
		"RESERVATION_TABLE":           testenv.UniqueName(t, "reservations"),
		"SHORTENER_KINESIS_ENDPOINT":  testenv.KinesisEndpoint(t),
		"CLICKS_STREAM":               testenv.UniqueName(t, "clicks"),
		"ANALYTICS_TABLE":             testenv.UniqueName(t, "analytics"),
		"MISSES_TABLE":                testenv.UniqueName(t, "misses"),
		// These tests check behaviour, not speed: generous DynamoDB bounds
		// keep a loaded 2-core machine from turning into 503s here. The
		// deadlines themselves are tested in internal/faulttest.
		"SHORTENER_DB_TIMEOUT":          "15s",
		"SHORTENER_REDIRECT_DB_TIMEOUT": "10s",
	}
	for k, v := range extra {
		e[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout logtest.Buffer
	r := &localRun{key: "e2e-key", stderr: &logtest.Buffer{}}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, env(e), &stdout, r.stderr, func(o string) { ready <- o }) }()
	var once sync.Once
	var stopErr error
	r.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(30 * time.Second):
				stopErr = errNotStopped
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := r.stop(); errors.Is(err, errNotStopped) {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("the run's warnings and errors:\n%s", r.problems())
		}
	})
	select {
	case r.base = <-ready:
	case err := <-done:
		t.Fatalf("run ended before it was ready: %v\n%s", err, r.stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("not ready after 2 minutes\n%s", r.stderr.String())
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	r.client = &http.Client{Transport: transport, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return r
}

// problems are the run's log lines above info level, at most 50.
func (r *localRun) problems() string {
	var out []string
	for line := range strings.Lines(r.stderr.String()) {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			out = append(out, line)
		}
	}
	return strings.Join(out[max(len(out)-50, 0):], "")
}

// do sends one request with the run's API key (when key is not empty) and
// returns the status, headers and body.
func (r *localRun) do(t testing.TB, method, path, key, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.base+path, rd)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != "" {
		req.Header.Set("content-type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := r.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

type created struct {
	Code     string `json:"code"`
	ShortURL string `json:"short_url"`
	URL      string `json:"url"`
}

// TestConcurrentAliasCreates: 50 creates of one alias at once give exactly
// one 201 and 49 409s, against the real DynamoDB engine.
func TestConcurrentAliasCreates(t *testing.T) {
	r := startLocal(t, nil)
	const n = 50
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], _, _ = r.do(t, "POST", "/v1/links", r.key,
				fmt.Sprintf(`{"url":"https://example.com/racer/%d","alias":"Contested"}`, i))
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	assert.Equal(t, map[int]int{201: 1, 409: n - 1}, count)

	status, h, _ := r.do(t, "GET", "/contested", "", "")
	assert.Equal(t, 302, status)
	assert.True(t, strings.HasPrefix(h.Get("Location"), "https://example.com/racer/"))
}

// TestManyGeneratedCreates: 2,000 generated creates give 2,000 distinct
// codes, each redirecting to its own URL.
func TestManyGeneratedCreates(t *testing.T) {
	// 2,000 creates as fast as 16 workers go: more than the default usage
	// plan lets one key make (100/s, bursts of 200), as on AWS.
	r := startLocal(t, map[string]string{"SHORTENER_API_RATE_LIMIT": "100000", "SHORTENER_API_BURST_LIMIT": "100000"})
	const n, workers = 2000, 16
	codes := make([]string, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				status, _, body := r.do(t, "POST", "/v1/links", r.key, fmt.Sprintf(`{"url":"https://example.com/item/%d"}`, i))
				if !assert.Equal(t, 201, status, string(body)) {
					continue
				}
				var c created
				if assert.NoError(t, json.Unmarshal(body, &c)) {
					codes[i] = c.Code
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()

	seen := map[string]bool{}
	for _, c := range codes {
		seen[c] = true
	}
	require.Len(t, seen, n, "every create got its own code")

	next = make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				status, h, _ := r.do(t, "GET", "/"+codes[i], "", "")
				assert.Equal(t, 302, status, codes[i])
				assert.Equal(t, fmt.Sprintf("https://example.com/item/%d", i), h.Get("Location"), codes[i])
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// TestManagementThroughTheGateway: owner isolation, the lost update, and a
// change that the redirect serves at once.
func TestManagementThroughTheGateway(t *testing.T) {
	r := startLocal(t, nil)
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/v1","alias":"Managed"}`)
	require.Equal(t, 201, status, string(body))

	status, h, body := r.do(t, "GET", "/v1/links/managed", r.key, "")
	require.Equal(t, 200, status, string(body))
	assert.Equal(t, `"1"`, h.Get("ETag"))

	t.Run("another key can neither read, list, change nor delete it", func(t *testing.T) {
		status, _, _ := r.do(t, "GET", "/v1/links/managed", "other-key", "")
		assert.Equal(t, 404, status)
		status, _, body := r.do(t, "GET", "/v1/links", "other-key", "")
		assert.Equal(t, 200, status)
		assert.JSONEq(t, `{"links":[]}`, string(body))
		status, _, _ = r.do(t, "PATCH", "/v1/links/managed", "other-key", `{"url":"https://evil.example/"}`)
		assert.Equal(t, 404, status)
		status, _, _ = r.do(t, "DELETE", "/v1/links/managed", "other-key", "")
		assert.Equal(t, 404, status)
	})

	t.Run("two patches on one version: one wins, one is 412", func(t *testing.T) {
		first, _, body := r.do(t, "PATCH", "/v1/links/managed", r.key, `{"url":"https://example.com/v2"}`, "If-Match", `"1"`)
		require.Equal(t, 200, first, string(body))
		second, _, _ := r.do(t, "PATCH", "/v1/links/managed", r.key, `{"url":"https://example.com/lost"}`, "If-Match", `"1"`)
		assert.Equal(t, 412, second)
	})

	t.Run("the redirect serves the change", func(t *testing.T) {
		// The alias could be spelt like a generated code: its display
		// spelling is sent to its own path, which redirects.
		status, h, _ := r.do(t, "GET", "/Managed", "", "")
		assert.Equal(t, 303, status)
		assert.Equal(t, "/managed", h.Get("Location"))
		status, h, _ = r.do(t, "GET", "/managed", "", "")
		assert.Equal(t, 302, status)
		assert.Equal(t, "https://example.com/v2", h.Get("Location"))
	})

	t.Run("delete is 204, then the redirect is 410", func(t *testing.T) {
		status, _, _ := r.do(t, "DELETE", "/v1/links/managed", r.key, "")
		assert.Equal(t, 204, status)
		status, _, _ = r.do(t, "GET", "/v1/links/managed", r.key, "")
		assert.Equal(t, 404, status)
		// The in-process cache may hold the link for up to its TTL; the
		// test waits for the promise (30 s), not for a fixed delay.
		require.Eventually(t, func() bool {
			status, _, _ := r.do(t, "GET", "/Managed", "", "")
			return status == 410
		}, 30*time.Second, 250*time.Millisecond)
		status, _, _ = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/again","alias":"managed"}`)
		assert.Equal(t, 409, status, "the code is held back during the grace period")
	})
}

// TestExpiryThroughTheLocalRun: the lifecycle end to end, as the issue
// states it, through the gateway, the stream poller and the reclaim run.
func TestExpiryThroughTheLocalRun(t *testing.T) {
	links := testenv.UniqueName(t, "links")
	r := startLocal(t, map[string]string{
		"LINKS_TABLE":                links,
		"SHORTENER_TOMBSTONE_GRACE":  "5s",
		"SHORTENER_RECLAIM_INTERVAL": "1h", // only the explicit POST /_local/reclaim below
	})
	store := dynamo.NewLinkStore(emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t)), dynamo.LinkConfig{LinksTable: links})

	// Long enough to outlast the create itself: it answers once the edge
	// invalidation of the new alias is sent, 2 s after the insert.
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/brief","alias":"Brief","ttl_seconds":6}`)
	require.Equal(t, 201, status, string(body))
	status, _, _ = r.do(t, "GET", "/brief", "", "")
	require.Equal(t, 302, status)

	// Expired: 410 at once, whether or not TTL has removed the item yet.
	require.Eventually(t, func() bool {
		status, _, _ := r.do(t, "GET", "/Brief", "", "")
		return status == 410
	}, 25*time.Second, 100*time.Millisecond)

	// The reclaim run (scheduled; here asked for) tombstones the expired
	// link in place, long before TTL may remove it.
	reclaim := func() (expired, reclaimed int) {
		resp, err := r.client.Post(r.base+"/_local/reclaim", "application/json", nil)
		require.NoError(t, err)
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, string(out))
		var run struct {
			Reclaimed int `json:"reclaimed"`
			Expired   int `json:"expired"`
		}
		require.NoError(t, json.Unmarshal(out, &run), string(out))
		return run.Expired, run.Reclaimed
	}
	expired, _ := reclaim()
	assert.GreaterOrEqual(t, expired, 1)
	tomb, err := store.GetTombstone(context.Background(), "brief")
	require.NoError(t, err, "expiry -> reclaim run -> tombstone in place")
	assert.Equal(t, "e2e-owner", tomb.PrevOwner)
	assert.Equal(t, link.ReasonExpired, tomb.Reason)

	status, _, _ = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/squatter","alias":"brief"}`)
	assert.Equal(t, 409, status, "the code is held back during the grace period")

	time.Sleep(time.Until(tomb.ReclaimAfter) + time.Second)
	_, reclaimed := reclaim()
	assert.GreaterOrEqual(t, reclaimed, 1)

	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/reborn","alias":"Brief"}`)
	assert.Equal(t, 201, status, string(body))
	// The redirect's in-process cache may still hold the expired link for
	// up to its TTL: the promise is 30 s, not at once.
	require.Eventually(t, func() bool {
		status, h, _ := r.do(t, "GET", "/brief", "", "")
		return status == 302 && h.Get("Location") == "https://example.com/reborn"
	}, 30*time.Second, 250*time.Millisecond)
}

// A browser's User-Agent: the clicks function counts a click without one,
// or from Go's own client, as a bot's.
const (
	browserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15"
	slackAgent   = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
)

// originRequests counts the "origin request" log lines for path: the
// redirects the edge could not answer from its cache and forwarded to the
// gateway, which called the redirect handler for each.
func (r *localRun) originRequests(t *testing.T, path string) int {
	t.Helper()
	n := 0
	for line := range strings.Lines(r.stderr.String()) {
		var l struct {
			Msg, Path string
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "origin request" && l.Path == path {
			n++
		}
	}
	return n
}

type statsBody struct {
	Totals    struct{ Total, Human, Bot int64 }
	Countries []struct {
		Country           string
		Total, Human, Bot int64
	}
}

// TestClicksCountedAtTheEdge is the end-to-end check: 20 GETs of
// one link (most of them edge hits), 3 HEADs and 5 GETs by Slack's link
// expander give, within 10 s, stats of 28 clicks, 20 human and 8 bot,
// while the redirect handler ran only for the edge's misses.
func TestClicksCountedAtTheEdge(t *testing.T) {
	r := startLocal(t, nil)
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/counted"}`)
	require.Equal(t, 201, status, string(body))
	var c created
	require.NoError(t, json.Unmarshal(body, &c))
	path := "/" + c.Code

	xcache := map[string]int{}
	click := func(method, agent string) {
		headers := []string{"User-Agent", agent}
		if agent == browserAgent {
			headers = append(headers, "CloudFront-Viewer-Country", "DE")
		}
		status, h, _ := r.do(t, method, path, "", "", headers...)
		require.Equal(t, 302, status)
		require.Equal(t, "https://example.com/counted", h.Get("Location"))
		xcache[h.Get("X-Cache")]++
	}
	for range 20 {
		click("GET", browserAgent)
	}
	for range 3 {
		click("HEAD", browserAgent)
	}
	for range 5 {
		click("GET", slackAgent)
	}
	lastClick := time.Now()

	misses := xcache["Miss from cloudfront"]
	origin := r.originRequests(t, path)
	assert.Equal(t, 28, xcache["Hit from cloudfront"]+misses, "every answer says where it came from: %v", xcache)
	assert.Equal(t, misses, origin, "each edge miss, and only a miss, reached the redirect handler")
	assert.LessOrEqual(t, origin, 3, "the redirect handler ran for the misses only")
	t.Logf("edge: %d hits, %d misses of 28 clicks (hit ratio %.0f %%); the redirect handler ran %d times",
		xcache["Hit from cloudfront"], misses, 100*float64(xcache["Hit from cloudfront"])/28, origin)

	var got statsBody
	stats := func() statsBody {
		status, _, body := r.do(t, "GET", "/v1/links/"+c.Code+"/stats", r.key, "")
		require.Equal(t, 200, status, string(body))
		var s statsBody
		require.NoError(t, json.Unmarshal(body, &s), string(body))
		return s
	}
	require.Eventually(t, func() bool {
		got = stats()
		return got.Totals.Total >= 28
	}, 10*time.Second, 100*time.Millisecond, "the clicks reach the stats within 10 s")
	t.Logf("the last click reached the stats %d ms after it was made", time.Since(lastClick).Milliseconds())
	assert.Equal(t, int64(28), got.Totals.Total)
	assert.Equal(t, int64(20), got.Totals.Human)
	assert.Equal(t, int64(8), got.Totals.Bot)

	time.Sleep(time.Second)
	got = stats()
	assert.Equal(t, int64(28), got.Totals.Total, "counted once, not again")
	var de bool
	for _, ct := range got.Countries {
		if ct.Country == "DE" {
			de = true
			assert.Equal(t, int64(23), ct.Total, "the viewer country the edge logged")
			assert.Equal(t, int64(20), ct.Human)
			assert.Equal(t, int64(3), ct.Bot, "the HEADs")
		}
	}
	assert.True(t, de, "a DE entry in %+v", got.Countries)

	status, _, _ = r.do(t, "GET", "/v1/links/"+c.Code+"/stats", "other-key", "")
	assert.Equal(t, 404, status, "stats are the owner's only")
}

// createOldLinks creates in table (a links table of DynamoDB Local, or one
// of its replicas) an active link of e2e-owner for each of codes, created
// two minutes ago: past the new-link window, so their redirects get the
// full edge TTL.
func createOldLinks(t *testing.T, table string, codes ...string) {
	t.Helper()
	store := dynamo.NewLinkStore(emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t)), dynamo.LinkConfig{LinksTable: table})
	created := time.Now().Add(-2 * time.Minute).UTC().Truncate(time.Millisecond)
	for _, code := range codes {
		require.NoError(t, store.Create(context.Background(), link.Link{Code: code, Owner: "e2e-owner", URL: "https://example.com/" + code,
			CreatedAt: created, UpdatedAt: created, ExpiresAt: created.Add(30 * 24 * time.Hour), Status: link.StatusActive,
			Version: 1, RedirectStatus: 302}, nil))
	}
}

// costs reads what the run has consumed so far (costsPath).
func (r *localRun) costs(t *testing.T) costsReport {
	t.Helper()
	var c costsReport
	status, _, body := r.do(t, "GET", costsPath, "", "")
	require.Equal(t, 200, status, string(body))
	require.NoError(t, json.Unmarshal(body, &c), string(body))
	return c
}

// edgeCounters reads the run's edge counters so far (edgeStatsPath).
func (r *localRun) edgeCounters(t *testing.T) localedge.Stats {
	t.Helper()
	var st localedge.Stats
	status, _, body := r.do(t, "GET", edgeStatsPath, "", "")
	require.Equal(t, 200, status, string(body))
	require.NoError(t, json.Unmarshal(body, &st), string(body))
	return st
}

// TestDeletedLinkLeavesTheEdge is the reproduction of the first
// defect through the local run: a link past the new-link window is
// clicked (the edge keeps it for a day), deleted, and clicked again at
// once, while the redirect function still holds the entry it loaded before
// the delete. Within the promise (30 s after the 204) the edge answers
// 410, and it keeps answering 410: no old answer was stored for long.
func TestDeletedLinkLeavesTheEdge(t *testing.T) {
	links := testenv.UniqueName(t, "links")
	r := startLocal(t, map[string]string{
		"LINKS_TABLE": links,
		// Short, so the test is: the argument holds for any value.
		"SHORTENER_CACHE_TTL":              "5s",
		"SHORTENER_EDGE_INVALIDATION_TIME": "1s",
		// The deletes's read and write answer well within a second here.
		"SHORTENER_DB_TIMEOUT": "2s",
	})
	createOldLinks(t, links, "aB3dE5f")

	status, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
	require.Equal(t, 302, status)
	require.Equal(t, "public, max-age=0, s-maxage=86400", h.Get("Cache-Control"))
	status, _, body := r.do(t, "DELETE", "/v1/links/aB3dE5f", r.key, "")
	require.Equal(t, 204, status, string(body))
	deleted := time.Now()
	r.do(t, "GET", "/aB3dE5f", "", "") // the click that raced the delete

	require.Eventually(t, func() bool {
		status, _, _ := r.do(t, "GET", "/aB3dE5f", "", "")
		return status == 410
	}, 30*time.Second-time.Since(deleted), 250*time.Millisecond, "the deleted link still redirects 30 s after its 204")
	for range 4 {
		time.Sleep(500 * time.Millisecond)
		status, h, _ := r.do(t, "GET", "/aB3dE5f", "", "")
		assert.Equal(t, 410, status, "%s %s", h.Get("X-Cache"), h.Get("Location"))
	}
}

// TestOnlyHeldLinksAreInvalidated: through the local run, over DynamoDB
// Local's marks table, a link nobody asked for is deleted without an
// invalidation (none is asked of the edge) and answers 410 at once, while
// a link the edge holds for a day is invalidated and answers 410 within
// the promise.
func TestOnlyHeldLinksAreInvalidated(t *testing.T) {
	links := testenv.UniqueName(t, "links")
	r := startLocal(t, map[string]string{
		"LINKS_TABLE":                      links,
		"SHORTENER_CACHE_TTL":              "5s",
		"SHORTENER_EDGE_INVALIDATION_TIME": "1s",
		"SHORTENER_DB_TIMEOUT":             "2s",
	})
	createOldLinks(t, links, "never00", "asked00")

	status, _, body := r.do(t, "DELETE", "/v1/links/never00", r.key, "")
	require.Equal(t, 204, status, string(body))
	assert.Zero(t, r.edgeCounters(t).InvalidationPaths, "nobody asked for it: no invalidation")
	for range 3 {
		status, h, _ := r.do(t, "GET", "/never00", "", "")
		assert.Equal(t, 410, status, "%s %s", h.Get("X-Cache"), h.Get("Location"))
	}

	before := r.costs(t)
	status, h, _ := r.do(t, "GET", "/asked00", "", "")
	require.Equal(t, 302, status)
	require.Equal(t, "public, max-age=0, s-maxage=86400", h.Get("Cache-Control"))
	_, h, _ = r.do(t, "GET", "/asked00", "", "")
	require.Equal(t, "Hit from cloudfront", h.Get("X-Cache"), "the edge holds it")

	// What the run consumed, as cmd/soak reads it: the redirect wrote
	// asked00's mark (one UpdateItem on the marks table, for the
	// long-lived answer; the edge answered the second GET) after reading
	// it from the links table, and the edge handed the click stream every
	// request's record.
	c := r.costs(t)
	marks := func(c costsReport) int { return c.Functions["redirect"].ByTable[links+"-edge-marks UpdateItem"].Calls }
	assert.Equal(t, 1, marks(c)-marks(before), "one mark: asked00's long-lived answer")
	assert.Positive(t, c.Functions["redirect"].ByTable[links+" GetItem"].Calls, "the redirect's reads of the links")
	assert.Positive(t, c.Records)
	assert.Greater(t, c.RecordBytes, 100*c.Records, "a record is a line of a few hundred bytes")
	assert.Less(t, c.RecordBytes, 1024*c.Records)
	status, _, body = r.do(t, "DELETE", "/v1/links/asked00", r.key, "")
	require.Equal(t, 204, status, string(body))
	deleted := time.Now()
	assert.Equal(t, int64(1), r.edgeCounters(t).InvalidationPaths, "the held link is invalidated")
	assert.Equal(t, int64(1), r.edgeCounters(t).Invalidations, "one invalidation, for the held link")
	require.Eventually(t, func() bool {
		status, _, _ := r.do(t, "GET", "/asked00", "", "")
		return status == 410
	}, 30*time.Second-time.Since(deleted), 250*time.Millisecond, "the deleted link still redirects 30 s after its 204")
}

// TestManagementPurgesTheEdge: the edge keeps a redirect after the
// redirect function's own cache has let it go, and a PATCH purges it: once
// the invalidation completes (it takes time, as CloudFront's does), the
// next click is a miss that shows the new target. The run starts its own
// kinesalite, and stops it after the server at shutdown.
func TestManagementPurgesTheEdge(t *testing.T) {
	r := startLocal(t, map[string]string{
		"SHORTENER_KINESIS_ENDPOINT": "", // start one
		"SHORTENER_KINESIS_PORT":     "0",
		// The redirect function's in-process cache lets go after 1 s; the
		// edge keeps a young link for 10 s.
		"SHORTENER_CACHE_TTL": "1s",
	})
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/before","alias":"Purged"}`)
	require.Equal(t, 201, status, string(body))

	get := func() (string, string) {
		status, h, _ := r.do(t, "GET", "/purged", "", "", "User-Agent", browserAgent)
		require.Equal(t, 302, status)
		return h.Get("X-Cache"), h.Get("Location")
	}
	type answer struct{ xcache, location string }
	var seen []answer
	click := func() {
		x, l := get()
		seen = append(seen, answer{x, l})
	}
	click()
	time.Sleep(1200 * time.Millisecond)
	click() // the function's cache has expired; the edge's has not

	status, _, body = r.do(t, "PATCH", "/v1/links/purged", r.key, `{"url":"https://example.com/after"}`)
	require.Equal(t, 200, status, string(body))
	// The edge serves its copy until the invalidation completes.
	before := answer{"Hit from cloudfront", "https://example.com/before"}
	require.Eventually(t, func() bool {
		x, l := get()
		if (answer{x, l}) == before {
			return false
		}
		seen = append(seen, answer{x, l})
		return true
	}, 30*time.Second, 100*time.Millisecond, "the invalidation never completed")
	click()
	assert.Equal(t, []answer{
		{"Miss from cloudfront", "https://example.com/before"},
		{"Hit from cloudfront", "https://example.com/before"},
		{"Miss from cloudfront", "https://example.com/after"},
		{"Hit from cloudfront", "https://example.com/after"},
	}, seen)
	assert.Equal(t, 2, r.originRequests(t, "/purged"))

	require.NoError(t, r.stop())
	logs := r.stderr.String()
	order := []string{`"msg":"starting kinesalite"`, `"msg":"ready"`, `"msg":"shutting down"`, `"msg":"stopped kinesalite"`, `"msg":"stopped"`}
	at := -1
	for _, m := range order {
		i := strings.Index(logs, m)
		require.Greater(t, i, at, "%s comes after %s", m, order)
		at = i
	}
}

// TestNewAliasShowsWithoutAnInvalidation: a viewer asked for an alias
// before it existed, so the edge holds its 404. Creating the alias sends
// no invalidation, even with invalidations that complete at once: right
// after the 201 the edge still answers its 404, and the alias redirects
// once that 404's error caching time runs out (10 s), well inside the 30 s
// promise (docs/lifecycle.md, section 6), with nothing purged.
func TestNewAliasShowsWithoutAnInvalidation(t *testing.T) {
	r := startLocal(t, map[string]string{"SHORTENER_EDGE_INVALIDATION_TIME": "0s"})
	status, h, _ := r.do(t, "GET", "/fresh-alias", "", "", "User-Agent", browserAgent)
	require.Equal(t, 404, status)
	require.Contains(t, h.Get("Cache-Control"), "s-maxage=10", "the edge keeps the 404")

	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/fresh","alias":"fresh-alias"}`)
	require.Equal(t, 201, status, string(body))
	created := time.Now()
	status, _, _ = r.do(t, "GET", "/fresh-alias", "", "", "User-Agent", browserAgent)
	assert.Equal(t, 404, status, "nothing purged the edge's 404")
	assert.Zero(t, r.edgeCounters(t).Purged, "create sends no invalidation")

	require.Eventually(t, func() bool {
		status, h, _ := r.do(t, "GET", "/fresh-alias", "", "", "User-Agent", browserAgent)
		return status == 302 && h.Get("Location") == "https://example.com/fresh"
	}, 30*time.Second-time.Since(created), 250*time.Millisecond, "the new alias does not redirect 30 s after its 201")
	assert.Zero(t, r.edgeCounters(t).Purged)
}

// TestPercentEncodedSpellingsAreNeverServed: the redirect origin, an HTTP
// API, decodes /%70ercent to /percent, while CloudFront would cache the
// answer under the spelling, out of reach of the purge a PATCH sends for
// /percent. The edge refuses such spellings as the deployed web ACL does,
// so no spelling outlives a change.
func TestPercentEncodedSpellingsAreNeverServed(t *testing.T) {
	r := startLocal(t, nil)
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/before","alias":"percent"}`)
	require.Equal(t, 201, status, string(body))
	for _, spelling := range []string{"/%70ercent", "/percen%74", "/%2570ercent"} {
		status, h, body := r.do(t, "GET", spelling, "", "", "User-Agent", browserAgent)
		assert.Equal(t, 400, status, "%s: %s", spelling, body)
		assert.Empty(t, h.Get("Location"), spelling)
		assert.NotContains(t, h.Get("Cache-Control"), "s-maxage", spelling)
	}

	status, _, body = r.do(t, "PATCH", "/v1/links/percent", r.key, `{"url":"https://example.com/after"}`)
	require.Equal(t, 200, status, string(body))
	status, h, _ := r.do(t, "GET", "/%70ercent", "", "", "User-Agent", browserAgent)
	assert.Equal(t, 400, status)
	assert.Empty(t, h.Get("Location"), "a spelling never serves the old target")
	status, h, _ = r.do(t, "GET", "/percent", "", "", "User-Agent", browserAgent)
	require.Equal(t, 302, status)
	assert.Equal(t, "https://example.com/after", h.Get("Location"))
	assert.Zero(t, r.originRequests(t, "/%70ercent"))
}
