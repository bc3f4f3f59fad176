package clicksfn

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// ClickEvents turns a counted batch's clicks into link.clicked events and
// returns what it could not queue; *webhook.ClickPublisher satisfies it.
type ClickEvents interface {
	Clicked(ctx context.Context, b webhook.ClickBatch) (webhook.ClickBatch, error)
}

var _ ClickEvents = (*webhook.ClickPublisher)(nil)

// Outbox keeps the click batches whose events could not be queued, until
// a later try queues them; *dynamo.Outbox satisfies it.
type Outbox interface {
	Put(ctx context.Context, p webhook.PendingClicks) error
	Due(ctx context.Context, now time.Time, limit int) ([]webhook.PendingClicks, error)
	Claim(ctx context.Context, p webhook.PendingClicks, until time.Time) error
	Reschedule(ctx context.Context, p webhook.PendingClicks) error
	Delete(ctx context.Context, key string) error
}

var _ Outbox = (*dynamo.Outbox)(nil)

// Defaults of the link.clicked path.
const (
	// DefaultPublishTimeout bounds the queueing of one batch's events, so
	// a queue that hangs leaves the invocation time to keep them.
	DefaultPublishTimeout = 10 * time.Second
	// DefaultRetryEvery is how often a handler looks at the outbox while
	// batches come; an invocation with no records (the schedule's) always
	// looks.
	DefaultRetryEvery = 30 * time.Second
	// maxRetried bounds the kept batches one look tries.
	maxRetried = 10
	// firstBackoff and maxBackoff bound the wait between two tries of a
	// kept batch: doubled from the first, jittered, capped.
	firstBackoff = 5 * time.Second
	maxBackoff   = 5 * time.Minute
)

// publish hands the clicks of the batch's first end records, which are
// counted, to h.Events. Counting went first, so that whatever the webhook
// path does, clicks are counted: its failures never hold a shard back.
// What cannot be queued within PublishTimeout is kept in the outbox and
// queued later (retryPending). Only when the outbox cannot keep it either
// does publish fail, and the batch is retried from its first record: the
// counting skips what it applied (the checkpoint), and the events go
// again under the same IDs, derived from the records' shard and sequence
// range.
func (h *Handler) publish(ctx context.Context, b *batch, end int) error {
	if h.Events == nil || end == 0 {
		return nil
	}
	cb := b.clickBatch(end)
	if len(cb.Codes) == 0 {
		return nil
	}
	timeout := h.PublishTimeout
	if timeout <= 0 {
		timeout = DefaultPublishTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	rest, err := h.Events.Clicked(pctx, cb)
	cancel()
	if err == nil {
		return nil
	}
	if h.Outbox == nil {
		return err
	}
	now := h.now()
	if perr := h.Outbox.Put(ctx, webhook.PendingClicks{Batch: rest, Since: now, Due: now}); perr != nil {
		return errors.Join(err, perr)
	}
	h.Metrics.Add("ClickEventsDeferred", metrics.Count, float64(len(rest.Codes)))
	h.Log.WarnContext(ctx, "link.clicked events kept in the outbox, to be queued later", "error", err.Error(),
		"batch", cb.ID, "codes", len(rest.Codes))
	h.lastLook.Store(0) // look again at the next batch
	return nil
}

// retryPending queues the outbox's due batches: at most every RetryEvery
// while batches come, and on every invocation with no records, which the
// schedule makes so that a quiet stream's outbox is emptied too. A batch
// is claimed first (so two handlers never try it at once), and deleted
// once queued, or its rest kept for the next try after a backoff.
func (h *Handler) retryPending(ctx context.Context, scheduled bool) {
	if h.Outbox == nil || h.Events == nil {
		return
	}
	every := h.RetryEvery
	if every <= 0 {
		every = DefaultRetryEvery
	}
	now := h.now()
	if last := h.lastLook.Load(); !scheduled && last != 0 && now.Sub(time.Unix(0, last)) < every {
		return
	}
	h.lastLook.Store(now.UnixNano())
	due, err := h.Outbox.Due(ctx, now, maxRetried)
	if err != nil {
		h.Metrics.Add("ClickEventsRetryFailures", metrics.Count, 1)
		h.Log.WarnContext(ctx, "read the link.clicked outbox; the next look retries", "error", err.Error())
		return
	}
	if len(due) == 0 {
		return
	}
	// How long the oldest event due has waited: alarm on it (minutes),
	// as the events of a quiet stream wait for the schedule.
	h.Metrics.Observe("ClickEventsPendingAge", metrics.Milliseconds, float64(now.Sub(due[0].Since).Milliseconds()))
	timeout := h.PublishTimeout
	if timeout <= 0 {
		timeout = DefaultPublishTimeout
	}
	for _, p := range due {
		if ctx.Err() != nil {
			return
		}
		// The claim outlasts the try: a try cut off (the invocation timed
		// out) leaves the batch to the next after that.
		if err := h.Outbox.Claim(ctx, p, now.Add(2*timeout)); err != nil {
			if !errors.Is(err, dynamo.ErrClaimed) {
				h.Log.WarnContext(ctx, "claim pending link.clicked events", "error", err.Error(), "key", p.Key)
			}
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		rest, err := h.Events.Clicked(pctx, p.Batch)
		cancel()
		if err == nil {
			h.Metrics.Add("ClickEventsRecovered", metrics.Count, float64(len(p.Batch.Codes)))
			if err := h.Outbox.Delete(ctx, p.Key); err != nil {
				// Queued: the next try sends the same webhook-ids again.
				h.Log.WarnContext(ctx, "delete queued link.clicked events", "error", err.Error(), "key", p.Key)
			}
			continue
		}
		p.Batch, p.Due = rest, h.now().Add(backoff(p.Attempts+1))
		h.Log.WarnContext(ctx, "queue pending link.clicked events; kept for the next try", "error", err.Error(),
			"key", p.Key, "attempts", p.Attempts+1, "next", p.Due)
		if err := h.Outbox.Reschedule(ctx, p); err != nil {
			h.Log.WarnContext(ctx, "reschedule pending link.clicked events; tried again when the claim ends",
				"error", err.Error(), "key", p.Key)
		}
		return // the queue still fails: leave the others for the next look
	}
}

// backoff is the wait before try n+1 of a kept batch.
func backoff(n int) time.Duration {
	d := maxBackoff
	if n < 7 {
		d = min(firstBackoff<<(n-1), maxBackoff)
	}
	return d/2 + rand.N(d/2+1)
}

// clickBatch is the clicks of the batch's first end records, per code in
// order of first click, each click's edge time kept so that the clicks
// of a link that died meanwhile can be told apart (webhook.ClickPublisher).
func (b *batch) clickBatch(end int) webhook.ClickBatch {
	out := webhook.ClickBatch{ID: batchID(b.records[:end])}
	at := map[string]int{}
	for i := range end {
		e := b.entries[i]
		if e.click < 0 {
			continue
		}
		c := &b.clicks[e.click]
		j, ok := at[c.code]
		if !ok {
			j = len(out.Codes)
			at[c.code] = j
			out.Codes = append(out.Codes, webhook.CodeClicks{Code: c.code})
		}
		if c.bot {
			out.Codes[j].Bot = append(out.Codes[j].Bot, c.ms)
		} else {
			out.Codes[j].Human = append(out.Codes[j].Human, c.ms)
		}
	}
	return out
}

// batchID names records by their shards and sequence range, the same on a
// retry of the same records.
func batchID(records []events.KinesisEventRecord) string {
	first, last := records[0], records[len(records)-1]
	return strings.Join([]string{first.EventSourceArn, first.EventID, last.EventID}, "|")
}
