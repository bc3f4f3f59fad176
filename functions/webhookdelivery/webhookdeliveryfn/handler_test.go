package webhookdeliveryfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/webhooktest"
)

// queue records what is sent to it; err fails every send.
type queue struct {
	mu     sync.Mutex
	sent   []webhook.Message
	delays []time.Duration
	err    error
}

func (q *queue) Send(_ context.Context, m webhook.Message, delay time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.sent = append(q.sent, m)
	q.delays = append(q.delays, delay)
	return nil
}

var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func setup(t *testing.T, status int, guard webhook.Guard) (*webhookdeliveryfn.Handler, *webhook.Memory, *queue, *queue, *[]http.Header) {
	t.Helper()
	var got []http.Header
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		assert.NoError(t, webhooktest.Verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", r.Header, body, now))
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	store := webhook.NewMemory()
	require.NoError(t, store.Create(context.Background(), webhook.Subscription{ID: "wh_1", Owner: "alice", URL: srv.URL,
		Events: []string{webhook.LinkCreated}, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}))
	q, dlq := &queue{}, &queue{}
	h := webhookdeliveryfn.New(webhookdeliveryfn.Options{Store: store, Queue: q, DeadLetters: dlq, Client: guard.Client(5 * time.Second), Guard: guard,
		Schedule: []time.Duration{time.Second, time.Hour}, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "webhookdelivery")})
	return h, store, q, dlq, &got
}

func message(t *testing.T, attempt int, due time.Time) events.SQSEvent {
	b, err := json.Marshal(webhook.Message{Subscription: "wh_1", Attempt: attempt, Due: due, Event: webhook.Event{
		ID: "msg_1", Owner: "alice", Type: webhook.LinkCreated, Timestamp: now, Data: json.RawMessage(`{"code":"abc"}`)}})
	require.NoError(t, err)
	return events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: string(b)}}}
}

func TestDelivery(t *testing.T) {
	local := webhook.Guard{AllowLoopback: true}
	tests := []struct {
		name     string
		status   int
		guard    webhook.Guard
		attempt  int
		record   string // the attempt's status
		retry    time.Duration
		dead     bool
		disabled bool
		calls    int
	}{
		{name: "accepted", status: 204, guard: local, attempt: 1, record: webhook.StatusDelivered, calls: 1},
		{name: "500 is retried", status: 500, guard: local, attempt: 1, record: webhook.StatusRetrying, retry: time.Second, calls: 1},
		{name: "second retry waits longer", status: 503, guard: local, attempt: 2, record: webhook.StatusRetrying, retry: time.Hour, calls: 1},
		{name: "schedule spent", status: 500, guard: local, attempt: 3, record: webhook.StatusFailed, dead: true, calls: 1},
		{name: "410 disables", status: 410, guard: local, attempt: 1, record: webhook.StatusDisabled, disabled: true, calls: 1},
		{name: "a redirect is a failure", status: 302, guard: local, attempt: 1, record: webhook.StatusRetrying, retry: time.Second, calls: 1},
		{name: "loopback refused when deployed", status: 204, guard: webhook.Guard{}, attempt: 1, record: webhook.StatusRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, store, q, dlq, got := setup(t, tt.status, tt.guard)
			resp, err := h.Handle(context.Background(), message(t, tt.attempt, time.Time{}))
			require.NoError(t, err)
			assert.Empty(t, resp.BatchItemFailures)
			assert.Len(t, *got, tt.calls)
			ds, err := store.Deliveries(context.Background(), "alice", "wh_1", 10)
			require.NoError(t, err)
			require.Len(t, ds, 1)
			assert.Equal(t, tt.record, ds[0].Status)
			if tt.retry > 0 {
				require.Len(t, q.sent, 1)
				assert.Equal(t, tt.attempt+1, q.sent[0].Attempt)
				assert.Equal(t, "msg_1", q.sent[0].Event.ID, "the same webhook-id on every retry")
				assert.Equal(t, now.Add(tt.retry), q.sent[0].Due)
				assert.Equal(t, now.Add(tt.retry), ds[0].NextRetry)
			} else {
				assert.Empty(t, q.sent)
			}
			assert.Equal(t, tt.dead, len(dlq.sent) == 1)
			sub, err := store.Get(context.Background(), "alice", "wh_1")
			require.NoError(t, err)
			assert.Equal(t, tt.disabled, sub.Disabled)
		})
	}
}

func TestDeliveryNotYetDue(t *testing.T) {
	h, _, q, _, got := setup(t, 204, webhook.Guard{AllowLoopback: true})
	_, err := h.Handle(context.Background(), message(t, 2, now.Add(10*time.Hour)))
	require.NoError(t, err)
	assert.Empty(t, *got, "not sent before it is due")
	require.Len(t, q.sent, 1)
	assert.Equal(t, 10*time.Hour, q.delays[0], "the queue caps the delay; the message hops")
}

func TestDeliveryRetryNotQueued(t *testing.T) {
	h, _, q, _, _ := setup(t, 500, webhook.Guard{AllowLoopback: true})
	q.err = errors.New("sqs down")
	resp, err := h.Handle(context.Background(), message(t, 1, time.Time{}))
	require.NoError(t, err)
	assert.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "m1"}}, resp.BatchItemFailures,
		"SQS delivers the message again rather than lose the retry")
}

func TestDeliveryDeletedOrPoison(t *testing.T) {
	h, store, q, _, got := setup(t, 204, webhook.Guard{AllowLoopback: true})
	resp, err := h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "p", Body: "{not json"}}})
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures, "a poison message is dropped, not retried")
	require.NoError(t, store.Delete(context.Background(), "alice", "wh_1"))
	resp, err = h.Handle(context.Background(), message(t, 1, time.Time{}))
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Empty(t, *got, "nothing is sent to a deleted subscription")
	assert.Empty(t, q.sent)
}
