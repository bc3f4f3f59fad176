package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
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
