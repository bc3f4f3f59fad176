package localmapping

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/internal/pace"
)

// StartingPosition is where a mapping starts reading the shards it finds
// when it starts; shards found later are read from their start.
type StartingPosition string

// The starting positions a stream event source mapping takes (AT_TIMESTAMP
// is Kinesis only, and the local run has no use for it).
const (
	TrimHorizon StartingPosition = "TRIM_HORIZON"
	Latest      StartingPosition = "LATEST"
)

// Shard is one shard as a Source lists it.
type Shard struct {
	ID string
	// Parents are the shards whose records come before this one's: the
	// parent of a split, both parents of a Kinesis merge. Empty IDs are
	// ignored.
	Parents []string
	// Closed reports that the shard takes no more records: its sequence
	// number range has an end.
	Closed bool
}

// Position is where to take a shard iterator: after the sequence number
// After (AFTER_SEQUENCE_NUMBER) when it is set, else at Start.
type Position struct {
	Start StartingPosition
	After string
}

// Page is what one read of a shard returns.
type Page[R any] struct {
	Records []R
	// Next is the iterator for the next read; nil when the shard is
	// closed and read to its end.
	Next *string
	// Behind reports that records lie further on even though this page
	// may be empty (Kinesis's MillisBehindLatest).
	Behind bool
}

// Errors a Source's Read wraps so that the mapping knows what to do next.
var (
	// ErrExpiredIterator: the iterator is taken again after the checkpoint.
	ErrExpiredIterator = errors.New("shard iterator expired")
	// ErrTrimmed: the records after the checkpoint are gone; the shard is
	// read again from its trim horizon.
	ErrTrimmed = errors.New("records trimmed before they were read")
)

// Source is one kind of stream as a mapping reads it: R is the record as
// the function's event carries it, E the event, Resp the function's
// answer, whose batchItemFailures the mapping reads from its JSON as
// Lambda does.
type Source[R, E, Resp any] interface {
	// Shards lists the stream's shards, all pages of them.
	Shards(ctx context.Context) ([]Shard, error)
	// Iterator returns an iterator of shard at p.
	Iterator(ctx context.Context, shard string, p Position) (*string, error)
	// Read reads up to limit records of shard at iterator, converted to
	// the event's records.
	Read(ctx context.Context, shard string, iterator *string, limit int) (Page[R], error)
	// Event is the event Lambda delivers for batch.
	Event(batch []R) E
	// SequenceNumber is r's sequence number, the item identifier a
	// partial-failure response names it by.
	SequenceNumber(r R) string
}

// batchResponse is the partial-failure response as Lambda reads it from
// the function's JSON answer, the same for DynamoDB Streams and Kinesis
// (events.DynamoDBEventResponse, events.KinesisEventResponse).
type batchResponse struct {
	BatchItemFailures []struct {
		ItemIdentifier string `json:"itemIdentifier"`
	} `json:"batchItemFailures"`
}

// Failure is a batch a mapping gave up on after its retries.
type Failure[R any] struct {
	Shard string
	// Records are the records of the last attempt.
	Records []R
	// Failed are the sequence numbers the function reported in its last
	// attempt; empty when it failed the whole batch.
	Failed   []string
	Attempts int
	// Err is why the whole batch failed, when it did.
	Err error
}

// Defaults of Options.
const (
	DefaultBatchSize    = 100 // the mapping's default
	DefaultMaxRetries   = 3
	DefaultRetryDelay   = 200 * time.Millisecond
	DefaultPollInterval = 250 * time.Millisecond
	// rediscoverEvery is how often the shards are listed again, to find
	// the children of a split even before the parent is read to its end.
	rediscoverEvery = 10 * time.Second
	// maxRetryDelay caps the wait between retries.
	maxRetryDelay = 10 * time.Second
	// behindPause spaces reads of a shard that has more to read: Kinesis
	// allows five GetRecords a second per shard.
	behindPause = 200 * time.Millisecond
)

// Options configure a Mapping.
type Options[R any] struct {
	// Name prefixes the messages the mapping logs, e.g. "localstream".
	Name string
	// BatchSize bounds the records of one invocation (DefaultBatchSize).
	BatchSize int
	// BatchWindow is MaximumBatchingWindowInSeconds: how long records are
	// gathered before the function is called with fewer than BatchSize.
	// Zero calls it with whatever one read returned.
	BatchWindow time.Duration
	// MaxRetries is MaximumRetryAttempts: retries of a failed batch
	// before it is given up (DefaultMaxRetries when zero; negative for
	// none).
	MaxRetries int
	// RetryDelay is the wait before the first retry, doubled for each
	// next one up to 10 s (DefaultRetryDelay).
	RetryDelay time.Duration
	// PollInterval is the wait after a read that found nothing
	// (DefaultPollInterval).
	PollInterval time.Duration
	// StartingPosition is TrimHorizon (default) or Latest.
	StartingPosition StartingPosition
	// OnFailure receives a batch given up on; it is required.
	OnFailure func(context.Context, Failure[R])
	// Log gets the errors the mapping retries; slog.Default() when nil.
	Log *slog.Logger
}

// Mapping feeds a Source's shards to a function. Run it once.
type Mapping[R, E, Resp any] struct {
	src     Source[R, E, Resp]
	handler func(context.Context, E) (Resp, error)
	opts    Options[R]
}

// New checks o, fills in its defaults and returns a mapping of src to
// handler; it makes no call until Run.
func New[R, E, Resp any](src Source[R, E, Resp], handler func(context.Context, E) (Resp, error), o Options[R]) (*Mapping[R, E, Resp], error) {
	if handler == nil || o.OnFailure == nil {
		return nil, fmt.Errorf("%s: a handler and OnFailure are required", o.Name)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	} else if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = DefaultRetryDelay
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	switch o.StartingPosition {
	case "":
		o.StartingPosition = TrimHorizon
	case TrimHorizon, Latest:
	default:
		return nil, fmt.Errorf("%s: starting position %q: use TRIM_HORIZON or LATEST", o.Name, o.StartingPosition)
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Mapping[R, E, Resp]{src: src, handler: handler, opts: o}, nil
}

// shard is one shard as the mapping tracks it.
type shard struct {
	Shard
	start         StartingPosition
	started, done bool
}

// Run reads every shard, each in its own goroutine, until ctx is done,
// then waits for the batches in hand to finish and returns. Errors are
// logged and retried.
func (m *Mapping[R, E, Resp]) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	shards := map[string]*shard{}
	var order []string // in the order the listings showed them
	finished := make(chan string)
	initial := true
	refresh := func() {
		found, err := m.src.Shards(ctx)
		if err != nil {
			m.logError(ctx, "list shards", err)
			return
		}
		for _, sh := range found {
			if _, ok := shards[sh.ID]; ok {
				continue
			}
			s := &shard{Shard: sh, start: TrimHorizon}
			if initial {
				s.start = m.opts.StartingPosition
				// A closed shard holds nothing newer than LATEST.
				s.done = sh.Closed && s.start == Latest
			}
			shards[sh.ID] = s
			order = append(order, sh.ID)
		}
		initial = false
		for _, id := range order {
			s := shards[id]
			if s.started || s.done || !ready(shards, s) {
				continue
			}
			s.started = true
			wg.Go(func() {
				m.readShard(ctx, s.ID, s.start)
				select {
				case finished <- s.ID:
				case <-ctx.Done():
				}
			})
		}
	}

	refresh()
	t := time.NewTicker(rediscoverEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-finished:
			shards[id].done = true
			refresh()
		case <-t.C:
			refresh()
		}
	}
}

// ready reports whether s may be read: records of a key must reach the
// function in order, so a child waits until its parents are read to the
// end. A parent the listing no longer shows has been trimmed.
func ready(shards map[string]*shard, s *shard) bool {
	for _, parent := range s.Parents {
		if ps, ok := shards[parent]; parent != "" && ok && !ps.done {
			return false
		}
	}
	return true
}

// readShard hands the shard's records to the function, in order, until
// the shard is closed and read to its end, or ctx is done.
func (m *Mapping[R, E, Resp]) readShard(ctx context.Context, id string, start StartingPosition) {
	var iterator *string
	checkpoint := "" // the last sequence number handed over for good
	for ctx.Err() == nil {
		if iterator == nil {
			it, err := m.src.Iterator(ctx, id, Position{Start: start, After: checkpoint})
			if err != nil {
				m.logError(ctx, "get shard iterator", err, "shard", id)
				pace.Sleep(ctx, m.opts.PollInterval)
				continue
			}
			iterator = it
		}
		batch, closed, trimmed := m.gather(ctx, id, &iterator)
		if len(batch) > 0 && ctx.Err() == nil {
			m.deliver(ctx, id, batch)
			checkpoint = m.src.SequenceNumber(batch[len(batch)-1])
		}
		if trimmed {
			checkpoint, start = "", TrimHorizon
		}
		if closed {
			return
		}
		if len(batch) == 0 {
			pace.Sleep(ctx, m.opts.PollInterval)
		}
	}
}

// gather reads records from *iterator until it has a batch: BatchSize
// records, or whatever is there once BatchWindow has passed since the
// first. It reports whether the shard is closed and read to its end, and
// whether records were trimmed before they were read. An iterator to be
// taken again is set to nil.
func (m *Mapping[R, E, Resp]) gather(ctx context.Context, id string, iterator **string) (batch []R, closed, trimmed bool) {
	var first time.Time
	for ctx.Err() == nil {
		page, err := m.src.Read(ctx, id, *iterator, m.opts.BatchSize-len(batch))
		switch {
		case errors.Is(err, ErrExpiredIterator):
			*iterator = nil // a new one after the checkpoint
			return batch, false, false
		case errors.Is(err, ErrTrimmed):
			m.logError(ctx, "records trimmed before they were read", err, "shard", id)
			*iterator = nil
			return batch, false, true
		case err != nil:
			m.logError(ctx, "get records", err, "shard", id)
			return batch, false, false
		}
		batch = append(batch, page.Records...)
		if *iterator = page.Next; *iterator == nil {
			return batch, true, false // closed by a split or merge, and read to the end
		}
		if len(batch) == 0 {
			if !page.Behind {
				return nil, false, false
			}
			// Kinesis may answer empty while records lie further on.
			pace.Sleep(ctx, behindPause)
			continue
		}
		if first.IsZero() {
			first = time.Now()
		}
		waited := time.Since(first)
		if len(batch) >= m.opts.BatchSize || waited >= m.opts.BatchWindow {
			return batch, false, false
		}
		pause := min(m.opts.PollInterval, m.opts.BatchWindow-waited)
		if page.Behind {
			pause = behindPause
		}
		pace.Sleep(ctx, pause)
	}
	return batch, false, false
}

// deliver hands batch to the function until it succeeds, retrying from
// the lowest failed record, and gives it up after MaxRetries retries.
func (m *Mapping[R, E, Resp]) deliver(ctx context.Context, id string, batch []R) {
	for attempt := 1; ; attempt++ {
		resp, err := invokeAs[E, Resp, batchResponse](ctx, m.handler, m.src.Event(batch))
		if ctx.Err() != nil {
			return
		}
		from := len(batch) // index of the lowest failed record; len: none
		var failed []string
		if err != nil {
			from = 0
		} else {
			for _, f := range resp.BatchItemFailures {
				// Lambda fails the whole batch on an identifier that is
				// empty or names no record of it.
				i := m.indexOf(batch, f.ItemIdentifier)
				if i < 0 {
					err = fmt.Errorf("batchItemFailures names %q, no record of the batch", f.ItemIdentifier)
					from, failed = 0, nil
					break
				}
				from = min(from, i)
				failed = append(failed, f.ItemIdentifier)
			}
		}
		if from == len(batch) {
			return
		}
		if attempt > m.opts.MaxRetries {
			m.opts.OnFailure(ctx, Failure[R]{Shard: id, Records: batch, Failed: failed, Attempts: attempt, Err: err})
			return
		}
		batch = batch[from:]
		pace.Sleep(ctx, m.retryDelay(attempt))
	}
}

// retryDelay is the wait after the attempt-th failure: RetryDelay doubled
// each time, at most maxRetryDelay.
func (m *Mapping[R, E, Resp]) retryDelay(attempt int) time.Duration {
	d := m.opts.RetryDelay
	for i := 1; i < attempt && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

func (m *Mapping[R, E, Resp]) indexOf(batch []R, seq string) int {
	if seq == "" {
		return -1
	}
	for i := range batch {
		if m.src.SequenceNumber(batch[i]) == seq {
			return i
		}
	}
	return -1
}

func (m *Mapping[R, E, Resp]) logError(ctx context.Context, msg string, err error, attrs ...any) {
	if ctx.Err() != nil {
		return // shutting down
	}
	m.opts.Log.WarnContext(ctx, m.opts.Name+": "+msg, append(attrs, "error", err.Error())...)
}
