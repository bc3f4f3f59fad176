// Package webhookdeliveryfn sends webhook deliveries: it consumes the delivery
// queue (events.SQSEvent, partial batch failures reported), signs each
// event as Standard Webhooks asks and POSTs it to its subscription's
// receiver through the SSRF guard's client.
//
// An attempt that fails (no answer, or anything but 2xx) is recorded and
// queued again for the next step of the retry schedule, under the same
// webhook-id; a schedule longer than the queue's 15-minute delay is made of
// hops (webhook.Message.Due). A 410 Gone disables the subscription. A
// receiver that now resolves to a forbidden address is refused, not
// retried. When the schedule is spent the message goes to the dead-letter
// queue, whose alarm tells the operator. If the retry cannot be queued the
// record is reported failed, so SQS delivers it again after its visibility
// timeout: at least once, never silently dropped. The Lambda in
// functions/webhookdelivery and the local run's SQS twin run this handler.
package webhookdeliveryfn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Store is what delivery needs of webhook.Store.
type Store interface {
	Get(ctx context.Context, owner, id string) (webhook.Subscription, error)
	Disable(ctx context.Context, owner, id string) error
	Record(ctx context.Context, owner string, d webhook.Delivery) error
}

var _ Store = (webhook.Store)(nil)

// Doer sends one request; the guard's *http.Client.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Options are what New builds a Handler from: the subscriptions, the
// queues, the client that sends and its guard.
type Options struct {
	Store Store
	// Queue takes retries; DeadLetters takes messages whose schedule is spent.
	Queue       webhook.Queue
	DeadLetters webhook.Queue
	Client      Doer
	Guard       webhook.Guard
	// Schedule is the wait before each retry; webhook.DefaultSchedule when nil.
	Schedule []time.Duration
	Now      func() time.Time
	Log      *slog.Logger
	Metrics  *metrics.Emitter
}

// Handler delivers queued messages.
type Handler struct {
	Options
}

// New builds a handler from o.
func New(o Options) *Handler { return &Handler{Options: o} }

// Handle delivers one batch, concurrently: a slow receiver does not hold
// the others back.
func (h *Handler) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var (
		resp events.SQSEventResponse
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	for i := range ev.Records {
		r := &ev.Records[i]
		wg.Go(func() {
			if err := h.handle(ctx, r); err != nil {
				h.Log.ErrorContext(ctx, "webhook message failed", "message_id", r.MessageId, "error", err.Error())
				mu.Lock()
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := h.Metrics.Flush(); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

func (h *Handler) handle(ctx context.Context, r *events.SQSMessage) error {
	var m webhook.Message
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil || m.Subscription == "" || m.Event.ID == "" || m.Attempt < 1 {
		// Never deliverable: logged (without the body, which may carry
		// data) and dropped rather than retried into the DLQ.
		h.Metrics.Add("PoisonMessages", metrics.Count, 1)
		h.Log.ErrorContext(ctx, "poison webhook message dropped", "message_id", r.MessageId)
		return nil
	}
	now := h.now()
	if wait := m.Due.Sub(now); wait > 0 {
		return h.Queue.Send(ctx, m, wait)
	}
	sub, err := h.Store.Get(ctx, m.Event.Owner, m.Subscription)
	if errors.Is(err, link.ErrNotFound) {
		return nil // deleted since: nothing to send
	}
	if err != nil {
		return err
	}
	if sub.Disabled {
		return nil
	}
	code, err := h.send(ctx, sub, m.Event, now)
	d := webhook.Delivery{Subscription: sub.ID, EventID: m.Event.ID, Event: m.Event.Type, Attempt: m.Attempt,
		ResponseCode: code, At: now.UTC()}
	switch {
	case err == nil && code >= 200 && code < 300:
		d.Status = webhook.StatusDelivered
		h.Metrics.Add("Delivered", metrics.Count, 1)
	case err == nil && code == http.StatusGone:
		d.Status = webhook.StatusDisabled
		h.Metrics.Add("Disabled", metrics.Count, 1)
		if err := h.Store.Disable(ctx, sub.Owner, sub.ID); err != nil && !errors.Is(err, link.ErrNotFound) {
			return err
		}
	case errors.Is(err, webhook.ErrForbiddenAddress):
		d.Status = webhook.StatusRefused
		h.Metrics.Add("Refused", metrics.Count, 1)
		h.Log.WarnContext(ctx, "webhook receiver refused", "subscription", sub.ID, "error", err.Error())
	default:
		h.Metrics.Add("Failed", metrics.Count, 1)
		schedule := h.Schedule
		if schedule == nil {
			schedule = webhook.DefaultSchedule
		}
		wait, ok := webhook.NextRetry(schedule, m.Attempt)
		if !ok {
			d.Status = webhook.StatusFailed
			if err := h.DeadLetters.Send(ctx, m, 0); err != nil {
				return err
			}
			break
		}
		d.Status, d.NextRetry = webhook.StatusRetrying, now.Add(wait).UTC()
		next := m
		next.Attempt++
		next.Due = d.NextRetry
		if err := h.Queue.Send(ctx, next, wait); err != nil {
			return err
		}
	}
	// The attempt list is for people; losing a line must not resend.
	if err := h.Store.Record(ctx, sub.Owner, d); err != nil {
		h.Log.WarnContext(ctx, "record webhook delivery", "subscription", sub.ID, "error", err.Error())
	}
	return nil
}

// send makes one attempt and returns the receiver's status.
func (h *Handler) send(ctx context.Context, sub webhook.Subscription, e webhook.Event, now time.Time) (int, error) {
	u, err := url.Parse(sub.URL)
	if err != nil || !h.Guard.SchemeAllowed(u) {
		return 0, fmt.Errorf("%w: %s", webhook.ErrForbiddenAddress, "scheme")
	}
	body, err := e.Body()
	if err != nil {
		return 0, err
	}
	hs, err := webhook.Headers(sub.Secret, e.ID, now, body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "shortener-webhooks/1")
	for k, v := range hs {
		req.Header.Set(k, v)
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
