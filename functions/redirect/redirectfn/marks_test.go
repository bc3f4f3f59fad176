package redirectfn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// markFixture is the redirect with an in-memory marks table and metrics
// it can read.
type markFixture struct {
	*fixture
	marks   *edgemarks.Memory
	metrics logtest.Buffer
}

func newMarkFixture(t *testing.T) *markFixture {
	t.Helper()
	clock := storetest.NewClock(start)
	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	f := &markFixture{fixture: &fixture{store: &countingStore{Store: linkstore.NewMemory(clock.Now)}, clock: clock},
		marks: edgemarks.NewMemory()}
	f.h = New(Options{Store: f.store, Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now,
		Metrics: metrics.New(&f.metrics, "Shortener", "redirect"), Marks: f.marks})
	return f
}

// heldUntil is the code's mark in the table now.
func (f *markFixture) heldUntil(t *testing.T, code string) time.Time {
	t.Helper()
	u, err := f.marks.HeldUntil(context.Background(), code)
	require.NoError(t, err)
	return u
}

func edgeLife(t *testing.T, cacheControl string) time.Duration {
	t.Helper()
	v, ok := strings.CutPrefix(cacheControl, "public, max-age=0, s-maxage=")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err)
	return time.Duration(n) * time.Second
}

// A redirect built from a fresh read gets its day at the edge only with a
// mark that covers it, in the table by the time the answer leaves; so
// does the next fresh read's, since only the table can say whether a
// change has fenced the code since (shared/edgemarks).
func TestFreshRedirectIsMarkedBeforeItLeaves(t *testing.T) {
	f := newMarkFixture(t)
	f.put(t, link.Link{Code: "aB3dE5f"})

	resp := f.get(t, "aB3dE5f")
	require.Equal(t, 302, resp.StatusCode)
	life := edgeLife(t, resp.Headers["Cache-Control"])
	require.Equal(t, 24*time.Hour, life)
	assert.False(t, f.heldUntil(t, "aB3dE5f").Before(start.Add(life)), "the mark covers the answer's whole edge life")
	assert.Equal(t, 1, f.marks.Marks)

	// The edge asks again (another location): a fresh read once the
	// entry is gone, and its own mark.
	f.clock.Add(30 * time.Minute)
	resp = f.get(t, "aB3dE5f")
	require.Equal(t, 24*time.Hour, edgeLife(t, resp.Headers["Cache-Control"]))
	assert.Equal(t, 2, f.marks.Marks, "every fresh answer's mark is written")
}

// Answers the edge lets go no later than their entry stops being fresh
// need no mark: one from an in-process entry, a new link's, a 404, and a
// link decided at the origin (no-store).
func TestShortAnswersNeedNoMark(t *testing.T) {
	f := newMarkFixture(t)
	f.put(t, link.Link{Code: "aB3dE5f"})
	f.put(t, link.Link{Code: "newLink", CreatedAt: start.Add(-10 * time.Second)})
	f.put(t, link.Link{Code: "secret1", Features: link.Features{MaxClicks: 5}})
	require.Equal(t, 24*time.Hour, edgeLife(t, f.get(t, "aB3dE5f").Headers["Cache-Control"]))
	require.Equal(t, 1, f.marks.Marks)

	f.clock.Add(5 * time.Second)
	tests := []struct {
		name, code string
		status     int
		life       time.Duration
	}{
		{"an in-process entry's answer", "aB3dE5f", 302, 15 * time.Second},
		{"a new link", "newLink", 302, 10 * time.Second},
		{"an unknown code", "zzzzzzz", 404, 10 * time.Second},
		{"a link decided per click", "secret1", 503, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.get(t, tt.code)
			require.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, tt.life, edgeLife(t, resp.Headers["Cache-Control"]))
			assert.Equal(t, 1, f.marks.Marks, "no mark written")
		})
	}
}

// A 410 the edge keeps a minute is marked too: a disabled link can be
// enabled again.
func TestGoneIsMarked(t *testing.T) {
	f := newMarkFixture(t)
	f.put(t, link.Link{Code: "aB3dE5f", Status: link.StatusDisabled})
	resp := f.get(t, "aB3dE5f")
	require.Equal(t, 410, resp.StatusCode)
	life := edgeLife(t, resp.Headers["Cache-Control"])
	require.Equal(t, time.Duration(DefaultGoneTTL)*time.Second, life)
	assert.False(t, f.heldUntil(t, "aB3dE5f").Before(start.Add(life)))
}

// A mark that cannot be written leaves the answer no longer at the edge
// than an in-process entry's would be: what is left of SHORTENER_CACHE_TTL
// (20 s). The failure is counted, and the next answer tries again.
func TestFailedMarkGivesAShortEdgeLife(t *testing.T) {
	f := newMarkFixture(t)
	f.put(t, link.Link{Code: "aB3dE5f"})
	f.put(t, link.Link{Code: "dead000", Status: link.StatusDisabled})
	f.marks.Err = errors.New("throttled")

	resp := f.get(t, "aB3dE5f")
	require.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, f.h.CacheTTL, edgeLife(t, resp.Headers["Cache-Control"]), "the entry's life, not a day")
	gone := f.get(t, "dead000")
	require.Equal(t, 410, gone.StatusCode)
	assert.Equal(t, f.h.CacheTTL, edgeLife(t, gone.Headers["Cache-Control"]), "the entry's life, not a minute")
	require.NoError(t, f.h.Metrics.Flush())
	assert.Equal(t, 2.0, f.metrics.Sums(t)["EdgeMarkFailures"])

	f.marks.Err = nil
	f.clock.Add(time.Minute) // past the entry: a fresh read again
	resp = f.get(t, "aB3dE5f")
	assert.Equal(t, 24*time.Hour, edgeLife(t, resp.Headers["Cache-Control"]))
	assert.Equal(t, 3, f.marks.Marks)
}
