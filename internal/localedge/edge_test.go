package localedge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/fakeclock"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/edgecache"
)

// origin is a fake gateway: it answers each path with the status and
// Cache-Control set for it (302 for s-maxage=60 when unset), and counts
// and keeps the requests it gets.
type origin struct {
	mu       sync.Mutex
	answers  map[string]answer
	calls    map[string]int
	requests []*http.Request
	// hold, when not nil, blocks a request until it is closed.
	hold chan struct{}
	// started is signalled as each request arrives.
	started chan struct{}
}

type answer struct {
	status int
	cc     string
	body   string
	target string
}

func newOrigin() *origin {
	return &origin{answers: map[string]answer{}, calls: map[string]int{}}
}

func (o *origin) set(path string, a answer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.answers[path] = a
}

func (o *origin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls[path]
}

func (o *origin) last() *http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.requests[len(o.requests)-1]
}

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.calls[r.URL.Path]++
	o.requests = append(o.requests, r)
	a, ok := o.answers[r.URL.Path]
	hold, started := o.hold, o.started
	o.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	if !ok {
		a = answer{status: 302, cc: "public, max-age=0, s-maxage=60", target: "https://example.com" + r.URL.Path}
	}
	if a.cc != "" {
		w.Header().Set("Cache-Control", a.cc)
	}
	if a.target != "" {
		w.Header().Set("Location", a.target)
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(a.body)))
	w.WriteHeader(a.status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, a.body)
	}
}

// sink keeps the records it gets.
type sink struct {
	mu   sync.Mutex
	recs []clicklog.Record
	// block, when not nil, holds every Write until it is closed.
	block chan struct{}
}

func (s *sink) Write(_ context.Context, r clicklog.Record) {
	if s.block != nil {
		<-s.block
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
}

func (s *sink) records() []clicklog.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]clicklog.Record(nil), s.recs...)
}

type fixture struct {
	edge   *Edge
	origin *origin
	sink   *sink
	clock  *fakeclock.Clock
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	f := &fixture{origin: newOrigin(), sink: &sink{}, clock: fakeclock.New(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))}
	if o.Origin == nil {
		o.Origin = f.origin
	}
	if o.Sink == nil {
		o.Sink = f.sink
	}
	o.Now = f.clock.Now
	o.AfterFunc = f.clock.AfterFunc
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	e, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	f.edge = e
	return f
}

// do sends one request through the edge.
func (f *fixture) do(method, target string, headers ...string) *http.Response {
	r := httptest.NewRequest(method, "http://sho.rt"+target, nil)
	r.RemoteAddr = "192.0.2.77:40000"
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	f.edge.ServeHTTP(w, r)
	return w.Result()
}

// flushed closes the edge and returns every record it logged.
func (f *fixture) flushed(t *testing.T) []clicklog.Record {
	t.Helper()
	require.NoError(t, f.edge.Close(context.Background()))
	return f.sink.records()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestRepeatClicksAreEdgeHits(t *testing.T) {
	f := newFixture(t, Options{})
	first := f.do("GET", "/Ab3dE5g")
	assert.Equal(t, 302, first.StatusCode)
	assert.Equal(t, "Miss from cloudfront", first.Header.Get("X-Cache"))
	assert.Empty(t, first.Header.Get("Age"))
	assert.Equal(t, "https://example.com/Ab3dE5g", first.Header.Get("Location"))

	f.clock.Add(1500 * time.Millisecond)
	for range 5 {
		resp := f.do("GET", "/Ab3dE5g")
		assert.Equal(t, 302, resp.StatusCode)
		assert.Equal(t, "Hit from cloudfront", resp.Header.Get("X-Cache"))
		assert.Equal(t, "1", resp.Header.Get("Age"))
		assert.Equal(t, "https://example.com/Ab3dE5g", resp.Header.Get("Location"))
		assert.Equal(t, "public, max-age=0, s-maxage=60", resp.Header.Get("Cache-Control"), "the origin's headers are replayed")
	}
	assert.Equal(t, 1, f.origin.count("/Ab3dE5g"))
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/Ab3dE5g?utm_source=mail").Header.Get("X-Cache"), "the query is not in the key")
	assert.Equal(t, "Miss from cloudfront", f.do("GET", "/ab3de5g").Header.Get("X-Cache"), "keys are case-sensitive")

	f.clock.Add(59 * time.Second) // 60.5 s after the first fetch
	assert.Equal(t, "Miss from cloudfront", f.do("GET", "/Ab3dE5g").Header.Get("X-Cache"), "kept for s-maxage only")
	assert.Equal(t, 2, f.origin.count("/Ab3dE5g"))
	st := f.edge.Stats()
	assert.Equal(t, int64(6), st.Hits)
	assert.Equal(t, int64(3), st.Misses)
}

func TestCloudFrontHeaders(t *testing.T) {
	f := newFixture(t, Options{})
	ids := map[string]bool{}
	for _, target := range []string{"/code123", "/code123", "/v1/links"} {
		resp := f.do("GET", target)
		id := resp.Header.Get("X-Amz-Cf-Id")
		assert.Regexp(t, `^[A-Za-z0-9_-]{54}==$`, id)
		ids[id] = true
		assert.Regexp(t, `^1\.1 [0-9a-f]{32}\.cloudfront\.net \(CloudFront\)$`, resp.Header.Get("Via"))
		assert.Equal(t, DefaultPOP, resp.Header.Get("X-Amz-Cf-Pop"))
	}
	assert.Len(t, ids, 3, "one id per request, hits included")
}

func TestWhatReachesTheOrigin(t *testing.T) {
	f := newFixture(t, Options{})
	f.do("GET", "/withquery?utm_source=mail&x=1", "Cookie", "session=s3cret", "User-Agent", "Mozilla/5.0")
	r := f.origin.last()
	assert.Equal(t, "utm_source=mail&x=1", r.URL.RawQuery, "the query reaches the redirect origin, for the password form")
	assert.Equal(t, "/withquery?utm_source=mail&x=1", r.RequestURI)
	f.do("GET", "/withquery?other=2")
	assert.Equal(t, 1, f.origin.count("/withquery"), "and stays out of the cache key")
	assert.Empty(t, r.Header.Get("Cookie"), "cookies are not forwarded")

	f.do("POST", "/v1/links?dry=1", "Cookie", "a=b")
	r = f.origin.last()
	assert.Equal(t, "dry=1", r.URL.RawQuery, "/v1 passes through as sent")
	assert.Equal(t, http.MethodPost, r.Method)
}

func TestWhatIsCached(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		path      string
		answer    *answer // nil: the origin's default 302
		wantCalls int     // origin calls for three requests
		wantCache []string
	}{
		{name: "redirect", method: "GET", path: "/abc1234", wantCalls: 1,
			wantCache: []string{"Miss from cloudfront", "Hit from cloudfront", "Hit from cloudfront"}},
		{name: "no-store redirect", method: "GET", path: "/young01", answer: &answer{status: 302, cc: "no-store", target: "https://example.com/"},
			wantCalls: 3, wantCache: []string{"Miss from cloudfront", "Miss from cloudfront", "Miss from cloudfront"}},
		{name: "404 for its s-maxage", method: "GET", path: "/nothing", answer: &answer{status: 404, cc: "public, max-age=0, s-maxage=10", body: "not found"},
			wantCalls: 1, wantCache: []string{"Error from cloudfront", "Error from cloudfront", "Error from cloudfront"}},
		{name: "410 no-store", method: "GET", path: "/expired", answer: &answer{status: 410, cc: "no-store", body: "gone"},
			wantCalls: 3, wantCache: []string{"Error from cloudfront", "Error from cloudfront", "Error from cloudfront"}},
		{name: "the API is never cached", method: "GET", path: "/v1/links/abc", answer: &answer{status: 200, cc: "s-maxage=60", body: "{}"},
			wantCalls: 3, wantCache: []string{"Miss from cloudfront", "Miss from cloudfront", "Miss from cloudfront"}},
		// The default behaviour's "*" matches it: CloudFront keeps it
		// under the redirect policy like any other path.
		{name: "a path of two segments is the default behaviour's too", method: "GET", path: "/a/b", wantCalls: 1,
			wantCache: []string{"Miss from cloudfront", "Hit from cloudfront", "Hit from cloudfront"}},
		{name: "HEAD misses are not kept", method: "HEAD", path: "/headonly", wantCalls: 3,
			wantCache: []string{"Miss from cloudfront", "Miss from cloudfront", "Miss from cloudfront"}},
		{name: "the health check passes through", method: "GET", path: "/healthz", answer: &answer{status: 200, cc: "s-maxage=60"}, wantCalls: 3,
			wantCache: []string{"Miss from cloudfront", "Miss from cloudfront", "Miss from cloudfront"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			if tt.answer != nil {
				f.origin.set(tt.path, *tt.answer)
			}
			var got []string
			for range 3 {
				resp := f.do(tt.method, tt.path)
				got = append(got, resp.Header.Get("X-Cache"))
				if tt.answer != nil && tt.method == "GET" {
					assert.Equal(t, tt.answer.body, body(t, resp))
				}
			}
			assert.Equal(t, tt.wantCache, got)
			assert.Equal(t, tt.wantCalls, f.origin.count(tt.path))
		})
	}
}

func TestHeadIsAnsweredFromACachedGet(t *testing.T) {
	f := newFixture(t, Options{})
	f.origin.set("/page404", answer{status: 404, cc: "s-maxage=30", body: "<h1>not here</h1>"})
	require.Equal(t, "<h1>not here</h1>", body(t, f.do("GET", "/page404")))
	resp := f.do("HEAD", "/page404")
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "17", resp.Header.Get("Content-Length"))
	assert.Empty(t, body(t, resp))
	assert.Equal(t, "0", resp.Header.Get("Age"))
	assert.Equal(t, 1, f.origin.count("/page404"))
}

func TestOtherMethodsAreRefusedAtTheEdge(t *testing.T) {
	f := newFixture(t, Options{})
	for _, m := range []string{"POST", "PUT", "DELETE", "OPTIONS", "PATCH"} {
		resp := f.do(m, "/abc1234")
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, m)
		assert.Equal(t, "Error from cloudfront", resp.Header.Get("X-Cache"), m)
		assert.Contains(t, body(t, resp), "not configured to allow the HTTP request method", m)
	}
	assert.Zero(t, f.origin.count("/abc1234"))
	recs := f.flushed(t)
	require.Len(t, recs, 5)
	assert.Equal(t, 403, recs[0].Status)
	assert.Equal(t, ResultError, recs[0].ResultType)
}

// TestUnlockPassesEveryMethodUncached: the password forms' behaviour
// (/unlock/*) allows every method, as deployed, caches nothing, and logs
// each request.
func TestUnlockPassesEveryMethodUncached(t *testing.T) {
	f := newFixture(t, Options{})
	for _, m := range []string{"POST", "PUT", "GET", "POST"} {
		resp := f.do(m, "/unlock/abc1234")
		assert.Equal(t, http.StatusFound, resp.StatusCode, m)
		assert.Equal(t, "Miss from cloudfront", resp.Header.Get("X-Cache"), m)
	}
	assert.Equal(t, 4, f.origin.count("/unlock/abc1234"), "each reached the origin: none was cached")
	assert.Equal(t, "POST", f.origin.last().Method)
	recs := f.flushed(t)
	require.Len(t, recs, 4)
	assert.Equal(t, "POST", recs[0].Method)
	assert.Equal(t, "/unlock/abc1234", recs[0].URI)
}

func TestInvalidations(t *testing.T) {
	paths := []string{"/abc1234", "/abc9999", "/promo", "/Promo", "/other"}
	tests := []struct {
		name        string
		invalidate  []string
		wantRefetch []string // paths that miss afterwards
	}{
		{name: "exact path", invalidate: []string{"/promo"}, wantRefetch: []string{"/promo"}},
		{name: "both spellings of an alias", invalidate: []string{"/promo", "/Promo"}, wantRefetch: []string{"/promo", "/Promo"}},
		{name: "prefix", invalidate: []string{"/abc*"}, wantRefetch: []string{"/abc1234", "/abc9999"}},
		{name: "everything", invalidate: []string{"/*"}, wantRefetch: paths},
		{name: "a path never cached", invalidate: []string{"/nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			rec := edgecache.NewRecorder(nil)
			rec.OnInvalidate(f.edge.Invalidate)
			for _, p := range paths {
				require.Equal(t, "Miss from cloudfront", f.do("GET", p).Header.Get("X-Cache"))
			}
			require.NoError(t, rec.Invalidate(context.Background(), tt.invalidate...))
			refetched := func() []string {
				var out []string
				for _, p := range paths {
					if f.do("GET", p).Header.Get("X-Cache") == "Miss from cloudfront" {
						out = append(out, p)
					}
				}
				return out
			}
			f.clock.Add(DefaultInvalidationDelay - time.Millisecond)
			assert.Empty(t, refetched(), "in progress: the edge still serves what it holds")
			assert.Zero(t, f.edge.Stats().Purged)
			f.clock.Add(time.Millisecond)
			assert.Equal(t, tt.wantRefetch, refetched(), "completed")
			assert.Equal(t, int64(len(tt.wantRefetch)), f.edge.Stats().Purged)
		})
	}
}

// TestInvalidationDelay: an invalidation completes InvalidationDelay after
// it was made, whatever the edge stored meanwhile, and a negative delay
// completes it at once.
func TestInvalidationDelay(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
		want  time.Duration // from Invalidate to the purge
	}{
		{name: "default", want: DefaultInvalidationDelay},
		{name: "long enough to matter for the 30 s promise", delay: 25 * time.Second, want: 25 * time.Second},
		{name: "at once", delay: -1, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{InvalidationDelay: tt.delay})
			require.Equal(t, "Miss from cloudfront", f.do("GET", "/slow123").Header.Get("X-Cache"))
			f.edge.Invalidate([]string{"/slow123"})
			if tt.want > 0 {
				f.clock.Add(tt.want - time.Millisecond)
				require.Equal(t, "Hit from cloudfront", f.do("GET", "/slow123").Header.Get("X-Cache"), "not yet complete")
				f.clock.Add(time.Millisecond)
			}
			assert.Equal(t, "Miss from cloudfront", f.do("GET", "/slow123").Header.Get("X-Cache"), "complete")
			assert.Equal(t, int64(1), f.edge.Stats().Purged)
		})
	}
}

// TestInvalidationDuringAFetch: a fetch that read the old answer before an
// invalidation must not store it after.
func TestInvalidationDuringAFetch(t *testing.T) {
	f := newFixture(t, Options{InvalidationDelay: -1}) // completes during the fetch
	f.origin.hold, f.origin.started = make(chan struct{}), make(chan struct{}, 1)
	done := make(chan *http.Response)
	go func() { done <- f.do("GET", "/racing1") }()
	<-f.origin.started
	f.edge.Invalidate([]string{"/racing1"})
	close(f.origin.hold)
	assert.Equal(t, "Miss from cloudfront", (<-done).Header.Get("X-Cache"))

	f.origin.mu.Lock()
	f.origin.hold, f.origin.started = nil, nil
	f.origin.mu.Unlock()
	assert.Equal(t, "Miss from cloudfront", f.do("GET", "/racing1").Header.Get("X-Cache"), "the overtaken answer was not kept")
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/racing1").Header.Get("X-Cache"))
}

func TestCacheIsBounded(t *testing.T) {
	f := newFixture(t, Options{MaxEntries: 64})
	for i := range 1000 {
		f.do("GET", fmt.Sprintf("/code%04d", i))
	}
	assert.LessOrEqual(t, f.edge.Stats().Entries, 64)
	assert.Equal(t, "Hit from cloudfront", f.do("GET", "/code0999").Header.Get("X-Cache"), "the most recent stays")
}

func TestBodiesOverTheCapAreNotKept(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 8})
	f.origin.set("/big0001", answer{status: 200, cc: "s-maxage=60", body: "0123456789"})
	f.do("GET", "/big0001")
	assert.Equal(t, "Miss from cloudfront", f.do("GET", "/big0001").Header.Get("X-Cache"))
}

func TestLogRecords(t *testing.T) {
	f := newFixture(t, Options{Country: "DE"})
	const ua = "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0"
	first := f.do("GET", "/Ab3dE5g?utm_source=news%20letter", "User-Agent", ua, "Referer", "https://news.example/item?id=1")
	f.clock.Add(1234 * time.Millisecond)
	second := f.do("HEAD", "/Ab3dE5g", "User-Agent", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", ViewerCountryHeader, "FR")
	f.origin.set("/missing", answer{status: 404, cc: "s-maxage=10"})
	f.do("GET", "/missing", ViewerCountryHeader, "not-a-country")
	f.do("POST", "/v1/links")
	f.do("GET", "/v1/links")

	recs := f.flushed(t)
	require.Len(t, recs, 3, "the /v1 behaviour has no real-time log")
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, clicklog.Record{
		Time: start, ClientIP: "192.0.2.77", Status: 302, Method: "GET", Host: "sho.rt", URI: "/Ab3dE5g?utm_source=news%20letter",
		RequestID: first.Header.Get("X-Amz-Cf-Id"), UserAgent: ua, Referer: "https://news.example/item?id=1",
		ResponseResultType: ResultMiss, ResultType: ResultMiss, Country: "DE",
	}, recs[0])
	assert.Equal(t, clicklog.Record{
		Time: start.Add(1234 * time.Millisecond), ClientIP: "192.0.2.77", Status: 302, Method: "HEAD", Host: "sho.rt", URI: "/Ab3dE5g",
		RequestID: second.Header.Get("X-Amz-Cf-Id"), UserAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		ResponseResultType: ResultHit, ResultType: ResultHit, Country: "FR",
	}, recs[1])
	assert.Equal(t, 404, recs[2].Status)
	assert.Equal(t, ResultError, recs[2].ResultType)
	assert.Equal(t, "DE", recs[2].Country, "a malformed country header is ignored")

	for _, r := range recs {
		line := clicklog.Format(r)
		// c-ip is logged, as CloudFront logs it, for the visitor hash; the
		// clicks function never stores it.
		assert.Equal(t, 1, strings.Count(string(line), "192.0.2.77"), "the client address once, as c-ip")
		back, err := clicklog.Parse(line)
		require.NoError(t, err)
		assert.Equal(t, r, back)
	}
	// The clicks function counts these two as clicks, the 404 as none.
	c, ok := clicklog.Classify(&recs[0])
	require.True(t, ok)
	assert.Equal(t, "Ab3dE5g", c.Code)
	assert.False(t, c.Bot)
	c, ok = clicklog.Classify(&recs[1])
	require.True(t, ok)
	assert.True(t, c.Bot)
	_, ok = clicklog.Classify(&recs[2])
	assert.False(t, ok)
}

func TestASlowSinkNeverDelaysARedirect(t *testing.T) {
	s := &sink{block: make(chan struct{})}
	f := newFixture(t, Options{Sink: s, LogBuffer: 4})
	start := time.Now()
	for range 50 {
		require.Equal(t, 302, f.do("GET", "/stuck01").StatusCode)
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	st := f.edge.Stats()
	// The batch taken by the blocked Write holds at most a buffer's worth,
	// and four more wait in the buffer.
	assert.GreaterOrEqual(t, st.Dropped, int64(50-2*4))
	close(s.block)
	require.NoError(t, f.edge.Close(context.Background()))
	st = f.edge.Stats()
	assert.Equal(t, int64(50), st.Records+st.Dropped)
	assert.Len(t, s.records(), int(st.Records))
}

func TestCloseDrainsAndStopsLogging(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 100 {
		f.do("GET", fmt.Sprintf("/c%06d", i%10))
	}
	recs := f.flushed(t)
	assert.Len(t, recs, 100)
	f.do("GET", "/after1")
	assert.Len(t, f.sink.records(), 100, "nothing is logged after Close")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.NoError(t, f.edge.Close(ctx), "a second Close returns at once")
}

// TestConcurrentHits runs hits, misses and invalidations at once; run it
// with -race.
func TestConcurrentHits(t *testing.T) {
	f := newFixture(t, Options{MaxEntries: 256, InvalidationDelay: -1})
	var wg sync.WaitGroup
	var bad atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				resp := f.do("GET", fmt.Sprintf("/hot%04d", (g*7+i)%40))
				if resp.StatusCode != 302 || !strings.HasPrefix(resp.Header.Get("Location"), "https://example.com/hot") {
					bad.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			f.edge.Invalidate([]string{fmt.Sprintf("/hot%04d", i%40), "/hot00*"})
		}
	})
	wg.Wait()
	assert.Zero(t, bad.Load())
	st := f.edge.Stats()
	assert.Equal(t, int64(2400), st.Hits+st.Misses)
	assert.Greater(t, st.Hits, st.Misses)
	assert.Len(t, f.flushed(t), 2400)
}

func TestRequestIDs(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{54}==$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewRequestID()
		require.Regexp(t, re, id)
		seen[id] = true
	}
	assert.Len(t, seen, 1000)
}

func TestAgeCountsWholeSeconds(t *testing.T) {
	f := newFixture(t, Options{})
	require.Equal(t, "Miss from cloudfront", f.do("GET", "/aged001").Header.Get("X-Cache"))
	for _, step := range []struct {
		advance time.Duration
		want    string
	}{
		{0, "0"}, {999 * time.Millisecond, "0"}, {time.Millisecond, "1"}, {0, "1"}, {1500 * time.Millisecond, "2"},
		{57 * time.Second, "59"},
	} {
		f.clock.Add(step.advance)
		resp := f.do("GET", "/aged001")
		assert.Equal(t, "Hit from cloudfront", resp.Header.Get("X-Cache"))
		assert.Equal(t, step.want, resp.Header.Get("Age"))
	}
}

// appender adds its value to the answer's headers as it is written, as a
// wrapper between the edge and the viewer might.
type appender struct {
	http.ResponseWriter
	value string
}

var appendedHeaders = []string{"Cache-Control", "Location", "Via", "X-Cache", "Age", "X-Amz-Cf-Pop"}

func (a appender) WriteHeader(status int) {
	for _, k := range appendedHeaders {
		a.Header().Add(k, a.value)
	}
	a.ResponseWriter.WriteHeader(status)
}

// TestHitsShareNothingWritable: hits answered at once, each adding to its
// own headers, see only their own additions, and the cached entry none
// (run it with -race too).
func TestHitsShareNothingWritable(t *testing.T) {
	f := newFixture(t, Options{})
	first := f.do("GET", "/shared1")
	var wg sync.WaitGroup
	var bad atomic.Int64
	for g := range 4 {
		wg.Go(func() {
			mine := fmt.Sprintf("added by %d", g)
			for range 200 {
				w := httptest.NewRecorder()
				f.edge.ServeHTTP(appender{ResponseWriter: w, value: mine}, httptest.NewRequest("GET", "http://sho.rt/shared1", nil))
				h := w.Result().Header
				for _, k := range appendedHeaders {
					if vs := h.Values(k); len(vs) != 2 || vs[1] != mine {
						bad.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	assert.Zero(t, bad.Load())
	resp := f.do("GET", "/shared1")
	assert.Equal(t, []string{"public, max-age=0, s-maxage=60"}, resp.Header.Values("Cache-Control"))
	assert.Equal(t, []string{"https://example.com/shared1"}, resp.Header.Values("Location"))
	assert.Equal(t, []string{"Hit from cloudfront"}, resp.Header.Values("X-Cache"))
	assert.Equal(t, []string{"0"}, resp.Header.Values("Age"))
	assert.Equal(t, []string{DefaultPOP}, resp.Header.Values("X-Amz-Cf-Pop"))
	assert.Equal(t, first.Header.Values("Via"), resp.Header.Values("Via"))
}

func TestViewerCountryKeyIsCanonical(t *testing.T) {
	assert.Equal(t, textproto.CanonicalMIMEHeaderKey(ViewerCountryHeader), viewerCountryKey)
}

func TestNewNeedsAnOrigin(t *testing.T) {
	_, err := New(Options{})
	assert.Error(t, err)
}

// TestHitsSayTheirContentLength: on the wire, through net/http, a hit
// answers with the Content-Length of its body, whether the edge sets it
// or net/http does, and never chunked.
func TestHitsSayTheirContentLength(t *testing.T) {
	f := newFixture(t, Options{})
	big := strings.Repeat("<p>a page past net/http's response buffer</p>\n", 120)
	require.Greater(t, len(big), bufferedBody)
	f.origin.set("/small01", answer{status: 200, cc: "s-maxage=30", body: "<h1>a page</h1>"})
	f.origin.set("/large01", answer{status: 200, cc: "s-maxage=30", body: big})
	srv := httptest.NewServer(f.edge)
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		method, path string
		want         int
	}{
		{"GET", "/redir01", 0}, // the origin's 302, no body
		{"HEAD", "/redir01", 0},
		{"GET", "/small01", 15},
		{"HEAD", "/small01", 15},
		{"GET", "/large01", len(big)},
		{"HEAD", "/large01", len(big)},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			for _, want := range []string{"Miss from cloudfront", "Hit from cloudfront"} {
				if tt.method == "HEAD" {
					want = "Hit from cloudfront" // the GET before it filled the cache
				}
				req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
				require.NoError(t, err)
				resp, err := client.Do(req)
				require.NoError(t, err)
				n, err := io.Copy(io.Discard, resp.Body)
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, want, resp.Header.Get("X-Cache"))
				assert.Equal(t, strconv.Itoa(tt.want), resp.Header.Get("Content-Length"))
				assert.Empty(t, resp.TransferEncoding)
				if tt.method == "GET" {
					assert.Equal(t, int64(tt.want), n)
				}
			}
		})
	}
}

func TestPercentEncodedRedirectPathsAreRefusedBeforeTheCache(t *testing.T) {
	f := newFixture(t, Options{})
	for _, path := range []string{"/%61bc1234", "/abc123%34", "/%2561bc1234", "/ab%20cd"} {
		resp := f.do("GET", path)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, path)
		assert.Equal(t, "Error from cloudfront", resp.Header.Get("X-Cache"), path)
		assert.Equal(t, NonCanonicalPathBody, body(t, resp), path)
		assert.Empty(t, resp.Header.Get("Location"), path)
	}
	again := f.do("GET", "/%61bc1234")
	assert.Equal(t, http.StatusBadRequest, again.StatusCode, "never cached as a redirect")
	// The origin counts requests by decoded path.
	assert.Zero(t, f.origin.count("/abc1234"), "a spelling reached the origin")
	assert.Zero(t, f.origin.count("/%61bc1234"))
	assert.Zero(t, f.origin.count("/ab cd"))

	canonical := f.do("GET", "/abc1234")
	assert.Equal(t, http.StatusFound, canonical.StatusCode)
	assert.Equal(t, 1, f.origin.count("/abc1234"))
	recs := f.flushed(t)
	require.Len(t, recs, 6)
	assert.Equal(t, 400, recs[0].Status)
	assert.Equal(t, ResultError, recs[0].ResultType)
	assert.Equal(t, 302, recs[5].Status)
}
