package faulttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// margin is added to a deadline for the bound on an answer that must come
// "within the deadline": generous, since the machine is shared and slow,
// and still far below a stalled DynamoDB (the faults here stall for an
// hour) or the SDK's own retries.
const margin = time.Second

func TestRedirectDuringDynamoDBOutage(t *testing.T) {
	r := newRig(t)
	const deadline = 300 * time.Millisecond
	cfg := r.config(t, map[string]string{
		"SHORTENER_REDIRECT_DB_TIMEOUT": deadline.String(),
		// Short, so the test can let the cached entry go stale: then the
		// handler must ask DynamoDB, and serve the entry only because
		// DynamoDB fails.
		"SHORTENER_CACHE_TTL": "1s",
	})
	var logs, emf syncBuffer
	// Built as functions/redirect/main.go builds it, over the faulty client.
	h := redirectfn.New(redirectfn.Options{
		Store:   dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout}),
		Config:  cfg,
		Log:     jsonLogger(&logs),
		Metrics: metrics.New(&emf, "Shortener", "redirect"),
	})
	expires := time.Now().Add(24 * time.Hour)
	r.putLink(t, "Cach3d1", "https://example.com/cached", expires)
	r.putLink(t, "Unc4ch3", "https://example.com/uncached", expires)
	get := func(code string) (events.APIGatewayProxyResponse, time.Duration) {
		ev := event(t, "redirect", "redirect-get.json", func(ev *events.APIGatewayProxyRequest) {
			ev.Path, ev.PathParameters = "/"+code, map[string]string{"code": code}
		})
		start := time.Now()
		resp, err := h.Handle(context.Background(), ev)
		require.NoError(t, err)
		return resp, time.Since(start)
	}

	resp, _ := get("Cach3d1")
	require.Equal(t, 302, resp.StatusCode, "warm the cache")
	time.Sleep(1200 * time.Millisecond) // past the cache TTL (jitter only shortens it)

	faultsTable := []struct {
		name string
		rule faults.Rule
		// firstFailure: the cached link's entry has not failed a lookup
		// yet, so this request asks DynamoDB and serves the entry stale
		// because that fails. Later requests serve it without asking for
		// a while (redirectcache's RetryAfter).
		firstFailure bool
	}{
		// Every attempt hangs: the lookup's deadline ends it.
		{"stalled", faults.Rule{Op: "GetItem", Attempt: true, Delay: time.Hour}, true},
		// Throttled on every attempt: the SDK retries within the deadline.
		{"throttled", faults.Rule{Op: "GetItem", Attempt: true, Err: faults.Throttled()}, false},
		// Answers 500 on every attempt.
		{"failing", faults.Rule{Op: "GetItem", Attempt: true, Err: faults.ServerError()}, false},
	}
	for _, tt := range faultsTable {
		t.Run(tt.name, func(t *testing.T) {
			f := r.inj.Add(tt.rule)
			defer f.Remove()

			resp, took := get("Cach3d1")
			assert.Equal(t, 302, resp.StatusCode, "a cached link is still served")
			assert.Equal(t, "https://example.com/cached", resp.Headers["Location"])
			assert.Less(t, took, deadline+margin)
			if tt.firstFailure {
				assert.Positive(t, f.Fired(), "served stale because DynamoDB failed, not from a fresh entry")
			}

			resp, took = get("Unc4ch3")
			assert.Equal(t, 503, resp.StatusCode, "an uncached link cannot be served")
			assert.Less(t, took, deadline+margin, "the 503 comes within the lookup deadline")
			assert.Equal(t, "no-store", resp.Headers["Cache-Control"], "the edge must not keep a 503")
			assert.NotEmpty(t, resp.Headers["Retry-After"])
			assert.Positive(t, f.Fired())

			// A burst of clicks on the uncached link during the outage:
			// each is answered within the deadline, none piles up behind
			// another's lookup.
			var wg sync.WaitGroup
			var mu sync.Mutex
			var worst time.Duration
			statuses := map[int]int{}
			for range 20 {
				wg.Go(func() {
					resp, took := get("Unc4ch3")
					mu.Lock()
					defer mu.Unlock()
					statuses[resp.StatusCode]++
					worst = max(worst, took)
				})
			}
			wg.Wait()
			assert.Equal(t, map[int]int{503: 20}, statuses)
			assert.Less(t, worst, deadline+margin)
		})
	}

	// DynamoDB is back: the uncached link resolves; the 503s left nothing
	// behind in the cache.
	resp, _ = get("Unc4ch3")
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, "https://example.com/uncached", resp.Headers["Location"])
	assert.NotEmpty(t, logs.Records(t, "redirect lookup failed"), "the failures were logged")
}
