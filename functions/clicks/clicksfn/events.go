package clicksfn

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/webhook"
)

// ClickEvents hears of each batch's clicks, per code, for link.clicked
// webhooks; *webhook.ClickPublisher satisfies it.
type ClickEvents interface {
	Clicked(ctx context.Context, batchID string, clicks []webhook.Clicks) error
}

var _ ClickEvents = (*webhook.ClickPublisher)(nil)

// publish hands the batch's clicks, summed per code, to h.Events before
// they are counted. It goes first so that an event that could not be
// queued fails the batch, which Lambda then retries whole: the counting
// skips what it already applied (the checkpoint), the events go again
// under the same IDs, which are derived from the batch's shard and
// sequence range. Events are at least once; counts stay exactly once.
func (h *Handler) publish(ctx context.Context, b *batch) error {
	if h.Events == nil || len(b.clicks) == 0 {
		return nil
	}
	byCode := map[string]*webhook.Clicks{}
	var order []string
	for i := range b.clicks {
		c := &b.clicks[i]
		at := time.UnixMilli(c.ms).UTC()
		s, ok := byCode[c.code]
		if !ok {
			s = &webhook.Clicks{Code: c.code, From: at, To: at}
			byCode[c.code] = s
			order = append(order, c.code)
		}
		s.Total++
		if c.bot {
			s.Bot++
		} else {
			s.Human++
		}
		s.From, s.To = minTime(s.From, at), maxTime(s.To, at)
	}
	out := make([]webhook.Clicks, 0, len(order))
	for _, code := range order {
		out = append(out, *byCode[code])
	}
	return h.Events.Clicked(ctx, batchID(b.records), out)
}

// batchID names a batch by its shards and sequence range, the same on a
// retry of the same records.
func batchID(records []events.KinesisEventRecord) string {
	first, last := records[0], records[len(records)-1]
	return strings.Join([]string{first.EventSourceArn, first.EventID, last.EventID}, "|")
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
