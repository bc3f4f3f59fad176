package ttlstreamfn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Tombstoner is the one store call the consumer makes.
type Tombstoner interface {
	Tombstone(ctx context.Context, t link.Tombstone) (written bool, err error)
}

// Options are what New builds a Handler from: the store its tombstones go
// to and their grace.
type Options struct {
	Store Tombstoner
	// Grace is how long a tombstone holds its code; link.DefaultTombstoneGrace when zero.
	Grace time.Duration
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
	// Log receives one line per failed or poison record; slog.Default() when nil.
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Handler writes a tombstone for each TTL deletion in a stream batch.
type Handler struct {
	Options
}

// New builds a handler from o, its clock and log defaulted.
func New(o Options) *Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Log = cmp.Or(o.Log, slog.Default())
	return &Handler{Options: o}
}

// Metric names.
const (
	MetricWritten = "TombstoneWritten"
	// MetricAlready counts TTL deletions whose tombstone was not written
	// because the code already holds one (a redelivery) or holds a live
	// link created since.
	MetricAlready = "TombstoneAlready"
	MetricIgnored = "RecordIgnored"
	MetricFailed  = "RecordFailed"
	MetricPoison  = "RecordPoison"
)

// errPoison marks a record that can never be handled.
var errPoison = errors.New("poison record")

// IsTTLDeletion reports whether r is a deletion made by DynamoDB's TTL
// process in this Region: what tableschema.TTLDeletionPattern, the event
// source mapping's filter, lets through.
func IsTTLDeletion(r *events.DynamoDBEventRecord) bool {
	if r.UserIdentity == nil {
		return false
	}
	return tableschema.IsTTLDeletion(r.EventName, r.UserIdentity.Type, r.UserIdentity.PrincipalID)
}

// Handle handles one batch and reports the records that failed.
func (h *Handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	for i := range ev.Records {
		r := &ev.Records[i]
		if !IsTTLDeletion(r) {
			h.Metrics.Add(MetricIgnored, metrics.Count, 1)
			continue
		}
		if err := h.tombstone(ctx, r); err != nil {
			resp.BatchItemFailures = append(resp.BatchItemFailures,
				events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
		}
	}
	if err := h.Metrics.Flush(); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

// tombstone handles one TTL deletion; it logs and counts its own failures.
func (h *Handler) tombstone(ctx context.Context, r *events.DynamoDBEventRecord) error {
	code, owner, err := decode(r.Change.OldImage)
	if err != nil {
		h.Metrics.Add(MetricPoison, metrics.Count, 1)
		h.Log.ErrorContext(ctx, "poison stream record", "eventID", r.EventID,
			"sequenceNumber", r.Change.SequenceNumber, "error", err.Error())
		return err
	}
	t := link.NewTombstone(code, owner, link.ReasonExpired, h.Now().UTC(), h.Grace)
	if u, ok := r.Change.OldImage[tableschema.AttrExpiredURL]; ok && u.DataType() == events.DataTypeString {
		// The item is gone: its after-expiry URL lives on in the tombstone.
		t.ExpiredURL = u.String()
	}
	written, err := h.Store.Tombstone(ctx, t)
	if err != nil {
		h.Metrics.Add(MetricFailed, metrics.Count, 1)
		h.Log.ErrorContext(ctx, "write tombstone", "code", code, "eventID", r.EventID,
			"sequenceNumber", r.Change.SequenceNumber, "error", err.Error())
		return err
	}
	if written {
		h.Metrics.Add(MetricWritten, metrics.Count, 1)
	} else {
		h.Metrics.Add(MetricAlready, metrics.Count, 1)
	}
	return nil
}

// decode reads the code and the owner from the deleted item's last image.
// The owner is kept for audit only, so an item without one still gets its
// tombstone.
func decode(img map[string]events.DynamoDBAttributeValue) (code, owner string, err error) {
	v, ok := img[tableschema.AttrCode]
	if !ok || v.DataType() != events.DataTypeString || v.String() == "" {
		return "", "", fmt.Errorf("%w: OldImage has no string %q", errPoison, tableschema.AttrCode)
	}
	if o, ok := img[tableschema.AttrOwner]; ok && o.DataType() == events.DataTypeString {
		owner = o.String()
	}
	return v.String(), owner, nil
}
