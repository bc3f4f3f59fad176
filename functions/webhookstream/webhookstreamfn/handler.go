// Package webhookstreamfn turns the links table's own stream into webhook events,
// so an event and the change it reports cannot disagree: a link written
// (INSERT, or a code reissued over a released tombstone) is link.created,
// a link changed is link.updated, a link turned into a tombstone is
// link.deleted or link.expired after the tombstone's reason, and a TTL
// deletion (a REMOVE by dynamodb.amazonaws.com) is link.expired.
// Tombstones themselves, written, changed or released, are no event.
//
// Each event goes to the queue once per subscription of its owner that
// wants it (webhook.Publisher); its ID is derived from the stream record's
// eventID, so a retried batch sends the same webhook-ids again. A record
// whose event cannot be queued is reported as a batch item failure. The
// Lambda in functions/webhookstream and the local run's stream poller run
// this handler.
package webhookstreamfn

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Publisher queues an event for its owner's subscriptions.
type Publisher interface {
	Publish(ctx context.Context, e webhook.Event) (int, error)
}

var _ Publisher = (*webhook.Publisher)(nil)

// batcher is a Publisher that reads subscriptions once per batch
// (webhook.Publisher.Batch with its Cache).
type batcher interface {
	Batch(ctx context.Context) (*webhook.Publisher, error)
}

var _ batcher = (*webhook.Publisher)(nil)

// Options are what New builds a Handler from: where the events go, the log
// and the metrics.
type Options struct {
	Events  Publisher
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Handler maps stream records to events.
type Handler struct {
	Options
}

// New builds a handler from o.
func New(o Options) *Handler { return &Handler{Options: o} }

// LinkData is the data of a link.* event.
type LinkData struct {
	Code           string `json:"code"`
	URL            string `json:"url"`
	Alias          string `json:"alias,omitempty"`
	Status         string `json:"status"`
	ExpiresAt      string `json:"expires_at"`
	RedirectStatus int    `json:"redirect_status"`
	// Version is what orders a link's events for a receiver (they arrive
	// in no order, and the event's timestamp, the stream record's
	// ApproximateCreationDateTime, is to the second): it goes up by one
	// on every change, and link.deleted and link.expired carry the last.
	Version int64 `json:"version"`
	// ImportedClicks is the link's imported click total (its stats'
	// "imported"), absent when it has none.
	ImportedClicks int64 `json:"imported_clicks,omitempty"`
}

// Handle handles one batch and reports the records that failed.
func (h *Handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	pub := h.Events
	if b, ok := h.Events.(batcher); ok {
		// One read of the subscriptions' version for the batch; if it
		// fails, each event reads its owner's subscriptions as before.
		if p, err := b.Batch(ctx); err == nil {
			pub = p
		} else {
			h.Log.WarnContext(ctx, "read the subscriptions' version; reading each owner's", "error", err.Error())
		}
	}
	for i := range ev.Records {
		r := &ev.Records[i]
		e, ok := Map(r)
		if !ok {
			h.Metrics.Add("RecordIgnored", metrics.Count, 1)
			continue
		}
		n, err := pub.Publish(ctx, e)
		if err != nil {
			h.Metrics.Add("RecordFailed", metrics.Count, 1)
			h.Log.ErrorContext(ctx, "queue webhook event", "event", e.Type, "eventID", r.EventID, "error", err.Error())
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
			continue
		}
		h.Metrics.Add("DeliveriesQueued", metrics.Count, float64(n))
	}
	if err := h.Metrics.Flush(); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

// image is the part of a link item an event needs.
type image struct {
	present   bool
	tombstone bool
	owner     string
	reason    string
	data      LinkData
}

func read(img map[string]events.DynamoDBAttributeValue) image {
	if len(img) == 0 {
		return image{}
	}
	s := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	n := func(name string) int64 {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeNumber {
			i, _ := strconv.ParseInt(v.Number(), 10, 64)
			return i
		}
		return 0
	}
	im := image{present: true, owner: s(tableschema.AttrOwner), reason: s(tableschema.AttrTombReason)}
	if s(tableschema.AttrStatus) == string(link.StatusTombstone) {
		im.tombstone = true
		if im.owner == "" {
			im.owner = s(tableschema.AttrPrevOwner)
		}
	}
	im.data = LinkData{Code: s(tableschema.AttrCode), URL: s(tableschema.AttrURL), Alias: s(tableschema.AttrAlias),
		Status: s(tableschema.AttrStatus), RedirectStatus: int(n(tableschema.AttrRedirectStatus)), Version: n(tableschema.AttrVersion),
		ImportedClicks: n(tableschema.AttrImportedClicks)}
	if exp := n(tableschema.AttrExpiresAt); exp != 0 {
		im.data.ExpiresAt = time.Unix(exp, 0).UTC().Format(time.RFC3339)
	}
	return im
}

// isTTLDeletion: a REMOVE made by DynamoDB's TTL process
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html).
func isTTLDeletion(r *events.DynamoDBEventRecord) bool {
	return r.EventName == "REMOVE" && r.UserIdentity != nil &&
		r.UserIdentity.Type == "Service" && r.UserIdentity.PrincipalID == "dynamodb.amazonaws.com"
}

// Map returns the event a stream record is, and false for records that
// are none.
func Map(r *events.DynamoDBEventRecord) (webhook.Event, bool) {
	old, cur := read(r.Change.OldImage), read(r.Change.NewImage)
	var (
		typ   string
		owner string
		data  LinkData
	)
	switch r.EventName {
	case "INSERT", "MODIFY":
		switch {
		case cur.tombstone && (!old.present || old.tombstone):
			return webhook.Event{}, false
		case cur.tombstone:
			typ, owner, data = webhook.LinkDeleted, old.owner, old.data
			if cur.reason == link.ReasonExpired {
				typ = webhook.LinkExpired
			}
			data.Status = string(link.StatusTombstone)
		case !old.present || old.tombstone:
			typ, owner, data = webhook.LinkCreated, cur.owner, cur.data
		default:
			typ, owner, data = webhook.LinkUpdated, cur.owner, cur.data
		}
	case "REMOVE":
		if !old.present || old.tombstone {
			return webhook.Event{}, false
		}
		typ, owner, data = webhook.LinkDeleted, old.owner, old.data
		if isTTLDeletion(r) {
			typ = webhook.LinkExpired
		}
	default:
		return webhook.Event{}, false
	}
	if owner == "" || data.Code == "" {
		return webhook.Event{}, false
	}
	body, err := json.Marshal(data)
	if err != nil {
		return webhook.Event{}, false
	}
	at := r.Change.ApproximateCreationDateTime.Time
	if at.IsZero() {
		at = time.Now()
	}
	return webhook.Event{ID: webhook.EventID(r.EventSourceArn, r.EventID), Owner: owner, Type: typ,
		Timestamp: at.UTC(), Data: body}, true
}
