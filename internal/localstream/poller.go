package localstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/shortlink-dev/shortener/internal/localmapping"
)

// DynamoDBAPI lists the DynamoDB calls the poller makes: it finds the
// table's stream and TTL setting, and plays the TTL process (see sweeper).
type DynamoDBAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// StreamsAPI lists the DynamoDB Streams calls the poller makes.
type StreamsAPI interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Handler is a stream function's handler, such as ttlstream's Handle.
type Handler func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// Failure describes a batch the poller gave up on after its retries, as
// an on-failure destination would receive it.
type Failure struct {
	StreamARN string
	ShardID   string
	// StartSequenceNumber and EndSequenceNumber bound the records of the
	// last attempt.
	StartSequenceNumber string
	EndSequenceNumber   string
	// Failed are the sequence numbers the handler reported in its last
	// attempt; empty when it failed the whole batch.
	Failed   []string
	Attempts int
	// Err is the handler's error when it failed the whole batch.
	Err error
}

// Options configure a Poller. Table and Handler are required.
type Options struct {
	// Table names the table whose latest stream is read.
	Table   string
	Handler Handler
	// BatchSize bounds the records of one invocation (100, the mapping's default).
	BatchSize int
	// MaxRetries is MaximumRetryAttempts: retries of a failed batch
	// before it is given up (3 when zero; negative for none).
	MaxRetries int
	// RetryDelay is the wait before the first retry, doubled for each
	// next one up to 10 s (200ms).
	RetryDelay time.Duration
	// PollInterval is the wait after a read of a shard that found no
	// records (250ms: Lambda polls a shard about four times a second).
	PollInterval time.Duration
	// StartingPosition is TRIM_HORIZON (default: the local run starts
	// with fresh tables, so nothing is old) or LATEST.
	StartingPosition types.ShardIteratorType
	// Region, if set, is the awsRegion of every record instead of the
	// "ddblocal" DynamoDB Local reports.
	Region string
	// TTLSweepInterval is how often the poller deletes the table's
	// expired items, when the table has TTL enabled (1s).
	TTLSweepInterval time.Duration
	// DisableTTLSweep leaves expired items to DynamoDB Local's own
	// sweeper, which cannot delete them from a table with a sparse index.
	DisableTTLSweep bool
	// OnFailure receives a batch given up on; nil logs it.
	OnFailure func(context.Context, Failure)
	// Log gets errors and given-up batches; slog.Default() when nil.
	Log *slog.Logger
}

// Poller feeds a table's stream to a handler. Run it once.
type Poller struct {
	db      DynamoDBAPI
	opts    Options
	src     *source
	mapping *localmapping.Mapping[events.DynamoDBEventRecord, events.DynamoDBEvent, events.DynamoDBEventResponse]
}

// New returns a poller; it makes no call until Run.
func New(db DynamoDBAPI, streams StreamsAPI, opts Options) (*Poller, error) {
	if opts.Table == "" || opts.Handler == nil {
		return nil, errors.New("localstream: Table and Handler are required")
	}
	if opts.TTLSweepInterval <= 0 {
		opts.TTLSweepInterval = time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	p := &Poller{db: db, opts: opts, src: &source{api: streams, region: opts.Region, now: time.Now}}
	m, err := localmapping.New(p.src, opts.Handler, localmapping.Options[events.DynamoDBEventRecord]{
		Name: "localstream", BatchSize: opts.BatchSize, MaxRetries: opts.MaxRetries, RetryDelay: opts.RetryDelay,
		PollInterval: opts.PollInterval, StartingPosition: localmapping.StartingPosition(opts.StartingPosition),
		OnFailure: p.giveUp, Log: opts.Log,
	})
	if err != nil {
		return nil, err
	}
	p.mapping = m
	return p, nil
}

// Run polls until ctx is done, then waits for the batches in hand to
// finish and returns nil; if the table has TTL enabled it also deletes the
// expired items, unless DisableTTLSweep. It returns an error only if the
// table cannot be described or has no stream; later errors are logged and
// retried.
func (p *Poller) Run(ctx context.Context) error {
	out, err := p.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &p.opts.Table})
	if err != nil {
		return fmt.Errorf("localstream: describe table %s: %w", p.opts.Table, err)
	}
	if out.Table == nil || out.Table.LatestStreamArn == nil {
		return fmt.Errorf("localstream: table %s has no stream", p.opts.Table)
	}
	p.src.streamARN = *out.Table.LatestStreamArn
	if !p.opts.DisableTTLSweep {
		ttl, err := p.db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &p.opts.Table})
		if err != nil {
			return fmt.Errorf("localstream: describe time to live of %s: %w", p.opts.Table, err)
		}
		if d := ttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled && d.AttributeName != nil {
			sw := &sweeper{db: p.db, table: p.opts.Table, attr: *d.AttributeName, interval: p.opts.TTLSweepInterval,
				now: time.Now, logError: p.logError, deletions: map[string]string{}}
			for _, k := range out.Table.KeySchema {
				sw.keys = append(sw.keys, aws.ToString(k.AttributeName))
			}
			p.src.sweeper = sw
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() { sw.run(ctx) })
		}
	}
	p.mapping.Run(ctx)
	return nil
}

// source is a table's stream as the mapping reads it.
type source struct {
	api       StreamsAPI
	streamARN string
	region    string
	sweeper   *sweeper // nil when not sweeping
	now       func() time.Time
	stamps    stamps
}

var _ localmapping.Source[events.DynamoDBEventRecord, events.DynamoDBEvent, events.DynamoDBEventResponse] = (*source)(nil)

func (s *source) Shards(ctx context.Context) ([]localmapping.Shard, error) {
	var shards []localmapping.Shard
	var after *string
	for {
		out, err := s.api.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: &s.streamARN, ExclusiveStartShardId: after})
		if err != nil {
			return nil, err
		}
		for _, sh := range out.StreamDescription.Shards {
			shards = append(shards, localmapping.Shard{ID: aws.ToString(sh.ShardId), Parents: []string{aws.ToString(sh.ParentShardId)},
				Closed: sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil})
		}
		if after = out.StreamDescription.LastEvaluatedShardId; after == nil {
			return shards, nil
		}
	}
}

func (s *source) Iterator(ctx context.Context, shard string, at localmapping.Position) (*string, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: &s.streamARN, ShardId: &shard, ShardIteratorType: types.ShardIteratorType(at.Start)}
	if at.After != "" {
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(at.After)
	}
	out, err := s.api.GetShardIterator(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.ShardIterator, nil
}

func (s *source) Read(ctx context.Context, _ string, iterator *string, limit int) (localmapping.Page[events.DynamoDBEventRecord], error) {
	out, err := s.api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iterator, Limit: aws.Int32(int32(limit))})
	var expired *types.ExpiredIteratorException
	var trimmed *types.TrimmedDataAccessException
	switch {
	case errors.As(err, &expired):
		return localmapping.Page[events.DynamoDBEventRecord]{}, fmt.Errorf("%w: %w", localmapping.ErrExpiredIterator, err)
	case errors.As(err, &trimmed):
		return localmapping.Page[events.DynamoDBEventRecord]{}, fmt.Errorf("%w: %w", localmapping.ErrTrimmed, err)
	case err != nil:
		return localmapping.Page[events.DynamoDBEventRecord]{}, err
	}
	page := localmapping.Page[events.DynamoDBEventRecord]{Next: out.NextShardIterator}
	if len(out.Records) > 0 {
		page.Records = make([]events.DynamoDBEventRecord, len(out.Records))
		for i, r := range out.Records {
			page.Records[i] = eventRecord(r, s.streamARN, s.region)
			s.stamps.refine(&page.Records[i], s.now())
			if s.sweeper.claim(&page.Records[i]) {
				page.Records[i].UserIdentity = &events.DynamoDBUserIdentity{Type: ttlIdentityType, PrincipalID: ttlPrincipal}
			}
		}
	}
	return page, nil
}

func (s *source) Event(batch []events.DynamoDBEventRecord) events.DynamoDBEvent {
	return events.DynamoDBEvent{Records: batch}
}

func (s *source) SequenceNumber(r events.DynamoDBEventRecord) string { return r.Change.SequenceNumber }

func (p *Poller) giveUp(ctx context.Context, mf localmapping.Failure[events.DynamoDBEventRecord]) {
	f := Failure{
		StreamARN: p.src.streamARN, ShardID: mf.Shard,
		StartSequenceNumber: mf.Records[0].Change.SequenceNumber,
		EndSequenceNumber:   mf.Records[len(mf.Records)-1].Change.SequenceNumber,
		Failed:              mf.Failed, Attempts: mf.Attempts, Err: mf.Err,
	}
	if p.opts.OnFailure != nil {
		p.opts.OnFailure(ctx, f)
		return
	}
	attrs := []any{"stream", f.StreamARN, "shard", f.ShardID, "startSequenceNumber", f.StartSequenceNumber,
		"endSequenceNumber", f.EndSequenceNumber, "failed", f.Failed, "attempts", f.Attempts}
	if f.Err != nil {
		attrs = append(attrs, "error", f.Err.Error())
	}
	p.opts.Log.ErrorContext(ctx, "stream batch dropped after retries (the on-failure destination in AWS)", attrs...)
}

func (p *Poller) logError(ctx context.Context, msg string, err error, attrs ...any) {
	if ctx.Err() != nil {
		return // shutting down
	}
	p.opts.Log.WarnContext(ctx, "localstream: "+msg, append(attrs, "error", err.Error())...)
}
