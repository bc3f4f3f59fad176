package auditarchivefn

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// PutObjectAPI is the one S3 call the function makes.
type PutObjectAPI interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

var _ PutObjectAPI = (*s3.Client)(nil)

// KeyPrefix is where the objects go in the bucket; the function's role may
// put objects under it only.
const KeyPrefix = "audit/"

// ContentType is the objects' type: JSON Lines.
const ContentType = "application/x-ndjson"

// Metric names.
const (
	// MetricArchived counts the entries written to an object.
	MetricArchived = "AuditEntriesArchived"
	// MetricObjects counts the objects written.
	MetricObjects = "AuditArchiveObjects"
	// MetricFailures counts the INSERT records reported failed (not in an
	// object, retried): alarmed (infra/monitoring).
	MetricFailures = "AuditArchiveFailures"
	// MetricIgnored counts the records that are no new entry (MODIFY,
	// REMOVE).
	MetricIgnored = "RecordIgnored"
)

// Options are what New builds a Handler from.
type Options struct {
	S3     PutObjectAPI
	Bucket string
	// Timeout bounds one upload, the SDK's retries included (10 s when
	// zero; the function's own timeout is longer).
	Timeout time.Duration
	// Log receives one line per failed batch or record; slog.Default()
	// when nil. Entries are never logged.
	Log     *slog.Logger
	Metrics *metrics.Emitter
}

// Handler copies batches of audit entries to S3.
type Handler struct {
	Options
}

// New builds a handler from o, its timeout and log defaulted.
func New(o Options) *Handler {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	o.Log = cmp.Or(o.Log, slog.Default())
	return &Handler{Options: o}
}

// Line is one line of an archived object: the entry as GET /v1/audit
// shows it, and the workspace whose log it is in (the API answers one
// workspace's log at a time; an object holds several).
type Line struct {
	Workspace string `json:"workspace"`
	audit.View
}

// Handle archives one batch and reports the records not archived.
func (h *Handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var (
		resp     events.DynamoDBEventResponse
		body     bytes.Buffer
		archived []*events.DynamoDBEventRecord
		failed   []*events.DynamoDBEventRecord
		stopped  bool
	)
	for i := range ev.Records {
		r := &ev.Records[i]
		if r.EventName != "INSERT" {
			h.Metrics.Add(MetricIgnored, metrics.Count, 1)
			continue
		}
		if stopped {
			failed = append(failed, r)
			continue
		}
		line, err := lineOf(r)
		if err != nil {
			// Nothing after it goes into this object: Lambda retries
			// from it, so the next object starts there.
			h.Log.ErrorContext(ctx, "audit stream record is no entry", "eventID", r.EventID,
				"sequenceNumber", r.Change.SequenceNumber, "error", err.Error())
			stopped = true
			failed = append(failed, r)
			continue
		}
		body.Write(line)
		archived = append(archived, r)
	}
	if len(archived) > 0 {
		key := Key(archived)
		if err := h.upload(ctx, key, body.Bytes(), archived); err != nil {
			h.Log.ErrorContext(ctx, "archive audit entries", "bucket", h.Bucket, "key", key, "entries", len(archived),
				"timeout", errors.Is(err, context.DeadlineExceeded), "error", err.Error())
			failed = append(archived, failed...)
		} else {
			h.Metrics.Add(MetricObjects, metrics.Count, 1)
			h.Metrics.Add(MetricArchived, metrics.Count, float64(len(archived)))
		}
	}
	for _, r := range failed {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
	}
	h.Metrics.Add(MetricFailures, metrics.Count, float64(len(failed)))
	if err := h.Metrics.Flush(); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

// upload writes one object with its SHA-256, which S3 verifies.
func (h *Handler) upload(ctx context.Context, key string, body []byte, records []*events.DynamoDBEventRecord) error {
	sum := sha256.Sum256(body)
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	_, err := h.S3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(h.Bucket), Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String(ContentType),
		ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(sum[:])),
		Metadata: map[string]string{
			"entries":               strconv.Itoa(len(records)),
			"first-sequence-number": records[0].Change.SequenceNumber,
			"last-sequence-number":  records[len(records)-1].Change.SequenceNumber,
		},
	})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", h.Bucket, key, err)
	}
	return nil
}

// Key is the object key of records (the archived INSERTs of one batch, in
// order): the day of the first one's stream time and the first and last
// sequence numbers, so the same records always make the same key.
func Key(records []*events.DynamoDBEventRecord) string {
	first, last := records[0], records[len(records)-1]
	day := first.Change.ApproximateCreationDateTime.UTC().Format("2006/01/02")
	return KeyPrefix + day + "/" + first.Change.SequenceNumber + "-" + last.Change.SequenceNumber + ".jsonl"
}

// maxSequenceDigits is the longest sequence number a stream record has
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html:
// 21 to 40 digits).
const maxSequenceDigits = 40

// lineOf is r's entry as one JSON line.
func lineOf(r *events.DynamoDBEventRecord) ([]byte, error) {
	seq := r.Change.SequenceNumber
	if len(seq) == 0 || len(seq) > maxSequenceDigits || !digits(seq) {
		return nil, fmt.Errorf("sequence number %q is not 1 to %d digits", seq, maxSequenceDigits)
	}
	if r.Change.ApproximateCreationDateTime.IsZero() {
		return nil, errors.New("no ApproximateCreationDateTime")
	}
	e, err := EntryOf(r.Change.NewImage)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(Line{Workspace: e.Workspace, View: audit.ViewOf(e)})
	if err != nil {
		return nil, fmt.Errorf("encode entry %s: %w", e.ID, err)
	}
	return append(b, '\n'), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// EntryOf decodes a stream image of the audit table (tableschema.Audit, as
// shared/dynamo's AuditStore writes it) into the entry.
func EntryOf(img map[string]events.DynamoDBAttributeValue) (audit.Entry, error) {
	if len(img) == 0 {
		return audit.Entry{}, errors.New("no new image (the stream's view type must be NEW_IMAGE)")
	}
	var errs []error
	str := func(name string, required bool) string {
		v, ok := img[name]
		if !ok && !required {
			return ""
		}
		if !ok || v.DataType() != events.DataTypeString {
			errs = append(errs, fmt.Errorf("attribute %s: missing or not a string", name))
			return ""
		}
		return v.String()
	}
	var e audit.Entry
	e.Workspace = str(tableschema.AttrOwner, true)
	e.ID = str(tableschema.AttrSK, true)
	e.Actor.ID = str(tableschema.AttrActor, true)
	e.Actor.Username = str(tableschema.AttrUsername, false)
	e.Source = audit.Source(str(tableschema.AttrSource, true))
	e.Action = str(tableschema.AttrAction, true)
	e.Target = audit.TargetType(str(tableschema.AttrTargetType, true))
	e.TargetID = str(tableschema.AttrTargetID, true)
	if v, ok := img[tableschema.AttrAt]; !ok || v.DataType() != events.DataTypeNumber {
		errs = append(errs, fmt.Errorf("attribute %s: missing or not a number", tableschema.AttrAt))
	} else if ms, err := strconv.ParseInt(v.Number(), 10, 64); err != nil {
		errs = append(errs, fmt.Errorf("attribute %s: %q is not milliseconds", tableschema.AttrAt, v.Number()))
	} else {
		e.At = time.UnixMilli(ms).UTC()
	}
	if s := str(tableschema.AttrBefore, false); s != "" {
		e.Before = json.RawMessage(s)
	}
	if s := str(tableschema.AttrAfter, false); s != "" {
		e.After = json.RawMessage(s)
	}
	if err := errors.Join(errs...); err != nil {
		return audit.Entry{}, fmt.Errorf("decode audit entry: %w", err)
	}
	return e, nil
}
