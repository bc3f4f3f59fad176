package clicksfn

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

var errQueueDown = errors.New("send message: ServiceUnavailable")

// clickEvents records the batches it queued; while down it queues nothing
// and returns every batch whole.
type clickEvents struct {
	mu     sync.Mutex
	down   bool
	queued []webhook.ClickBatch
}

func (e *clickEvents) Clicked(_ context.Context, b webhook.ClickBatch) (webhook.ClickBatch, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.down {
		return b, errQueueDown
	}
	e.queued = append(e.queued, b)
	return webhook.ClickBatch{ID: b.ID}, nil
}

// perCode sums what was queued per code, and counts each event (batch ID
// and code) queued more than once.
func (e *clickEvents) perCode() (map[string]clickstore.Counts, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sums, seen, dupes := map[string]clickstore.Counts{}, map[string]bool{}, 0
	for _, b := range e.queued {
		for _, c := range b.Codes {
			if id := webhook.EventID(b.ID, c.Code); seen[id] {
				dupes++
				continue
			} else {
				seen[id] = true
			}
			s := sums[c.Code]
			for range c.Human {
				s.AddClick(false)
			}
			for range c.Bot {
				s.AddClick(true)
			}
			sums[c.Code] = s
		}
	}
	return sums, dupes
}

// outbox is an in-memory Outbox; while down its Put fails.
type outbox struct {
	mu   sync.Mutex
	down bool
	kept map[string]webhook.PendingClicks
	n    int
}

func (o *outbox) Put(_ context.Context, p webhook.PendingClicks) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down {
		return errors.New("keep pending clicks: unavailable")
	}
	if o.kept == nil {
		o.kept = map[string]webhook.PendingClicks{}
	}
	o.n++
	p.Key = p.Since.Format(time.RFC3339Nano) + "#" + p.Batch.ID
	o.kept[p.Key] = p
	return nil
}

func (o *outbox) Due(_ context.Context, now time.Time, limit int) ([]webhook.PendingClicks, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var due []webhook.PendingClicks
	for _, p := range o.kept {
		if !p.Due.After(now) {
			due = append(due, p)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].Key < due[j].Key })
	return due[:min(len(due), limit)], nil
}

func (o *outbox) Claim(_ context.Context, p webhook.PendingClicks, until time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur, ok := o.kept[p.Key]
	if !ok || !cur.Due.Equal(p.Due) {
		return dynamo.ErrClaimed
	}
	cur.Due, cur.Attempts = until, cur.Attempts+1
	o.kept[p.Key] = cur
	return nil
}

func (o *outbox) Reschedule(_ context.Context, p webhook.PendingClicks) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if cur, ok := o.kept[p.Key]; ok {
		cur.Batch, cur.Due = p.Batch, p.Due
		o.kept[p.Key] = cur
	}
	return nil
}

func (o *outbox) Delete(_ context.Context, key string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.kept, key)
	return nil
}

func (o *outbox) pending() []webhook.PendingClicks {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []webhook.PendingClicks
	for _, p := range o.kept {
		out = append(out, p)
	}
	return out
}

// totals is want's day counts, per code.
func assertQueued(t *testing.T, ev *clickEvents, want map[string]clickstore.Counts) {
	t.Helper()
	got, dupes := ev.perCode()
	assert.Equal(t, want, got, "every counted click in the events, once")
	assert.Zero(t, dupes, "no event queued twice")
}

// TestCountingGoesOnWhenEventsCannotBeQueued: with the queue down, a batch
// is counted in full and not failed; its events are kept, and queued by
// the next invocation with no records (the schedule's) once the queue is
// back.
func TestCountingGoesOnWhenEventsCannotBeQueued(t *testing.T) {
	forEachDesign(t, func(t *testing.T, d design) {
		full, want := bigBatch(t, 150, 40)
		f := newFixture(t, d)
		ev, ob := &clickEvents{down: true}, &outbox{}
		now := noon
		h := f.handler(nil)
		h.Events, h.Outbox, h.Now = ev, ob, func() time.Time { return now }

		resp, err := h.Handle(context.Background(), full)

		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures, "the queue's outage holds no shard back")
		for code, w := range want {
			assert.Equal(t, w, f.day(t, code), code)
		}
		kept := ob.pending()
		require.Len(t, kept, 1)
		assert.Len(t, kept[0].Batch.Codes, 40, "every code's events kept")
		assert.Equal(t, batchID(full.Records), kept[0].Batch.ID)
		assert.Equal(t, 1, kept[0].Attempts, "tried once more from the outbox, still down")
		assert.Equal(t, 40.0, f.lastMetrics(t)["ClickEventsDeferred"])

		// Still down: a scheduled invocation leaves it, a backoff later.
		now = kept[0].Due.Add(-time.Millisecond)
		_, err = h.Handle(context.Background(), events.KinesisEvent{})
		require.NoError(t, err)
		assert.Len(t, ob.pending(), 1, "not due yet")

		ev.mu.Lock()
		ev.down = false
		ev.mu.Unlock()
		now = kept[0].Due
		resp, err = h.Handle(context.Background(), events.KinesisEvent{})
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Empty(t, ob.pending(), "queued and deleted")
		assertQueued(t, ev, want)
		for code, w := range want {
			assert.Equal(t, w, f.day(t, code), "%s: still counted once", code)
		}
	})
}

// TestEventsOnlyForCountedRecords: a batch that fails halfway on DynamoDB
// queues the events of the records it counted; the retry from the
// reported record queues the rest: each click in exactly one event.
func TestEventsOnlyForCountedRecords(t *testing.T) {
	full, want := bigBatch(t, 150, 40)
	f := newFixture(t, designs[0])
	ev := &clickEvents{}
	h := f.handler(&flakyDB{Client: f.client, failOn: map[int]bool{2: true}})
	h.Events = ev

	resp, err := h.Handle(context.Background(), full)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 1)
	require.Len(t, ev.queued, 1)
	failedAt := resp.BatchItemFailures[0].ItemIdentifier
	i := slices.IndexFunc(full.Records, func(r events.KinesisEventRecord) bool { return r.Kinesis.SequenceNumber == failedAt })
	assert.Equal(t, batchID(full.Records[:i]), ev.queued[0].ID, "named by the counted records")

	h = f.handler(nil)
	h.Events = ev
	resp, err = h.Handle(context.Background(), from(t, full, failedAt))
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	assertQueued(t, ev, want)
}

// TestEventsNeitherQueuedNorKept: with the queue and the outbox both
// failing, the batch is reported failed from its first record; the retry
// counts nothing again and queues the events under the same IDs.
func TestEventsNeitherQueuedNorKept(t *testing.T) {
	full, want := bigBatch(t, 60, 10)
	f := newFixture(t, designs[1])
	ev, ob := &clickEvents{down: true}, &outbox{down: true}
	h := f.handler(nil)
	h.Events, h.Outbox = ev, ob

	resp, err := h.Handle(context.Background(), full)
	require.NoError(t, err)
	assert.Equal(t, []events.KinesisBatchItemFailure{{ItemIdentifier: full.Records[0].Kinesis.SequenceNumber}}, resp.BatchItemFailures)
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), "%s: counted before the events failed", code)
	}

	ev.down, ob.down = false, false
	resp, err = h.Handle(context.Background(), full)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	for code, w := range want {
		assert.Equal(t, w, f.day(t, code), "%s: not counted again", code)
	}
	assertQueued(t, ev, want)
	assert.Equal(t, batchID(full.Records), ev.queued[0].ID)
	assert.Empty(t, ob.pending())
}

// TestPendingBatchTriedOnce: two handlers that look at the outbox at once
// (two shards' invocations) queue a kept batch once.
func TestPendingBatchTriedOnce(t *testing.T) {
	ob := &outbox{}
	b := webhook.ClickBatch{ID: "s|1|2", Codes: []webhook.CodeClicks{{Code: "a", Human: []int64{noon.UnixMilli()}}}}
	require.NoError(t, ob.Put(context.Background(), webhook.PendingClicks{Batch: b, Since: noon, Due: noon}))
	ev := &clickEvents{}
	var wg sync.WaitGroup
	for range 4 {
		h := fakeHandler(&fakeStore{})
		h.Events, h.Outbox, h.Now = ev, ob, func() time.Time { return noon }
		wg.Go(func() { _, _ = h.Handle(context.Background(), events.KinesisEvent{}) })
	}
	wg.Wait()
	assert.Len(t, ev.queued, 1)
	assert.Empty(t, ob.pending())
}

func TestBackoff(t *testing.T) {
	for n := 1; n < 12; n++ {
		d := backoff(n)
		assert.GreaterOrEqual(t, d, min(firstBackoff<<(n-1), maxBackoff)/2, "try %d", n)
		assert.LessOrEqual(t, d, maxBackoff, "try %d", n)
	}
}

// TestScheduledInvocationsCompactHourly: the retry rule's invocations (no
// records) compact at most once an hour per instance, so that on a quiet
// stream the function's invocations, which the alarm on compactions
// missing counts, come with compactions.
func TestScheduledInvocationsCompactHourly(t *testing.T) {
	c := &countingCompactor{}
	now := noon
	h := fakeHandler(&fakeStore{})
	h.Compactor, h.Now = c, func() time.Time { return now }
	var got []int
	for _, step := range []time.Duration{0, time.Minute, 58 * time.Minute, time.Minute, time.Minute} {
		now = now.Add(step)
		_, err := h.Handle(context.Background(), events.KinesisEvent{})
		require.NoError(t, err)
		got = append(got, c.n)
	}
	assert.Equal(t, []int{1, 1, 1, 2, 2}, got, "at once on a new instance, then after an hour")
}
