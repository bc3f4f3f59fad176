package freshnesstest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/internal/fakeclock"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

var start = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

const (
	apiKey = "race-key"
	owner  = "race-owner"
	// promise is how soon a change must show on every path
	// (docs/lifecycle.md, "6. How fast a change shows").
	promise = 30 * time.Second
)

// system is the local run's request path with one fake clock.
type system struct {
	// duringSettle, when set, runs once while manage waits out its
	// settle time, a quarter of the way in: the hook that lets a test
	// serve a request between the write and the invalidation.
	duringSettle func()
	// afterRead, when set, runs once right after the redirect's next
	// read of the store, before it answers: the hook that lets a test
	// write between a redirect's read and the edge storing its answer.
	afterRead func()
	clock     *fakeclock.Clock
	store     *linkstore.Memory
	edge      *localedge.Edge
	// invalidations are every invalidation the API sent.
	invalidations *edgecache.Recorder
	// marks is the one Region's edge marks table the redirect writes and
	// the API reads.
	marks *edgemarks.Memory
	cfg   config.Config
}

// hookedStore is the store as the redirect reads it, running
// system.afterRead after a read.
type hookedStore struct{ s *system }

func (h hookedStore) Get(ctx context.Context, code string) (link.Link, error) {
	l, err := h.s.store.Get(ctx, code)
	if hook := h.s.afterRead; hook != nil {
		h.s.afterRead = nil
		hook()
	}
	return l, err
}

// newSystem wires the local run with invalidations that complete delay
// after they are made (at once when negative).
func newSystem(t *testing.T, delay time.Duration) *system {
	t.Helper()
	clock := fakeclock.New(start)
	cfg, err := config.Load(func(name string) string {
		return map[string]string{"SHORTENER_BASE_URL": "https://sho.rt"}[name]
	})
	require.NoError(t, err)
	store := linkstore.NewMemory(clock.Now)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	invalidations := edgecache.NewRecorder(clock.Now)
	marks := edgemarks.NewMemory()
	s := &system{clock: clock, store: store, cfg: cfg, marks: marks, invalidations: invalidations}
	redirect := redirectfn.New(redirectfn.Options{Store: hookedStore{s}, Config: cfg, Now: clock.Now,
		Log: log, Metrics: metrics.New(io.Discard, "Shortener", "redirect"), Marks: marks})
	// The API's settle time before it invalidates passes on the fake clock.
	settle := func(d time.Duration) {
		hook := s.duringSettle
		s.duringSettle = nil
		if hook == nil {
			clock.Add(d)
			return
		}
		clock.Add(d / 4)
		hook()
		clock.Add(d - d/4)
	}
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{apiKey: owner}), apikey.ResolverOptions{})
	manage := managefn.New(managefn.Options{Store: store, Edge: invalidations, Config: cfg, Now: clock.Now, Sleep: settle,
		Log: log, Metrics: metrics.New(io.Discard, "Shortener", "manage"), Owners: owners,
		Marks: &edgemarks.Check{Regions: []edgemarks.Reader{marks}}})
	// create invalidates nothing: it is given no edge.
	create, err := createfn.New(createfn.Options{Store: store, Config: cfg, Now: clock.Now,
		Log: log, Metrics: metrics.New(io.Discard, "Shortener", "create"), Owners: owners})
	require.NoError(t, err)
	gw, err := localgw.New(localgw.Options{
		Routes:  localgw.Routes(localgw.Handlers{Create: create.Handle, Redirect: redirect.Handle, Manage: manage.Handle, Batch: create.Handle, QR: manage.Handle}),
		APIKeys: localgw.StaticKeys(apiKey),
		Log:     log,
	})
	require.NoError(t, err)
	edge, err := localedge.New(localedge.Options{Origin: gw, Now: clock.Now, Log: log,
		InvalidationDelay: delay, AfterFunc: clock.AfterFunc})
	require.NoError(t, err)
	invalidations.OnInvalidate(edge.Invalidate)
	s.edge = edge
	return s
}

// answer is what a viewer got for a short link.
type answer struct {
	at       time.Time
	status   int
	location string
	xCache   string
	// edgeLife is how long the edge may keep the answer (s-maxage) from
	// when it stored it, Age ago; zero for no-store or none.
	edgeLife, age time.Duration
}

func (s *system) get(t *testing.T, path string) answer {
	t.Helper()
	rec := httptest.NewRecorder()
	s.edge.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return answer{at: s.clock.Now(), status: rec.Code, location: rec.Header().Get("Location"),
		xCache: rec.Header().Get("X-Cache"), edgeLife: sMaxAge(rec.Header().Get("Cache-Control")), age: seconds(rec.Header().Get("Age"))}
}

func (s *system) api(t *testing.T, method, path, body string) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("x-api-key", apiKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.edge.ServeHTTP(rec, req)
	require.Less(t, rec.Code, 300, "%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	return rec.Code
}

func seconds(v string) time.Duration {
	n, _ := strconv.Atoi(v)
	return time.Duration(n) * time.Second
}

func sMaxAge(cc string) time.Duration {
	for d := range strings.SplitSeq(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(d), "s-maxage="); ok {
			n, _ := strconv.Atoi(v)
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

// seedOldLink stores a link created an hour ago, past the new-link window,
// so the redirect offers it the full edge TTL.
func (s *system) seedOldLink(t *testing.T, code, url string) {
	t.Helper()
	created := start.Add(-time.Hour)
	require.NoError(t, s.store.Create(context.Background(), link.Link{Code: code, Owner: owner, URL: url,
		CreatedAt: created, UpdatedAt: created, ExpiresAt: start.Add(365 * 24 * time.Hour),
		Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
}

// delays are the local edge's invalidation times the races run with: at
// once (the worst case for the race: nothing but the design keeps an old
// answer out), the local run's default, and long enough to use most of the
// 30 s. A change made 2xx shows within 30 s plus the invalidation's own
// time on AWS; locally the invalidation time is part of the 30 s.
var delays = []struct {
	name  string
	delay time.Duration
}{
	{"invalidation completes at once", -1},
	{"invalidation takes the default 5s", 0},
	{"invalidation takes 28s", 28 * time.Second},
}

// eachDelay runs test once for each of the invalidation delays, with a
// system of its own.
func eachDelay(t *testing.T, test func(t *testing.T, s *system)) {
	for _, d := range delays {
		t.Run(d.name, func(t *testing.T) { test(t, newSystem(t, d.delay)) })
	}
}

// TestDeleteRacesAnInProcessEntry drives the first race: the
// redirect loads the link, the owner deletes it a moment later and the
// edge's copy is invalidated, and the next edge miss is answered from the
// entry loaded before the delete. That answer must not outlive the
// promise at the edge: 30 s after the DELETE's 204, every GET is 410.
func TestDeleteRacesAnInProcessEntry(t *testing.T) {
	eachDelay(t, func(t *testing.T, s *system) {
		s.seedOldLink(t, "aB3dE5f", "https://example.com/old")

		first := s.get(t, "/aB3dE5f") // loads the entry; the edge keeps the answer
		require.Equal(t, 302, first.status)
		require.Equal(t, "https://example.com/old", first.location)

		s.clock.Add(100 * time.Millisecond)
		// A click while the delete is between its write and its
		// invalidation, within FreshRead of the load.
		s.duringSettle = func() { s.get(t, "/aB3dE5f") }
		s.api(t, http.MethodDelete, "/v1/links/aB3dE5f", "")
		deleted := s.clock.Now() // the 204
		s.clock.Add(100 * time.Millisecond)

		assert.Empty(t, s.watch(t, "/aB3dE5f", deleted, promise, func(a answer) bool { return a.status == http.StatusGone }))
	})
}

// TestPatchRacesAnInProcessEntry is the same race for an edit: 30 s after
// the PATCH's 200, every GET redirects to the new target.
func TestPatchRacesAnInProcessEntry(t *testing.T) {
	eachDelay(t, func(t *testing.T, s *system) {
		s.seedOldLink(t, "aB3dE5f", "https://example.com/old")

		require.Equal(t, "https://example.com/old", s.get(t, "/aB3dE5f").location)
		s.clock.Add(100 * time.Millisecond)
		s.duringSettle = func() { s.get(t, "/aB3dE5f") }
		s.api(t, http.MethodPatch, "/v1/links/aB3dE5f", `{"url":"https://example.com/new"}`)
		patched := s.clock.Now()
		s.clock.Add(100 * time.Millisecond)

		assert.Empty(t, s.watch(t, "/aB3dE5f", patched, promise, func(a answer) bool {
			return a.status == 302 && a.location == "https://example.com/new"
		}))
	})
}

// TestUnrequestedChangesSendNoInvalidation: a link no viewer asked for is
// edited and deleted: no edge can hold it, so the API sends no
// invalidation (and pays for none), and every answer shows the new state.
// A click during the delete's settle time reads the tombstone, which is
// no old answer: the delete, which fenced and read the marks when it was
// saved (shared/edgemarks), invalidates nothing for it, and the 410 shows
// at once.
func TestUnrequestedChangesSendNoInvalidation(t *testing.T) {
	eachDelay(t, func(t *testing.T, s *system) {
		s.seedOldLink(t, "aB3dE5f", "https://example.com/old")
		s.seedOldLink(t, "never00", "https://example.com/never")

		s.api(t, http.MethodPatch, "/v1/links/aB3dE5f", `{"url":"https://example.com/new"}`)
		assert.Empty(t, s.invalidations.Invalidations(), "nothing held: nothing invalidated")
		assert.Empty(t, s.stale(t, "/aB3dE5f", func(a answer) bool {
			return a.status == 302 && a.location == "https://example.com/new"
		}), "the new target at once")

		s.api(t, http.MethodDelete, "/v1/links/aB3dE5f", "")
		assert.Equal(t, []string{"/aB3dE5f"}, s.invalidations.Paths(),
			"the clicks after the PATCH made the edge hold it: the DELETE invalidates")

		s.api(t, http.MethodDelete, "/v1/links/never00", "")
		assert.Equal(t, []string{"/aB3dE5f"}, s.invalidations.Paths(), "a link nobody asked for is deleted without one")
		assert.Empty(t, s.stale(t, "/never00", func(a answer) bool { return a.status == http.StatusGone }), "410 at once")

		s.seedOldLink(t, "raced01", "https://example.com/raced")
		s.duringSettle = func() { s.get(t, "/raced01") }
		s.api(t, http.MethodDelete, "/v1/links/raced01", "")
		deleted := s.clock.Now()
		assert.Equal(t, []string{"/aB3dE5f"}, s.invalidations.Paths(), "the click during the settle time read the tombstone: nothing old to remove")
		assert.Empty(t, s.watch(t, "/raced01", deleted, promise, func(a answer) bool { return a.status == http.StatusGone }))
	})
}

// TestRequestedLinkIsInvalidated: a link the edge holds for a day is
// deleted; its mark makes the API invalidate it, and every GET answers 410
// within the promise.
func TestRequestedLinkIsInvalidated(t *testing.T) {
	eachDelay(t, func(t *testing.T, s *system) {
		s.seedOldLink(t, "aB3dE5f", "https://example.com/old")
		first := s.get(t, "/aB3dE5f")
		require.Equal(t, 24*time.Hour, first.edgeLife, "the edge keeps it a day")
		s.clock.Add(time.Hour) // long after: only the mark remembers the edge holds it
		require.Equal(t, "Hit from cloudfront", s.get(t, "/aB3dE5f").xCache)

		s.api(t, http.MethodDelete, "/v1/links/aB3dE5f", "")
		deleted := s.clock.Now()
		assert.Equal(t, []string{"/aB3dE5f"}, s.invalidations.Paths())
		assert.Empty(t, s.watch(t, "/aB3dE5f", deleted, promise, func(a answer) bool { return a.status == http.StatusGone }))
	})
}

// TestThePromiseCanFail checks the watch itself: with invalidations that
// take longer than the promise, the edge's first copy outlives it, and the
// watch says so.
func TestThePromiseCanFail(t *testing.T) {
	s := newSystem(t, promise+time.Second)
	s.seedOldLink(t, "aB3dE5f", "https://example.com/old")
	s.get(t, "/aB3dE5f")
	s.api(t, http.MethodDelete, "/v1/links/aB3dE5f", "")
	deleted := s.clock.Now()

	got := s.watch(t, "/aB3dE5f", deleted, promise, func(a answer) bool { return a.status == http.StatusGone })
	assert.Contains(t, got, "at +30s: 302 https://example.com/old (Hit from cloudfront")
}

// watch GETs path every 250 ms until twice the promise after changed,
// and returns the first answer that breaks it: one that is not current at
// or after changed+promise. An old answer the edge stored for long after
// its invalidation completed shows there. Empty: the promise held.
func (s *system) watch(t *testing.T, path string, changed time.Time, promise time.Duration, current func(answer) bool) string {
	t.Helper()
	for s.clock.Now().Before(changed.Add(2 * promise)) {
		a := s.get(t, path)
		if !current(a) && !a.at.Before(changed.Add(promise)) {
			return fmt.Sprintf("at +%s: %d %s (%s, Age %s, s-maxage %s)",
				a.at.Sub(changed), a.status, a.location, a.xCache, a.age, a.edgeLife)
		}
		s.clock.Add(250 * time.Millisecond)
	}
	return ""
}

// newAliasBound is how soon a new alias must redirect everywhere after
// its 201, with no invalidation (docs/lifecycle.md, section 6): a 404 the
// edge holds was built from a read before the create, reached the edge
// within FreshRead of that read (t, its way there, is nil locally), and
// is kept the larger of its s-maxage (at most the negative-cache TTL) and
// the error caching minimum.
func (s *system) newAliasBound() time.Duration {
	return max(s.cfg.NegativeCacheTTL, localedge.DefaultErrorCachingMinTTL) + config.FreshRead
}

// stale GETs path every 250 ms for twice the promise from now and returns
// the first answer that is not current; empty when every one was.
func (s *system) stale(t *testing.T, path string, current func(answer) bool) string {
	t.Helper()
	for end := s.clock.Now().Add(2 * promise); s.clock.Now().Before(end); s.clock.Add(250 * time.Millisecond) {
		if a := s.get(t, path); !current(a) {
			return fmt.Sprintf("%d %s (%s, Age %s, s-maxage %s)", a.status, a.location, a.xCache, a.age, a.edgeLife)
		}
	}
	return ""
}

// TestNewAliasRacesACachedNotFound: a viewer asks for an alias before it
// exists, so the edge keeps the 404 and the redirect remembers the miss;
// the alias is created a moment later, and nothing is invalidated: right
// after the 201 the edge still answers its 404. The next edge miss comes
// late in the remembered miss's life. The new alias must redirect
// everywhere within newAliasBound of its 201.
func TestNewAliasRacesACachedNotFound(t *testing.T) {
	s := newSystem(t, 0)
	negTTL := s.cfg.NegativeCacheTTL

	asked := s.clock.Now()
	first := s.get(t, "/spring-sale")
	require.Equal(t, http.StatusNotFound, first.status)
	require.Equal(t, 10*time.Second, first.edgeLife, "the edge keeps the 404")
	s.clock.Add(100 * time.Millisecond)
	s.api(t, http.MethodPost, "/v1/links", `{"url":"https://example.com/spring","alias":"spring-sale"}`)
	created := s.clock.Now() // the 201

	misses := s.edge.Stats().Misses
	assert.Equal(t, http.StatusNotFound, s.get(t, "/spring-sale").status)
	assert.Equal(t, misses, s.edge.Stats().Misses, "the edge answered from its 404: nothing purged it")
	assert.Empty(t, s.invalidations.Paths(), "create sends no invalidation")
	// Nobody asks until late in the redirect's 404 entry's life (its
	// lifetime is jittered down by up to 20 %).
	if late := asked.Add(negTTL*8/10 - 100*time.Millisecond); late.After(s.clock.Now()) {
		s.clock.Set(late)
	}

	assert.Empty(t, s.watch(t, "/spring-sale", created, s.newAliasBound(), func(a answer) bool {
		return a.status == 302 && a.location == "https://example.com/spring"
	}))
	assert.Zero(t, s.edge.Stats().Purged)
}

// TestNewAliasRacesAFreshMiss: the worst case. The redirect reads the
// alias just before the create writes it, and its 404, built from that
// fresh read, reaches the edge just under FreshRead later, after the 201,
// with the full 10 s. Nothing invalidates it: the alias still redirects
// everywhere within newAliasBound of its 201, and no sooner than the
// edge's 404 lets go.
func TestNewAliasRacesAFreshMiss(t *testing.T) {
	s := newSystem(t, 0)
	var created time.Time
	s.afterRead = func() {
		s.clock.Add(100 * time.Millisecond)
		s.api(t, http.MethodPost, "/v1/links", `{"url":"https://example.com/autumn","alias":"autumn-sale"}`)
		created = s.clock.Now() // the 201
		s.clock.Add(config.FreshRead - 200*time.Millisecond)
	}
	during := s.get(t, "/autumn-sale")
	require.False(t, created.IsZero(), "the race happened: the alias was created during the redirect's read")
	require.Equal(t, http.StatusNotFound, during.status)
	require.Equal(t, 10*time.Second, during.edgeLife, "a miss read under FreshRead ago keeps the usual 404 TTL")

	s.clock.Set(during.at.Add(10*time.Second - 250*time.Millisecond))
	misses := s.edge.Stats().Misses
	assert.Equal(t, http.StatusNotFound, s.get(t, "/autumn-sale").status, "the edge keeps its 404 its whole life")
	assert.Equal(t, misses, s.edge.Stats().Misses, "answered from the edge's 404")

	assert.Empty(t, s.watch(t, "/autumn-sale", created, s.newAliasBound(), func(a answer) bool {
		return a.status == 302 && a.location == "https://example.com/autumn"
	}))
	assert.Empty(t, s.invalidations.Paths(), "create sends no invalidation")
}
