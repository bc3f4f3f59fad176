package localkinesis

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/shortlink-dev/shortener/internal/pace"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// Kinesis limits on one PutRecords call (https://docs.aws.amazon.com/streams/latest/dev/service-sizes-and-limits.html; 5 MiB is the
// request size before the 2025 raise, which kinesalite still enforces).
const (
	MaxRecordsPerCall = 500
	MaxBytesPerCall   = 5 << 20
	// MaxPartitionKeyChars is the longest partition key, in Unicode
	// characters.
	MaxPartitionKeyChars = 256
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
//
// Each record goes into the body of the next call as it is written: its
// log line, base64-encoded, and its partition key, as the JSON object
// PutRecords takes (see batch).
type Writer struct {
	send Sender
	o    WriterOptions
	// head opens every call's body: {"StreamName":"...","Records":[
	head []byte

	mu      sync.Mutex
	pending batch
	spare   batch  // the last batch sent, emptied, for its memory
	line    []byte // scratch for a record's log line
	closed  bool

	body []byte // scratch for a call's body; only the loop uses it

	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	ctx    context.Context // of the sends; cancelled when Close gives up
	cancel context.CancelFunc
	once   sync.Once

	sent, dropped, calls atomic.Int64
}

// NewWriter starts a writer to o.Stream; Close stops it.
func NewWriter(send Sender, o WriterOptions) (*Writer, error) {
	if o.Stream == "" {
		return nil, errors.New("localkinesis: the writer needs a Stream")
	}
	w := newWriter(send, o)
	go w.loop()
	return w, nil
}

// newWriter returns a writer whose loop is not started.
func newWriter(send Sender, o WriterOptions) *Writer {
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
	w := &Writer{send: send, o: o, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.head = append(appendJSONString([]byte(`{"StreamName":`), o.Stream), `,"Records":[`...)
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
	// A key of no more bytes than that has no more characters.
	if len(key) > MaxPartitionKeyChars && utf8.RuneCountInString(key) > MaxPartitionKeyChars {
		// Kinesis would refuse the whole call for it.
		w.dropped.Add(1)
		w.o.Log.Warn("localkinesis: log record dropped, its partition key is too long", "stream", w.o.Stream,
			"characters", utf8.RuneCountInString(key))
		return
	}
	w.mu.Lock()
	if w.closed || w.pending.len() >= w.o.MaxPending {
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	w.line = clicklog.Append(w.line[:0], r)
	w.pending.add(w.line, key)
	full := w.pending.len() >= MaxRecordsPerCall || w.pending.size >= MaxBytesPerCall
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
	b := w.pending
	w.pending, w.spare = w.spare, batch{}
	w.mu.Unlock()
	for i := 0; i < b.len(); {
		j, size := i, 0
		for j < b.len() && j-i < MaxRecordsPerCall {
			if j > i && size+b.sizes[j] > MaxBytesPerCall {
				break
			}
			size += b.sizes[j]
			j++
		}
		w.put(b.slice(i, j))
		i = j
	}
	if cap(b.buf) <= maxSpareBytes {
		b.reset()
		w.mu.Lock()
		w.spare = b
		w.mu.Unlock()
	}
}

// maxSpareBytes bounds the memory a writer keeps between flushes.
const maxSpareBytes = 8 << 20

// put sends b's records, resending the ones Kinesis refuses.
func (w *Writer) put(b batch) {
	for attempt := 1; b.len() > 0; attempt++ {
		if attempt > 1 {
			pace.Sleep(w.ctx, w.o.RetryDelay<<(attempt-2))
		}
		w.body = b.body(w.body[:0], w.head)
		// Not w.ctx: an abandoned request brings kinesalite down (see
		// callContext).
		ctx, cancel := context.WithTimeout(context.Background(), putTimeout)
		codes, err := w.send.PutRecords(ctx, w.body, b.len())
		cancel()
		w.calls.Add(1)
		var refused batch
		var code string
		switch {
		case err != nil:
			refused, code = b, err.Error()
		default:
			for i, c := range codes {
				if c != "" {
					refused.addObject(b.object(i), b.sizes[i])
					code = c
				}
			}
			w.sent.Add(int64(b.len() - refused.len()))
		}
		if refused.len() > 0 && (attempt >= w.o.MaxAttempts || w.ctx.Err() != nil) {
			w.dropped.Add(int64(refused.len()))
			w.o.Log.Warn("localkinesis: log records dropped", "stream", w.o.Stream, "records", refused.len(),
				"attempts", attempt, "error", code)
			return
		}
		b = refused
	}
}

// batch holds records as the JSON objects of a PutRecords request's
// Records array, each with the comma before it:
//
//	,{"Data":"<the log line in base64>","PartitionKey":"<key>"}
type batch struct {
	buf   []byte
	ends  []int // where each record's object ends in buf
	sizes []int // what each record counts against MaxBytesPerCall: its data and its key
	size  int   // the sum of sizes
}

func (b *batch) len() int { return len(b.ends) }

// add appends a record of data and key.
func (b *batch) add(data []byte, key string) {
	b.buf = append(b.buf, `,{"Data":"`...)
	b.buf = base64.StdEncoding.AppendEncode(b.buf, data)
	b.buf = append(b.buf, `","PartitionKey":`...)
	b.buf = appendJSONString(b.buf, key)
	b.buf = append(b.buf, '}')
	b.ends = append(b.ends, len(b.buf))
	b.sizes = append(b.sizes, len(data)+len(key))
	b.size += len(data) + len(key)
}

// addObject appends a record's object as object returns it.
func (b *batch) addObject(obj []byte, size int) {
	b.buf = append(b.buf, obj...)
	b.ends = append(b.ends, len(b.buf))
	b.sizes = append(b.sizes, size)
	b.size += size
}

// object returns record i's object, with its comma.
func (b *batch) object(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.buf[start:b.ends[i]]
}

// slice returns records [i, j) as a batch sharing b's memory.
func (b *batch) slice(i, j int) batch {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	s := batch{buf: b.buf[start:b.ends[j-1]], sizes: b.sizes[i:j], ends: make([]int, j-i)}
	for k := i; k < j; k++ {
		s.ends[k-i] = b.ends[k] - start
		s.size += b.sizes[k]
	}
	return s
}

// body appends to dst the request whose Records are b's and which head
// opens.
func (b *batch) body(dst, head []byte) []byte {
	dst = append(dst, head...)
	if len(b.buf) > 0 {
		dst = append(dst, b.buf[1:]...) // the first record's comma
	}
	return append(dst, "]}"...)
}

func (b *batch) reset() {
	b.buf, b.ends, b.sizes, b.size = b.buf[:0], b.ends[:0], b.sizes[:0], 0
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			q, _ := json.Marshal(s) // a string always marshals
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
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
