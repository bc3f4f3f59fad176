package redirectfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/missbudget"
)

const (
	scanner    = "198.51.100.10:46532"
	bystander  = "203.0.113.7:51000"
	scanner6   = "2001:db8:85a3:1::1:443"
	scanner6b  = "2001:db8:85a3:1:ffff:ffff:ffff:fffe:443" // the same /64
	testBudget = 5
)

func newBudgetFixture(t *testing.T) (*fixture, *missbudget.Memory) {
	t.Helper()
	clock := storetest.NewClock(start)
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"SHORTENER_MISS_BUDGET": fmt.Sprint(testBudget), "SHORTENER_MISS_WINDOW": "1h"}[k]
	})
	require.NoError(t, err)
	counter := missbudget.NewMemory()
	f := &fixture{store: &countingStore{Store: linkstore.NewMemory(clock.Now)}, clock: clock}
	f.h = New(Options{Store: f.store, Config: cfg, Misses: counter,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now})
	return f, counter
}

// from asks for code as a viewer at address, as CloudFront forwards it
// (an HTTP API delivers header names lower-cased).
func (f *fixture) from(t *testing.T, address, code string) events.APIGatewayProxyResponse {
	t.Helper()
	ev := event(t, "redirect-get.json", code)
	if ev.Headers == nil {
		ev.Headers = map[string]string{}
	}
	ev.Headers["cloudfront-viewer-address"] = address
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	return resp
}

func unknownCode(i int) string { return fmt.Sprintf("Zq%05d", i) }

// TestMissBudget: after its budget of unknown codes a client gets 429 for
// anything, live codes included, uncacheable; another client is
// unaffected; and finding a link never spends budget.
func TestMissBudget(t *testing.T) {
	f, counter := newBudgetFixture(t)
	live := f.put(t, link.Link{Code: "Live001"})

	// Found links, many times over: no count at all.
	for range 3 * testBudget {
		resp := f.from(t, scanner, live.Code)
		require.Equal(t, http.StatusFound, resp.StatusCode)
	}
	assert.Zero(t, counter.Calls, "a found link never touches the counter")

	for i := range testBudget {
		resp := f.from(t, scanner, unknownCode(i))
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "miss %d is within the budget", i+1)
	}
	assert.Equal(t, testBudget, counter.Calls, "one write per miss")

	refused := f.from(t, scanner, unknownCode(testBudget))
	assert.Equal(t, http.StatusTooManyRequests, refused.StatusCode)
	assert.Equal(t, "no-store", refused.Headers["Cache-Control"], "no cache may give this to another viewer")
	assert.Equal(t, "3600", refused.Headers["Retry-After"], "until the window ends")

	// Over budget: a live code is refused too, or the scanner would tell
	// it from the 429s; and nothing more is written.
	f.clock.Add(10 * time.Minute)
	resp := f.from(t, scanner, live.Code)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "3000", resp.Headers["Retry-After"])
	assert.Empty(t, resp.Headers["Location"])
	gets := f.store.gets.Load()
	resp = f.from(t, scanner, unknownCode(99))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, testBudget+1, counter.Calls, "a client known to be over costs no write")
	assert.Equal(t, gets, f.store.gets.Load(), "nor any read")

	// Another client is unaffected, and its hits cost nothing either.
	calls := counter.Calls
	assert.Equal(t, http.StatusFound, f.from(t, bystander, live.Code).StatusCode)
	assert.Equal(t, calls, counter.Calls)
	assert.Equal(t, http.StatusNotFound, f.from(t, bystander, unknownCode(1000)).StatusCode)

	// A request that did not come through the edge is not counted.
	assert.Equal(t, http.StatusNotFound, f.get(t, unknownCode(2000)).StatusCode)
	// A path no link can have costs no lookup and no count.
	calls = counter.Calls
	assert.Equal(t, http.StatusNotFound, f.from(t, bystander, "no!such").StatusCode)
	assert.Equal(t, calls, counter.Calls)

	// The next window starts afresh.
	f.clock.Add(50 * time.Minute)
	assert.Equal(t, http.StatusFound, f.from(t, scanner, live.Code).StatusCode)
	assert.Equal(t, http.StatusNotFound, f.from(t, scanner, unknownCode(3000)).StatusCode)
}

// An IPv6 viewer is one client per /64: its other addresses share the
// budget.
func TestMissBudgetKeysIPv6OnThe64(t *testing.T) {
	f, _ := newBudgetFixture(t)
	for i := range testBudget {
		require.Equal(t, http.StatusNotFound, f.from(t, scanner6, unknownCode(i)).StatusCode)
	}
	assert.Equal(t, http.StatusTooManyRequests, f.from(t, scanner6b, unknownCode(testBudget)).StatusCode)
	assert.Equal(t, http.StatusNotFound, f.from(t, "2001:db8:85a3:2::1:443", unknownCode(testBudget+1)).StatusCode,
		"the next /64 is another client")
}

// Without a counter (no MISSES_TABLE) nothing changes.
func TestNoMissBudgetWithoutACounter(t *testing.T) {
	f := newFixture(t)
	for i := range 3 * testBudget {
		require.Equal(t, http.StatusNotFound, f.from(t, scanner, unknownCode(i)).StatusCode)
	}
}
