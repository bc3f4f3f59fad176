package localkinesis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// PutRecordsAPI lists the call Writer makes.
type PutRecordsAPI interface {
	PutRecords(ctx context.Context, in *kinesis.PutRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.PutRecordsOutput, error)
}

var _ PutRecordsAPI = (*kinesis.Client)(nil)

// Kinesis limits on one PutRecords call (AWS-FACTS section 8; 5 MiB is the
// request size before the 2025 raise, which kinesalite still enforces).
const (
	MaxRecordsPerCall = 500
	MaxBytesPerCall   = 5 << 20
)

// Defaults of WriterOptions.
const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultMaxAttempts   = 5
	DefaultPutRetryDelay = 50 * time.Millisecond
	DefaultMaxPending    = 100_000
	// putTimeout bounds one PutRecords call, the SDK's retries included.
	putTimeout = 10 * time.Second
)

// WriterOptions configure a Writer. Stream is required.
type WriterOptions struct {
	// Stream is the stream's name.
	Stream string
	// FlushInterval is the longest a record waits before it is sent
	// (DefaultFlushInterval).
	FlushInterval time.Duration
	// MaxAttempts bounds the sends of a record PutRecords refuses before
	// it is dropped (DefaultMaxAttempts).
	MaxAttempts int
	// RetryDelay is the wait before a resend, doubled each time
	// (DefaultPutRetryDelay).
	RetryDelay time.Duration
	// MaxPending caps the records waiting to be sent; Write drops beyond
	// it (DefaultMaxPending).
	MaxPending int
	// PartitionKey picks a record's partition key; nil uses the edge
	// request id (a random key when it is empty).
	PartitionKey func(clicklog.Record) string
	// Log gets failed calls and dropped records; slog.Default() when nil.
	Log *slog.Logger
}

// WriterStats count what a Writer did.
type WriterStats struct {
	Sent    int64 // records Kinesis accepted
	Dropped int64 // records given up: refused MaxAttempts times, or over MaxPending
	Calls   int64 // PutRecords calls
}

// Writer sends real-time log records to a Kinesis stream in PutRecords
// batches. Write never waits for Kinesis; Close flushes. It is safe for
// concurrent use.
type Writer struct {
	api PutRecordsAPI
	o   WriterOptions

	mu      sync.Mutex
	pending []types.PutRecordsRequestEntry
	closed  bool

	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	ctx    context.Context // of the sends; cancelled when Close gives up
	cancel context.CancelFunc
	once   sync.Once

	sent, dropped, calls atomic.Int64
}

// NewWriter starts a writer to o.Stream; Close stops it.
func NewWriter(api PutRecordsAPI, o WriterOptions) (*Writer, error) {
	if o.Stream == "" {
		return nil, errors.New("localkinesis: the writer needs a Stream")
	}
	w := newWriter(api, o)
	go w.loop()
	return w, nil
}

// newWriter returns a writer whose loop is not started.
func newWriter(api PutRecordsAPI, o WriterOptions) *Writer {
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = DefaultPutRetryDelay
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.PartitionKey == nil {
		o.PartitionKey = func(r clicklog.Record) string { return r.RequestID }
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	w := &Writer{api: api, o: o, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	return w
}

// Write queues r, formatted as CloudFront writes a real-time log line. It
// does not wait for Kinesis; ctx is not used.
func (w *Writer) Write(_ context.Context, r clicklog.Record) {
	key := w.o.PartitionKey(r)
	if key == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		key = hex.EncodeToString(b[:])
	}
	e := types.PutRecordsRequestEntry{Data: clicklog.Format(r), PartitionKey: aws.String(key)}
	w.mu.Lock()
	if w.closed || len(w.pending) >= w.o.MaxPending {
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	w.pending = append(w.pending, e)
	full := len(w.pending) >= MaxRecordsPerCall
	w.mu.Unlock()
	if full {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

func (w *Writer) loop() {
	defer close(w.done)
	t := time.NewTicker(w.o.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-w.kick:
		case <-w.stop:
			w.flush()
			return
		}
		w.flush()
	}
}

// flush sends everything pending, in order, in calls within Kinesis's
// limits.
func (w *Writer) flush() {
	w.mu.Lock()
	batch := w.pending
	w.pending = nil
	w.mu.Unlock()
	for len(batch) > 0 {
		n, size := 0, 0
		for n < len(batch) && n < MaxRecordsPerCall {
			s := len(batch[n].Data) + len(aws.ToString(batch[n].PartitionKey))
			if n > 0 && size+s > MaxBytesPerCall {
				break
			}
			size += s
			n++
		}
		w.put(batch[:n])
		batch = batch[n:]
	}
}

// put sends entries, resending the ones Kinesis refuses.
func (w *Writer) put(entries []types.PutRecordsRequestEntry) {
	for attempt := 1; len(entries) > 0; attempt++ {
		if attempt > 1 {
			sleep(w.ctx, w.o.RetryDelay<<(attempt-2))
		}
		// Not w.ctx: an abandoned request brings kinesalite down (see
		// callContext).
		ctx, cancel := context.WithTimeout(context.Background(), putTimeout)
		out, err := w.api.PutRecords(ctx, &kinesis.PutRecordsInput{StreamName: &w.o.Stream, Records: entries})
		cancel()
		w.calls.Add(1)
		var refused []types.PutRecordsRequestEntry
		var code string
		switch {
		case err != nil:
			refused, code = entries, err.Error()
		default:
			for i, r := range out.Records {
				if r.ErrorCode != nil && i < len(entries) {
					refused, code = append(refused, entries[i]), aws.ToString(r.ErrorCode)
				}
			}
			w.sent.Add(int64(len(entries) - len(refused)))
		}
		if len(refused) > 0 && (attempt >= w.o.MaxAttempts || w.ctx.Err() != nil) {
			w.dropped.Add(int64(len(refused)))
			w.o.Log.Warn("localkinesis: log records dropped", "stream", w.o.Stream, "records", len(refused),
				"attempts", attempt, "error", code)
			return
		}
		entries = refused
	}
}

// Close sends what is pending and stops the writer. If ctx ends first,
// the sends are abandoned and ctx's error returned. Writes after Close
// are dropped.
func (w *Writer) Close(ctx context.Context) error {
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.stop)
	})
	select {
	case <-w.done:
		return nil
	default:
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		w.cancel()
		<-w.done
		return ctx.Err()
	}
}

// Stats returns the writer's counters.
func (w *Writer) Stats() WriterStats {
	return WriterStats{Sent: w.sent.Load(), Dropped: w.dropped.Load(), Calls: w.calls.Load()}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
