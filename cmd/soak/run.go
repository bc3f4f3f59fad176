package main

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localrun"
	"github.com/shortlink-dev/shortener/internal/pace"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	shconfig "github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

const (
	apiKey = "soak-key"
	owner  = "soak-owner"
)

// summary is what the soak found; line formats it.
type summary struct {
	start, trafficEnd, end  time.Time
	t                       *tally
	links, deleted, expired int
	liveOK, live            int // final: live links that redirected to their latest target
	deadOK, dead            int // final: dead links that answered 410
	clicksSent              int64
	clicksCounted           int64
	clickLinksOK            int // links whose analytics total equals the clicks they received
	statsOK, statsChecked   int // live links whose stats API total equals them
	// edgeDropped are the real-time log records the edge dropped, its
	// buffer full (GET /_local/edge): clicks the pipeline never saw; -1
	// when unknown.
	edgeDropped int64
	// costs are what the traffic measured of the cost model's inputs;
	// nil when the local run could not say.
	costs *costFigures
	err   error
}

func (s *summary) passed() bool {
	t := s.t
	return s.err == nil && t != nil && t.serverErrors.Load() == 0 && t.transport.Load() == 0 &&
		t.unexpected.Load() == 0 && t.ttlGap.Load() == 0 && t.stale.Load() == 0 && s.liveOK == s.live && s.deadOK == s.dead && s.live+s.dead == s.links &&
		s.clickLinksOK == s.links && s.statsOK == s.statsChecked && s.clicksSent == s.clicksCounted && s.links > 0
}

func (s *summary) line() string {
	verdict := "PASS"
	if !s.passed() {
		verdict = "FAIL"
	}
	if s.t == nil {
		return fmt.Sprintf("soak %s after %s: %v", verdict, time.Since(s.start).Round(time.Second), s.err)
	}
	t := s.t
	traffic := s.trafficEnd.Sub(s.start)
	requests := t.status[1].Load() + t.status[2].Load() + t.status[3].Load() + t.status[4].Load() + t.status[5].Load()
	return fmt.Sprintf("soak %s in %s (traffic %s): %d requests (%d creates, %d redirects of which %d HEAD, %d edits, %d deletes, %d stats reads), "+
		"%d 5xx, %d without answer, %d unexpected, %d 404 for just-expired links, %d stale past 30 s; links %d (%d deleted, %d expired): "+
		"%d/%d live redirect to their latest target, %d/%d dead answer 410; clicks %d received, %d counted, %d/%d links match, stats API %d/%d; "+
		"edge log records dropped %d",
		verdict, s.end.Sub(s.start).Round(time.Second), traffic.Round(time.Second), requests,
		t.creates.Load(), t.redirects.Load(), t.heads.Load(), t.edits.Load(), t.deletes.Load(), t.stats.Load(),
		t.serverErrors.Load(), t.transport.Load(), t.unexpected.Load(), t.ttlGap.Load(), t.stale.Load(),
		s.links, s.deleted, s.expired, s.liveOK, s.live, s.deadOK, s.dead,
		s.clicksSent, s.clicksCounted, s.clickLinksOK, s.links, s.statsOK, s.statsChecked, s.edgeDropped)
}

func run(ctx context.Context, c config) (sum *summary, err error) {
	sum = &summary{start: time.Now(), edgeDropped: -1}
	defer func() {
		sum.end = time.Now()
		sum.err = err
		if sum.t != nil {
			if f := sum.t.failureLines(); f != "" {
				fmt.Fprintln(os.Stderr, "soak: first failures:\n"+f)
			}
		}
	}()
	deadline := sum.start.Add(c.duration)

	bin := c.binary
	if bin == "" {
		dir, err := os.MkdirTemp("", "soak-")
		if err != nil {
			return sum, err
		}
		defer os.RemoveAll(dir)
		if bin, err = localrun.Build(ctx, dir); err != nil {
			return sum, err
		}
	}
	suffix := randomHex(4)
	links := "soak-links-" + suffix
	analytics := "soak-analytics-" + suffix
	clickLayout := cmp.Or(os.Getenv("SHORTENER_CLICK_STORE"), shconfig.ClickStorePacked)
	var logw io.Writer
	if c.verbose {
		logw = os.Stderr
	}
	lr, err := localrun.Start(ctx, bin, map[string]string{
		"SHORTENER_API_KEYS": apiKey + "=" + owner,
		// One key makes every /v1 call: a usage plan above -rate, not the
		// default plan's 100/s per key.
		"SHORTENER_API_RATE_LIMIT":  "1000000",
		"SHORTENER_API_BURST_LIMIT": "1000000",
		"LINKS_TABLE":               links,
		"IDEMPOTENCY_TABLE":         "soak-idem-" + suffix,
		"ANALYTICS_TABLE":           analytics,
		"CLICKS_STREAM":             "soak-clicks-" + suffix,
		// The analytics layout under test: the default, or the one
		// SHORTENER_CLICK_STORE names (make soak passes it through).
		"SHORTENER_CLICK_STORE": clickLayout,
	}, logw, 3*time.Minute)
	if err != nil {
		return sum, err
	}
	defer func() {
		if serr := lr.Stop(); serr != nil && err == nil {
			err = fmt.Errorf("the local run failed at shutdown: %w", serr)
		}
	}()
	sum.trafficEnd = deadline.Add(-checkReserve)
	if time.Until(sum.trafficEnd) < 20*time.Second {
		return sum, fmt.Errorf("%s leaves %s of traffic after the start: set a longer SOAK_DURATION",
			c.duration, time.Until(sum.trafficEnd).Round(time.Second))
	}
	if c.verbose {
		fmt.Fprintf(os.Stderr, "soak: local run %s ready after %s; traffic until %s, then checks\n",
			lr.Origin, time.Since(sum.start).Round(time.Second), sum.trafficEnd.Format(time.TimeOnly))
	}

	s := &soaker{
		origin: lr.Origin,
		client: &http.Client{
			Transport:     &http.Transport{MaxIdleConnsPerHost: 64},
			Timeout:       15 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		reg: newRegistry(c.workers),
		t:   &tally{},
	}
	sum.t = s.t
	s.traffic(ctx, c, sum.trafficEnd)
	if err := ctx.Err(); err != nil {
		return sum, err
	}

	// The freshness promise, then the verdict on every link.
	if last := time.Unix(0, s.t.lastChange.Load()); time.Until(last.Add(freshness)) > 0 {
		pace.Sleep(ctx, time.Until(last.Add(freshness)))
	}
	s.final(ctx, sum)
	// The clicks the final redirects made are counted too.
	store, _ := fnstores.ClickStore(emulator.NewDynamoDBClient(lr.DynamoDB), clickLayout, analytics, 0)
	s.clicks(ctx, sum, store, deadline.Add(-5*time.Second))
	sum.edgeDropped = s.edgeDropped(ctx)
	if f, err := s.costFigures(ctx, links); err == nil {
		f.Changes = s.t.changes.Load()
		f.StatsAnswers = s.t.stats.Load() + int64(sum.statsChecked)
		sum.costs = &f
	} else {
		fmt.Fprintln(os.Stderr, "soak: the cost figures:", err)
	}
	return sum, ctx.Err()
}

// edgeDropped reads the count of real-time log records the local edge
// dropped from the local run's GET /_local/edge; -1 when it cannot.
func (s *soaker) edgeDropped(ctx context.Context) int64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.origin+"/_local/edge", nil)
	if err != nil {
		return -1
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var st struct {
		Dropped int64 `json:"dropped"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil {
		return -1
	}
	return st.Dropped
}

// soaker sends the traffic and keeps the state.
type soaker struct {
	origin string
	client *http.Client
	reg    *registry
	t      *tally
	serial atomic.Int64
}

// traffic runs the workers at c.rate operations a second until end.
func (s *soaker) traffic(ctx context.Context, c config, end time.Time) {
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	tokens := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / c.rate))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				close(tokens)
				return
			case <-tick.C:
				select {
				case tokens <- struct{}{}:
				default: // the workers are behind: skip, do not pile up
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range c.workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for range tokens {
				s.op(ctx, w, rng)
			}
		})
	}
	wg.Wait()
}

// op does one operation, chosen at random.
func (s *soaker) op(ctx context.Context, w int, rng *rand.Rand) {
	now := time.Now()
	r := rng.Float64()
	switch {
	case r < 0.07:
		s.create(ctx, w, rng)
	case r < 0.82:
		if l := s.reg.random(rng); l != nil {
			s.redirect(ctx, l, rng.IntN(10) == 0, true)
		} else {
			s.create(ctx, w, rng)
		}
	case r < 0.95:
		if l := s.reg.editable(w, rng, now); l != nil {
			s.edit(ctx, l, rng)
		}
	case r < 0.98:
		if l := s.reg.editable(w, rng, now); l != nil {
			s.delete(ctx, l)
		}
	default:
		if l := s.reg.editable(w, rng, now); l != nil {
			s.readStats(ctx, l)
		}
	}
}

// do sends a request with the API key when withKey, and returns the status,
// the headers and the body; 0 when there was no answer.
func (s *soaker) do(ctx context.Context, method, path string, body any, withKey bool) (int, http.Header, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.origin+path, rd)
	if err != nil {
		s.t.fail("%s %s: %v", method, path, err)
		return 0, nil, nil
	}
	if withKey {
		req.Header.Set("x-api-key", apiKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			s.t.transport.Add(1)
			s.t.fail("%s %s: %v", method, path, err)
		}
		return 0, nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s.t.answered(resp.StatusCode)
	if resp.StatusCode >= 500 {
		s.t.fail("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, b
}

func (s *soaker) create(ctx context.Context, w int, rng *rand.Rand) {
	n := s.serial.Add(1)
	req := map[string]any{"url": fmt.Sprintf("https://example.com/soak/%d/%d?v=0", w, n)}
	if rng.IntN(10) < 3 {
		req["ttl_seconds"] = 20 + rng.IntN(60) // expires during the run
	}
	status, _, body := s.do(ctx, http.MethodPost, "/v1/links", req, true)
	if status == 0 {
		return
	}
	s.t.creates.Add(1)
	if status != http.StatusCreated {
		if status < 500 {
			s.t.unexpected.Add(1)
			s.t.fail("POST /v1/links: %d %s", status, body)
		}
		return
	}
	var out struct {
		Code      string    `json:"code"`
		URL       string    `json:"url"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Code == "" {
		s.t.unexpected.Add(1)
		s.t.fail("POST /v1/links: answer %s: %v", body, err)
		return
	}
	now := time.Now()
	s.reg.add(&linkState{code: out.Code, worker: w, url: out.URL, expires: out.ExpiresAt, changed: now})
	s.t.changedAt(now)
}

// redirect GETs (or HEADs) a link through the edge and counts its clicks;
// with judge, an answer for a settled link must be right.
func (s *soaker) redirect(ctx context.Context, l *linkState, head, judge bool) (status int, location string) {
	before := l.view()
	sent := time.Now()
	method := http.MethodGet
	if head {
		method = http.MethodHead
		s.t.heads.Add(1)
	}
	s.t.redirects.Add(1)
	status, h, _ := s.do(ctx, method, "/"+l.code, nil, false)
	if status == 0 {
		return 0, ""
	}
	location = h.Get("Location")
	redirected := status == http.StatusFound || status == http.StatusMovedPermanently ||
		status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect
	if redirected {
		l.clicks.Add(1) // the edge logged it; the click pipeline must count it
	}
	switch {
	case status == http.StatusNotFound && !before.deleted && !sent.Before(before.expires):
		// An expired code must never be unknown: the reclaim run
		// tombstones it in place, and TTL (a day later) is only the
		// backstop. A 404 here means the code was absent, as it was
		// between a TTL deletion and ttlstream's tombstone before the
		// expiry step existed; the 404 is then cached (edge and redirect,
		// 10 s). docs/api.md promises 410.
		s.t.ttlGap.Add(1)
		s.t.fail("%s /%s: 404 (%s): an expired code was absent", method, l.code, before.describe(sent))
	case !redirected && status != http.StatusGone && status < 500:
		s.t.unexpected.Add(1)
		s.t.fail("%s /%s: %d (%s)", method, l.code, status, before.describe(sent))
	case !judge || status >= 500:
	case l.view() != before || !before.settled(sent):
		// Changed during the request, or too recently to judge.
	case before.dead(sent) && status != http.StatusGone:
		s.t.stale.Add(1)
		s.t.fail("%s /%s: %d %s, but it is dead since %s", method, l.code, status, location, before.changed.Format(time.TimeOnly))
	case !before.dead(sent) && (!redirected || location != before.url):
		s.t.stale.Add(1)
		s.t.fail("%s /%s: %d %q, want %q (changed %s)", method, l.code, status, location, before.url, before.changed.Format(time.TimeOnly))
	}
	return status, location
}

func (s *soaker) edit(ctx context.Context, l *linkState, rng *rand.Rand) {
	url := fmt.Sprintf("https://example.com/soak/%s?v=%d", l.code, rng.Uint32())
	s.change(ctx, l, http.MethodPatch, map[string]any{"url": url}, http.StatusOK, &s.t.edits, func() { l.url = url })
}

func (s *soaker) delete(ctx context.Context, l *linkState) {
	s.change(ctx, l, http.MethodDelete, nil, http.StatusNoContent, &s.t.deletes, func() { l.deleted = true })
}

// change sends an edit or delete of l, counted in sent, and when it
// answers want applies it to l under its lock; a 5xx or no answer leaves
// the outcome to resync.
func (s *soaker) change(ctx context.Context, l *linkState, method string, body any, want int, sent *atomic.Int64, apply func()) {
	l.changing()
	status, _, answer := s.do(ctx, method, "/v1/links/"+l.code, body, true)
	sent.Add(1)
	if status == 0 || status >= 500 {
		s.resync(ctx, l) // it may have happened all the same
		return
	}
	if status != want {
		s.t.unexpected.Add(1)
		s.t.fail("%s /v1/links/%s: %d %s", method, l.code, status, answer)
		return
	}
	now := time.Now()
	l.mu.Lock()
	apply()
	l.changed = now
	l.mu.Unlock()
	s.t.changes.Add(1)
	s.t.changedAt(now)
}

// resync learns a link's state from the management API after a change
// whose answer was a 5xx or never came: the change may or may not have
// happened (it is the server's failure all the same, counted as such).
// The link is treated as changed now, so it is judged only 30 s on.
func (s *soaker) resync(ctx context.Context, l *linkState) {
	// The change may have been cut off by the end of the traffic phase
	// (an edit or delete answers only after its edge invalidation is
	// sent, seconds after the write): learning its outcome must outlive
	// that, or the final checks would judge the link by a stale record.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for attempt := 0; ctx.Err() == nil && attempt < 20; attempt++ {
		status, _, body := s.do(ctx, http.MethodGet, "/v1/links/"+l.code, nil, true)
		now := time.Now()
		switch status {
		case http.StatusOK:
			var out struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(body, &out); err != nil || out.URL == "" {
				s.t.unexpected.Add(1)
				s.t.fail("GET /v1/links/%s: %s: %v", l.code, body, err)
				return
			}
			l.mu.Lock()
			l.url, l.changed = out.URL, now
			l.mu.Unlock()
			s.t.changedAt(now)
			return
		case http.StatusNotFound: // deleted: a tombstone is no one's link
			l.mu.Lock()
			l.deleted, l.changed = true, now
			l.mu.Unlock()
			s.t.changedAt(now)
			return
		case 0:
		default:
			if status < 500 {
				s.t.unexpected.Add(1)
				s.t.fail("GET /v1/links/%s: %d %s", l.code, status, body)
				return
			}
		}
		pace.Sleep(ctx, 500*time.Millisecond)
	}
	s.t.fail("could not learn the state of %s", l.code)
}

// readStats reads a live link's stats, as an owner does.
func (s *soaker) readStats(ctx context.Context, l *linkState) {
	status, _, body := s.do(ctx, http.MethodGet, "/v1/links/"+l.code+"/stats", nil, true)
	if status == 0 {
		return
	}
	s.t.stats.Add(1)
	if status != http.StatusOK && status < 500 && !l.view().dead(time.Now()) {
		s.t.unexpected.Add(1)
		s.t.fail("GET /v1/links/%s/stats: %d %s", l.code, status, body)
	}
}

// final redirects every link once more and judges every answer: all are
// settled now, but for links expiring this very moment, which are asked
// again once their expiry is clear.
func (s *soaker) final(ctx context.Context, sum *summary) {
	links := s.reg.snapshot()
	sum.links = len(links)
	var mu sync.Mutex
	var again []*linkState
	judge := func(l *linkState) {
		v := l.view()
		now := time.Now()
		if !v.settled(now) {
			mu.Lock()
			again = append(again, l)
			mu.Unlock()
			return
		}
		status, location := s.redirect(ctx, l, false, false)
		mu.Lock()
		defer mu.Unlock()
		if v.dead(now) {
			sum.dead++
			if v.deleted {
				sum.deleted++
			} else {
				sum.expired++
			}
			if status == http.StatusGone {
				sum.deadOK++
			} else {
				s.t.fail("final: /%s answered %d %s, want 410", l.code, status, location)
			}
			return
		}
		sum.live++
		if status == http.StatusFound && location == v.url {
			sum.liveOK++
		} else {
			s.t.fail("final: /%s answered %d %q, want 302 %q", l.code, status, location, v.url)
		}
	}
	parallel(links, 8, judge)
	if len(again) > 0 {
		// They were within two seconds of their expiry: five seconds on,
		// they are past it.
		pace.Sleep(ctx, 5*time.Second)
		pending := again
		again = nil
		parallel(pending, 8, judge)
		for _, l := range again {
			s.t.fail("final: /%s could not be judged", l.code)
		}
	}
}

// clicks compares each link's click total with the redirects it answered:
// from the analytics table for every link, until they match or until
// deadline, then from the stats API for the live ones.
func (s *soaker) clicks(ctx context.Context, sum *summary, store clickstore.Store, deadline time.Time) {
	links := s.reg.snapshot()
	from := sum.start.UTC().Truncate(24 * time.Hour)
	to := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	counted := make([]int64, len(links))
	for {
		var mu sync.Mutex
		var total int64
		ok := 0
		parallel(indexes(len(links)), 8, func(i int) {
			points, err := store.Series(ctx, links[i].code, clickstore.Day, from, to)
			if err != nil {
				s.t.fail("analytics of %s: %v", links[i].code, err)
				return
			}
			var n int64
			for _, p := range points {
				n += p.Total
			}
			mu.Lock()
			defer mu.Unlock()
			counted[i], total = n, total+n
			if n == links[i].clicks.Load() {
				ok++
			}
		})
		sum.clicksCounted, sum.clickLinksOK = total, ok
		if ok == len(links) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		pace.Sleep(ctx, 2*time.Second)
	}
	sum.clicksSent = 0
	for i, l := range links {
		sum.clicksSent += l.clicks.Load()
		if counted[i] != l.clicks.Load() {
			s.t.fail("clicks of %s: %d received, %d counted", l.code, l.clicks.Load(), counted[i])
		}
	}
	// The owner's view: the stats API, for every link it still shows.
	var mu sync.Mutex
	parallel(links, 8, func(l *linkState) {
		if l.view().dead(time.Now()) {
			return // a tombstone's stats are gone from the API (404)
		}
		status, _, body := s.do(ctx, http.MethodGet, "/v1/links/"+l.code+"/stats", nil, true)
		var out struct {
			Totals struct {
				Total int64 `json:"total"`
			} `json:"totals"`
		}
		err := json.Unmarshal(body, &out)
		mu.Lock()
		defer mu.Unlock()
		sum.statsChecked++
		if status == http.StatusOK && err == nil && out.Totals.Total == l.clicks.Load() {
			sum.statsOK++
			return
		}
		s.t.fail("stats of %s: %d %s, want total %d", l.code, status, body, l.clicks.Load())
	})
}

func parallel[T any](items []T, n int, f func(T)) {
	work := make(chan T)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for it := range work {
				f(it)
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}
