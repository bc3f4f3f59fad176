package localkinesis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/shortlink-dev/shortener/internal/lambdainvoke"
)

// ReadAPI lists the Kinesis calls the poller makes.
type ReadAPI interface {
	DescribeStreamSummary(ctx context.Context, in *kinesis.DescribeStreamSummaryInput, optFns ...func(*kinesis.Options)) (*kinesis.DescribeStreamSummaryOutput, error)
	ListShards(ctx context.Context, in *kinesis.ListShardsInput, optFns ...func(*kinesis.Options)) (*kinesis.ListShardsOutput, error)
	GetShardIterator(ctx context.Context, in *kinesis.GetShardIteratorInput, optFns ...func(*kinesis.Options)) (*kinesis.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *kinesis.GetRecordsInput, optFns ...func(*kinesis.Options)) (*kinesis.GetRecordsOutput, error)
}

var _ ReadAPI = (*kinesis.Client)(nil)

// Handler is a Kinesis function's handler, such as the clicks function's
// Handle.
type Handler func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error)

// Failure describes a batch the poller gave up on after its retries, with
// what an on-failure destination receives for Kinesis (KinesisBatchInfo):
// the shard and the sequence number range, not the data.
type Failure struct {
	StreamARN string
	ShardID   string
	// StartSequenceNumber and EndSequenceNumber bound the records of the
	// last attempt; BatchSize counts them.
	StartSequenceNumber string
	EndSequenceNumber   string
	BatchSize           int
	// ApproximateArrivalOfFirstRecord and ...LastRecord are their arrival
	// times.
	ApproximateArrivalOfFirstRecord time.Time
	ApproximateArrivalOfLastRecord  time.Time
	// Failed are the sequence numbers the handler reported in its last
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
	// DefaultRoleName is the role in invokeIdentityArn when Options name
	// none.
	DefaultRoleName = "local-kinesis-consumer"
	// rediscoverEvery is how often the shards are listed again, to find
	// the children of a resharding.
	rediscoverEvery = 10 * time.Second
	// maxRetryDelay caps the wait between retries.
	maxRetryDelay = 10 * time.Second
	// callTimeout bounds one Kinesis call, the SDK's retries included.
	callTimeout = 10 * time.Second
	// behindPause spaces GetRecords calls on a shard that has more to
	// read: Kinesis allows five a second per shard.
	behindPause = 200 * time.Millisecond
)

// Options configure a Poller. Stream and Handler are required.
type Options struct {
	// Stream is the stream's name.
	Stream  string
	Handler Handler
	// BatchSize bounds the records of one invocation (DefaultBatchSize;
	// Kinesis returns at most 10,000 per GetRecords).
	BatchSize int
	// BatchWindow is MaximumBatchingWindowInSeconds: how long records are
	// gathered before the handler is called with fewer than BatchSize.
	// Zero calls it with whatever one GetRecords returned.
	BatchWindow time.Duration
	// MaxRetries is MaximumRetryAttempts: retries of a failed batch
	// before it is given up (DefaultMaxRetries when zero; negative for
	// none).
	MaxRetries int
	// RetryDelay is the wait before the first retry, doubled for each
	// next one up to 10 s (DefaultRetryDelay).
	RetryDelay time.Duration
	// PollInterval is the wait after a GetRecords that found nothing
	// (DefaultPollInterval; Lambda polls a shard about once a second).
	PollInterval time.Duration
	// StartingPosition is TRIM_HORIZON (default, as deployed) or LATEST.
	StartingPosition types.ShardIteratorType
	// Region is every record's awsRegion; the stream ARN's when empty.
	Region string
	// InvokeIdentityARN is every record's invokeIdentityArn, the
	// function's execution role; when empty, DefaultRoleName in the stream
	// ARN's account.
	InvokeIdentityARN string
	// OnFailure receives a batch given up on; nil logs it.
	OnFailure func(context.Context, Failure)
	// Log gets errors and given-up batches; slog.Default() when nil.
	Log *slog.Logger
}

// Poller feeds a Kinesis stream to a handler. Run it once.
type Poller struct {
	api  ReadAPI
	opts Options
	src  source
}

// NewPoller checks o and returns a poller; Run starts it.
func NewPoller(api ReadAPI, o Options) (*Poller, error) {
	if o.Stream == "" || o.Handler == nil {
		return nil, errors.New("localkinesis: Stream and Handler are required")
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	o.BatchSize = min(o.BatchSize, 10_000)
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
		o.StartingPosition = types.ShardIteratorTypeTrimHorizon
	case types.ShardIteratorTypeTrimHorizon, types.ShardIteratorTypeLatest:
	default:
		return nil, fmt.Errorf("localkinesis: starting position %q: use TRIM_HORIZON or LATEST", o.StartingPosition)
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Poller{api: api, opts: o}, nil
}

// shard is one shard as the poller tracks it.
type shard struct {
	id, parent, adjacent string
	start                types.ShardIteratorType
	started, done        bool
}

// Run polls until ctx is done, then waits for the batches in hand to
// finish and returns nil. It returns an error only if the stream cannot
// be described; later errors are logged and retried.
func (p *Poller) Run(ctx context.Context) error {
	cctx, cancel := callContext(ctx)
	out, err := p.api.DescribeStreamSummary(cctx, &kinesis.DescribeStreamSummaryInput{StreamName: &p.opts.Stream})
	cancel()
	if err != nil {
		return fmt.Errorf("localkinesis: describe stream %s: %w", p.opts.Stream, err)
	}
	arn := aws.ToString(out.StreamDescriptionSummary.StreamARN)
	region, account := arnParts(arn)
	p.src = source{streamARN: arn, region: p.opts.Region, identityARN: p.opts.InvokeIdentityARN}
	if p.src.region == "" {
		p.src.region = region
	}
	if p.src.identityARN == "" {
		p.src.identityARN = "arn:aws:iam::" + account + ":role/" + DefaultRoleName
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	shards := map[string]*shard{}
	var order []string
	finished := make(chan string)
	initial := true
	refresh := func() {
		found, err := p.listShards(ctx)
		if err != nil {
			p.logError(ctx, "list shards", err)
			return
		}
		for _, sh := range found {
			id := aws.ToString(sh.ShardId)
			if _, ok := shards[id]; ok {
				continue
			}
			s := &shard{id: id, parent: aws.ToString(sh.ParentShardId), adjacent: aws.ToString(sh.AdjacentParentShardId),
				start: types.ShardIteratorTypeTrimHorizon}
			if initial {
				s.start = p.opts.StartingPosition
				closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
				// A closed shard holds nothing newer than LATEST.
				s.done = closed && s.start == types.ShardIteratorTypeLatest
			}
			shards[id] = s
			order = append(order, id)
		}
		initial = false
		// Records of a key must reach the handler in order, so a child
		// waits until its parents are read to the end. A parent the
		// listing no longer shows has been trimmed.
		ready := func(parent string) bool {
			ps, ok := shards[parent]
			return parent == "" || !ok || ps.done
		}
		for _, id := range order {
			s := shards[id]
			if s.started || s.done || !ready(s.parent) || !ready(s.adjacent) {
				continue
			}
			s.started = true
			wg.Go(func() {
				p.readShard(ctx, s.id, s.start)
				select {
				case finished <- s.id:
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
			return nil
		case id := <-finished:
			shards[id].done = true
			refresh()
		case <-t.C:
			refresh()
		}
	}
}

func (p *Poller) listShards(ctx context.Context) ([]types.Shard, error) {
	var all []types.Shard
	in := &kinesis.ListShardsInput{StreamName: &p.opts.Stream}
	for ctx.Err() == nil {
		cctx, cancel := callContext(ctx)
		out, err := p.api.ListShards(cctx, in)
		cancel()
		if err != nil {
			return nil, err
		}
		all = append(all, out.Shards...)
		if out.NextToken == nil {
			return all, nil
		}
		// With a NextToken, ListShards refuses the stream name.
		in = &kinesis.ListShardsInput{NextToken: out.NextToken}
	}
	return nil, ctx.Err()
}

// readShard hands the shard's records to the handler, in order, until the
// shard is closed and read to its end, or ctx is done.
func (p *Poller) readShard(ctx context.Context, id string, start types.ShardIteratorType) {
	var iterator *string
	checkpoint := "" // the last sequence number handed over for good
	for ctx.Err() == nil {
		if iterator == nil {
			in := &kinesis.GetShardIteratorInput{StreamName: &p.opts.Stream, ShardId: &id, ShardIteratorType: start}
			if checkpoint != "" {
				in.ShardIteratorType, in.StartingSequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(checkpoint)
			}
			cctx, cancel := callContext(ctx)
			out, err := p.api.GetShardIterator(cctx, in)
			cancel()
			if err != nil {
				p.logError(ctx, "get shard iterator", err, "shard", id)
				sleep(ctx, p.opts.PollInterval)
				continue
			}
			iterator = out.ShardIterator
		}
		batch, closed := p.gather(ctx, id, &iterator)
		if len(batch) > 0 && ctx.Err() == nil {
			p.deliver(ctx, id, batch)
			checkpoint = batch[len(batch)-1].Kinesis.SequenceNumber
		}
		if closed {
			return
		}
		if len(batch) == 0 {
			sleep(ctx, p.opts.PollInterval)
		}
	}
}

// gather reads records from *iterator until it has a batch: BatchSize
// records, or whatever is there once BatchWindow has passed since the
// first. It reports whether the shard is closed and read to its end. An
// expired iterator is set to nil, to be taken again after the checkpoint.
func (p *Poller) gather(ctx context.Context, id string, iterator **string) ([]events.KinesisEventRecord, bool) {
	var batch []events.KinesisEventRecord
	var first time.Time
	for ctx.Err() == nil {
		cctx, cancel := callContext(ctx)
		out, err := p.api.GetRecords(cctx, &kinesis.GetRecordsInput{ShardIterator: *iterator,
			Limit: aws.Int32(int32(p.opts.BatchSize - len(batch)))})
		cancel()
		var expired *types.ExpiredIteratorException
		switch {
		case errors.As(err, &expired):
			*iterator = nil
			return batch, false
		case err != nil:
			p.logError(ctx, "get records", err, "shard", id)
			return batch, false
		}
		for _, r := range out.Records {
			batch = append(batch, p.src.eventRecord(r, id))
		}
		if *iterator = out.NextShardIterator; *iterator == nil {
			return batch, true // closed by a resharding, and read to the end
		}
		behind := aws.ToInt64(out.MillisBehindLatest) > 0
		if len(batch) == 0 {
			if !behind {
				return nil, false
			}
			// Kinesis may answer empty while records lie further on.
			sleep(ctx, behindPause)
			continue
		}
		if first.IsZero() {
			first = time.Now()
		}
		waited := time.Since(first)
		if len(batch) >= p.opts.BatchSize || waited >= p.opts.BatchWindow {
			return batch, false
		}
		pause := min(p.opts.PollInterval, p.opts.BatchWindow-waited)
		if behind {
			pause = behindPause
		}
		sleep(ctx, pause)
	}
	return batch, false
}

// deliver hands batch to the handler until it succeeds, retrying from the
// lowest failed record, and gives it up after MaxRetries retries.
func (p *Poller) deliver(ctx context.Context, id string, batch []events.KinesisEventRecord) {
	for attempt := 1; ; attempt++ {
		resp, err := p.invoke(ctx, batch)
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
				i := indexOf(batch, f.ItemIdentifier)
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
		if attempt > p.opts.MaxRetries {
			p.giveUp(ctx, Failure{
				StreamARN: p.src.streamARN, ShardID: id,
				StartSequenceNumber:             batch[0].Kinesis.SequenceNumber,
				EndSequenceNumber:               batch[len(batch)-1].Kinesis.SequenceNumber,
				BatchSize:                       len(batch),
				ApproximateArrivalOfFirstRecord: batch[0].Kinesis.ApproximateArrivalTimestamp.Time,
				ApproximateArrivalOfLastRecord:  batch[len(batch)-1].Kinesis.ApproximateArrivalTimestamp.Time,
				Failed:                          failed, Attempts: attempt, Err: err,
			})
			return
		}
		batch = batch[from:]
		sleep(ctx, p.retryDelay(attempt))
	}
}

// retryDelay is the wait after the attempt-th failure: RetryDelay doubled
// each time, at most maxRetryDelay.
func (p *Poller) retryDelay(attempt int) time.Duration {
	d := p.opts.RetryDelay
	for i := 1; i < attempt && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

// invoke calls the handler the way Lambda does; see lambdainvoke.
func (p *Poller) invoke(ctx context.Context, batch []events.KinesisEventRecord) (events.KinesisEventResponse, error) {
	return lambdainvoke.JSON(ctx, p.opts.Handler, events.KinesisEvent{Records: batch})
}

func (p *Poller) giveUp(ctx context.Context, f Failure) {
	if p.opts.OnFailure != nil {
		p.opts.OnFailure(ctx, f)
		return
	}
	attrs := []any{"stream", f.StreamARN, "shard", f.ShardID, "startSequenceNumber", f.StartSequenceNumber,
		"endSequenceNumber", f.EndSequenceNumber, "batchSize", f.BatchSize, "failed", f.Failed, "attempts", f.Attempts}
	if f.Err != nil {
		attrs = append(attrs, "error", f.Err.Error())
	}
	p.opts.Log.ErrorContext(ctx, "kinesis batch dropped after retries (the on-failure destination in AWS)", attrs...)
}

func (p *Poller) logError(ctx context.Context, msg string, err error, attrs ...any) {
	if ctx.Err() != nil {
		return // shutting down
	}
	p.opts.Log.WarnContext(ctx, "localkinesis: "+msg, append(attrs, "error", err.Error())...)
}

// callContext is the context of one Kinesis call: ctx's values and a
// timeout, but not its cancellation. kinesalite 3.3.3 throws on a request
// its client abandons (ECONNRESET in its request error handler) and the
// whole emulator exits, so a poller stopping must let its call finish
// rather than cut it off: every call is short, none long-polls.
func callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
}

func indexOf(batch []events.KinesisEventRecord, seq string) int {
	if seq == "" {
		return -1
	}
	for i := range batch {
		if batch[i].Kinesis.SequenceNumber == seq {
			return i
		}
	}
	return -1
}
