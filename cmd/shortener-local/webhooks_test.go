package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/webhook/webhooktest"
)

// receiver is a webhook receiver on 127.0.0.1 that answers 500 to its
// first failFirst deliveries and records every delivery.
type receiver struct {
	srv       *httptest.Server
	mu        sync.Mutex
	failFirst int
	got       []delivery
}

type delivery struct {
	header http.Header
	body   []byte
	status int
	at     time.Time
}

func newReceiver(t *testing.T, failFirst int) *receiver {
	r := &receiver{failFirst: failFirst}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		status := http.StatusNoContent
		if len(r.got) < r.failFirst {
			status = http.StatusInternalServerError
		}
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: body, status: status, at: time.Now()})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// accepted returns the events the receiver accepted (2xx), by
// webhook-id, after deduplication, and how often each id came.
func (r *receiver) accepted() (map[string]string, map[string]int) {
	types, seen := map[string]string{}, map[string]int{}
	for _, d := range r.deliveries() {
		id := d.header.Get("webhook-id")
		seen[id]++
		if d.status < 300 {
			var b struct{ Type string }
			_ = json.Unmarshal(d.body, &b)
			types[id] = b.Type
		}
	}
	return types, seen
}

// TestWebhooksThroughTheLocalRun is the end-to-end check: through the local
// run, a receiver on 127.0.0.1 gets each event type with a signature the
// Standard Webhooks algorithm verifies; answering 500 to its first three
// deliveries, it still gets every event, each webhook-id once after
// deduplication; another API key's subscription sees nothing of ours.
func TestWebhooksThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, map[string]string{
		"WEBHOOKS_TABLE":                testenv.UniqueName(t, "webhooks"),
		"WEBHOOK_RETRY_SCHEDULE":        "1s,1s,1s,1s,1s,1s",
		"SHORTENER_CLICKS_BATCH_WINDOW": "0s",
		"SHORTENER_RECLAIM_INTERVAL":    "1h", // only the explicit POST /_local/reclaim below
	})
	ours, theirs := newReceiver(t, 3), newReceiver(t, 0)
	subscribe := func(key, url string) (id, secret string) {
		status, _, body := r.do(t, "POST", "/v1/webhooks", key,
			`{"url":"`+url+`","events":["link.created","link.updated","link.deleted","link.expired","link.clicked"]}`)
		require.Equal(t, 201, status, string(body))
		var out struct{ ID, Secret string }
		require.NoError(t, json.Unmarshal(body, &out))
		return out.ID, out.Secret
	}
	hookID, secret := subscribe(r.key, ours.srv.URL+"/hook")
	subscribe("other-key", theirs.srv.URL+"/hook")

	// created, updated, deleted
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/a","alias":"hook-a"}`)
	require.Equal(t, 201, status, string(body))
	status, _, body = r.do(t, "PATCH", "/v1/links/hook-a", r.key, `{"url":"https://example.com/a2"}`)
	require.Equal(t, 200, status, string(body))
	status, _, body = r.do(t, "DELETE", "/v1/links/hook-a", r.key, "")
	require.Equal(t, 204, status, string(body))
	// clicked
	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/c","alias":"hook-c"}`)
	require.Equal(t, 201, status, string(body))
	status, _, _ = r.do(t, "GET", "/hook-c", "", "", "User-Agent", browserAgent)
	require.Equal(t, 302, status)
	// expired: the reclaim run tombstones an expired link in place
	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/e","alias":"hook-e","ttl_seconds":1}`)
	require.Equal(t, 201, status, string(body))
	time.Sleep(2 * time.Second)
	resp, err := r.client.Post(r.base+"/_local/reclaim", "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	want := map[string]int{"link.created": 3, "link.updated": 1, "link.deleted": 1, "link.expired": 1, "link.clicked": 1}
	count := func() map[string]int {
		types, _ := ours.accepted()
		n := map[string]int{}
		for _, typ := range types {
			n[typ]++
		}
		return n
	}
	require.Eventually(t, func() bool {
		n := count()
		for typ, c := range want {
			if n[typ] < c {
				return false
			}
		}
		return true
	}, 90*time.Second, 250*time.Millisecond, "every event type arrives despite the first three 500s")

	got := ours.deliveries()
	failedIDs := map[string]bool{}
	for i, d := range got {
		assert.NoError(t, webhooktest.Verify(secret, d.header, d.body, d.at), "delivery %d verifies", i)
		var b struct {
			Type      string
			Timestamp time.Time
			Data      map[string]any
		}
		require.NoError(t, json.Unmarshal(d.body, &b), string(d.body))
		assert.NotEmpty(t, b.Data, "delivery %d has data", i)
		assert.False(t, b.Timestamp.IsZero())
		if d.status == 500 {
			failedIDs[d.header.Get("webhook-id")] = true
		}
	}
	types, seen := ours.accepted()
	for id := range failedIDs {
		assert.Contains(t, types, id, "a delivery answered 500 came again with the same webhook-id and was accepted")
		assert.GreaterOrEqual(t, seen[id], 2)
	}
	time.Sleep(2 * time.Second) // room for any stray duplicate
	assert.Equal(t, want, count(), "each event once after deduplication by webhook-id")
	var clicked map[string]any
	for _, d := range ours.deliveries() {
		var b struct {
			Type string
			Data map[string]any
		}
		_ = json.Unmarshal(d.body, &b)
		if b.Type == "link.clicked" {
			clicked = b.Data
		}
	}
	assert.Equal(t, "hook-c", clicked["code"])
	assert.EqualValues(t, 1, clicked["total"])
	assert.EqualValues(t, 1, clicked["human"])

	// The attempts show through the API, the 500s with their next retry.
	status, _, body = r.do(t, "GET", "/v1/webhooks/"+hookID+"/deliveries", r.key, "")
	require.Equal(t, 200, status, string(body))
	var ds struct {
		Deliveries []struct {
			Status       string
			ResponseCode int    `json:"response_code"`
			NextRetry    string `json:"next_retry"`
		}
	}
	require.NoError(t, json.Unmarshal(body, &ds))
	var retrying int
	for _, d := range ds.Deliveries {
		if d.Status == "retrying" {
			retrying++
			assert.Equal(t, 500, d.ResponseCode)
			assert.NotEmpty(t, d.NextRetry)
		}
	}
	assert.Equal(t, 3, retrying)

	assert.Empty(t, theirs.deliveries(), "another API key's subscription sees nothing of ours")
}

// switchable is a receiver that answers 503, as a receiver that is down
// does behind its load balancer, while down is set, and records every
// delivery.
func newSwitchable(t *testing.T) (*receiver, *atomic.Bool) {
	var down atomic.Bool
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		status := http.StatusNoContent
		if down.Load() {
			status = http.StatusServiceUnavailable
		}
		r.mu.Lock()
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: body, status: status, at: time.Now()})
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r, &down
}

// clicked sums the link.clicked events the receiver accepted for code,
// once per webhook-id, and counts how often each id was accepted.
func (r *receiver) clicked(t *testing.T, code string) (total int64, accepted map[string]int) {
	t.Helper()
	accepted = map[string]int{}
	for _, d := range r.deliveries() {
		var b struct {
			Type string
			Data struct {
				Code  string
				Total int64
			}
		}
		require.NoError(t, json.Unmarshal(d.body, &b), string(d.body))
		if d.status >= 300 || b.Type != "link.clicked" || b.Data.Code != code {
			continue
		}
		id := d.header.Get("webhook-id")
		if accepted[id] == 0 {
			total += b.Data.Total
		}
		accepted[id]++
	}
	return total, accepted
}

// clickHooksRun starts the local run with a link.clicked subscription of
// the run's key to url, and returns it with a new link's code.
func clickHooksRun(t *testing.T, url string) (*localRun, string) {
	r := startLocal(t, map[string]string{
		"WEBHOOKS_TABLE": testenv.UniqueName(t, "webhooks"),
		// About 40 s of retries: longer than the receiver stays down.
		"WEBHOOK_RETRY_SCHEDULE":        "1s,2s,2s,5s,5s,5s,5s,5s,5s,5s",
		"SHORTENER_CLICKS_BATCH_WINDOW": "0s",
		"SHORTENER_CLICK_EVENTS_RETRY":  "1s",
	})
	status, _, body := r.do(t, "POST", "/v1/webhooks", r.key, `{"url":"`+url+`","events":["link.clicked"]}`)
	require.Equal(t, 201, status, string(body))
	return r, r.create(t, "https://example.com/counted")
}

// clickN follows code n times as a browser.
func (r *localRun) clickN(t *testing.T, code string, n int) {
	t.Helper()
	for range n {
		status, _, _ := r.do(t, "GET", "/"+code, "", "", "User-Agent", browserAgent)
		require.Equal(t, 302, status)
	}
}

// TestClicksCountedWhileTheQueueIsDown: with SQS refusing every message,
// clicks are still counted, exactly, and the link.clicked events of those
// clicks reach the receiver once SQS works again, each once.
func TestClicksCountedWhileTheQueueIsDown(t *testing.T) {
	hook := newReceiver(t, 0)
	r, code := clickHooksRun(t, hook.srv.URL+"/hook")
	outage := func(method string) {
		req, err := http.NewRequest(method, r.base+sqsOutagePath, nil)
		require.NoError(t, err)
		resp, err := r.client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
	}
	outage(http.MethodPost)
	r.clickN(t, code, 5)
	require.Eventually(t, func() bool { return r.totals(t, code).Total >= 5 }, 30*time.Second, 250*time.Millisecond,
		"clicks are counted while SQS is down")
	time.Sleep(2 * time.Second) // room for a batch counted twice
	assert.Equal(t, int64(5), r.totals(t, code).Total, "each click counted once")
	total, _ := hook.clicked(t, code)
	assert.Zero(t, total, "no event can reach the receiver while SQS is down")

	outage(http.MethodDelete)
	back := time.Now()
	require.Eventually(t, func() bool { total, _ := hook.clicked(t, code); return total >= 5 }, 60*time.Second, 250*time.Millisecond,
		"the link.clicked events arrive once SQS works again")
	t.Logf("the kept events arrived %.1f s after SQS came back (schedule every 1s, backoff from 5s)", time.Since(back).Seconds())
	time.Sleep(2 * time.Second) // room for a duplicate
	total, accepted := hook.clicked(t, code)
	assert.Equal(t, int64(5), total, "the events carry every click once")
	for id, n := range accepted {
		assert.Equal(t, 1, n, "event %s delivered once", id)
	}
	assert.Equal(t, int64(5), r.totals(t, code).Total)
}

// TestClicksCountedWhileTheReceiverIsDown: with the receiver answering
// 503, clicks are counted exactly, and the link.clicked events arrive,
// each once, when it is back.
func TestClicksCountedWhileTheReceiverIsDown(t *testing.T) {
	hook, down := newSwitchable(t)
	down.Store(true)
	r, code := clickHooksRun(t, hook.srv.URL+"/hook")
	r.clickN(t, code, 5)
	require.Eventually(t, func() bool { return r.totals(t, code).Total >= 5 }, 30*time.Second, 250*time.Millisecond,
		"clicks are counted while the receiver is down")
	time.Sleep(2 * time.Second)
	assert.Equal(t, int64(5), r.totals(t, code).Total, "each click counted once")
	total, _ := hook.clicked(t, code)
	require.Zero(t, total)

	down.Store(false)
	require.Eventually(t, func() bool { total, _ := hook.clicked(t, code); return total >= 5 }, 60*time.Second, 250*time.Millisecond,
		"the link.clicked events arrive once the receiver is back")
	time.Sleep(2 * time.Second)
	total, accepted := hook.clicked(t, code)
	assert.Equal(t, int64(5), total)
	for id, n := range accepted {
		assert.Equal(t, 1, n, "event %s accepted once", id)
	}
	assert.Equal(t, int64(5), r.totals(t, code).Total)
}
