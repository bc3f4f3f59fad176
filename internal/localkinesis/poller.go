package localkinesis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/shortlink-dev/shortener/internal/localmapping"
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
	DefaultBatchSize    = localmapping.DefaultBatchSize
	DefaultMaxRetries   = localmapping.DefaultMaxRetries
	DefaultRetryDelay   = localmapping.DefaultRetryDelay
	DefaultPollInterval = localmapping.DefaultPollInterval
	// DefaultRoleName is the role in invokeIdentityArn when Options name
	// none.
	DefaultRoleName = "local-kinesis-consumer"
	// callTimeout bounds one Kinesis call, the SDK's retries included.
	callTimeout = 10 * time.Second
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
	api     ReadAPI
	opts    Options
	src     *source
	mapping *localmapping.Mapping[events.KinesisEventRecord, events.KinesisEvent, events.KinesisEventResponse]
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
	if o.Log == nil {
		o.Log = slog.Default()
	}
	p := &Poller{api: api, opts: o, src: &source{api: api, stream: o.Stream}}
	m, err := localmapping.New(p.src, o.Handler, localmapping.Options[events.KinesisEventRecord]{
		Name: "localkinesis", BatchSize: o.BatchSize, BatchWindow: o.BatchWindow, MaxRetries: o.MaxRetries,
		RetryDelay: o.RetryDelay, PollInterval: o.PollInterval, StartingPosition: localmapping.StartingPosition(o.StartingPosition),
		OnFailure: p.giveUp, Log: o.Log,
	})
	if err != nil {
		return nil, err
	}
	p.mapping = m
	return p, nil
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
	p.src.streamARN, p.src.region, p.src.identityARN = arn, p.opts.Region, p.opts.InvokeIdentityARN
	if p.src.region == "" {
		p.src.region = region
	}
	if p.src.identityARN == "" {
		p.src.identityARN = "arn:aws:iam::" + account + ":role/" + DefaultRoleName
	}
	p.mapping.Run(ctx)
	return nil
}

var _ localmapping.Source[events.KinesisEventRecord, events.KinesisEvent, events.KinesisEventResponse] = (*source)(nil)

func (s *source) Shards(ctx context.Context) ([]localmapping.Shard, error) {
	var all []localmapping.Shard
	in := &kinesis.ListShardsInput{StreamName: &s.stream}
	for ctx.Err() == nil {
		cctx, cancel := callContext(ctx)
		out, err := s.api.ListShards(cctx, in)
		cancel()
		if err != nil {
			return nil, err
		}
		for _, sh := range out.Shards {
			all = append(all, localmapping.Shard{ID: aws.ToString(sh.ShardId),
				Parents: []string{aws.ToString(sh.ParentShardId), aws.ToString(sh.AdjacentParentShardId)},
				Closed:  sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil})
		}
		if out.NextToken == nil {
			return all, nil
		}
		// With a NextToken, ListShards refuses the stream name.
		in = &kinesis.ListShardsInput{NextToken: out.NextToken}
	}
	return nil, ctx.Err()
}

func (s *source) Iterator(ctx context.Context, shard string, at localmapping.Position) (*string, error) {
	in := &kinesis.GetShardIteratorInput{StreamName: &s.stream, ShardId: &shard, ShardIteratorType: types.ShardIteratorType(at.Start)}
	if at.After != "" {
		in.ShardIteratorType, in.StartingSequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(at.After)
	}
	cctx, cancel := callContext(ctx)
	defer cancel()
	out, err := s.api.GetShardIterator(cctx, in)
	if err != nil {
		return nil, err
	}
	return out.ShardIterator, nil
}

func (s *source) Read(ctx context.Context, shard string, iterator *string, limit int) (localmapping.Page[events.KinesisEventRecord], error) {
	cctx, cancel := callContext(ctx)
	out, err := s.api.GetRecords(cctx, &kinesis.GetRecordsInput{ShardIterator: iterator, Limit: aws.Int32(int32(limit))})
	cancel()
	var expired *types.ExpiredIteratorException
	switch {
	case errors.As(err, &expired):
		return localmapping.Page[events.KinesisEventRecord]{}, fmt.Errorf("%w: %w", localmapping.ErrExpiredIterator, err)
	case err != nil:
		return localmapping.Page[events.KinesisEventRecord]{}, err
	}
	page := localmapping.Page[events.KinesisEventRecord]{Next: out.NextShardIterator, Behind: aws.ToInt64(out.MillisBehindLatest) > 0}
	for _, r := range out.Records {
		page.Records = append(page.Records, s.eventRecord(r, shard))
	}
	return page, nil
}

func (s *source) Event(batch []events.KinesisEventRecord) events.KinesisEvent {
	return events.KinesisEvent{Records: batch}
}

func (s *source) SequenceNumber(r events.KinesisEventRecord) string { return r.Kinesis.SequenceNumber }

func (p *Poller) giveUp(ctx context.Context, mf localmapping.Failure[events.KinesisEventRecord]) {
	first, last := mf.Records[0].Kinesis, mf.Records[len(mf.Records)-1].Kinesis
	f := Failure{
		StreamARN: p.src.streamARN, ShardID: mf.Shard,
		StartSequenceNumber:             first.SequenceNumber,
		EndSequenceNumber:               last.SequenceNumber,
		BatchSize:                       len(mf.Records),
		ApproximateArrivalOfFirstRecord: first.ApproximateArrivalTimestamp.Time,
		ApproximateArrivalOfLastRecord:  last.ApproximateArrivalTimestamp.Time,
		Failed:                          mf.Failed, Attempts: mf.Attempts, Err: mf.Err,
	}
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

// callContext is the context of one Kinesis call: ctx's values and a
// timeout, but not its cancellation. kinesalite 3.3.3 throws on a request
// its client abandons (ECONNRESET in its request error handler) and the
// whole emulator exits, so a poller stopping must let its call finish
// rather than cut it off: every call is short, none long-polls.
func callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
}
