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

	"github.com/shortlink-dev/shortener/internal/lambdainvoke"
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
	// next one (200ms).
	RetryDelay time.Duration
	// PollInterval is the wait after a round that found no records
	// (250ms: Lambda polls a shard about four times a second).
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
	streams StreamsAPI
	opts    Options
	sweeper *sweeper // nil when not sweeping

	streamARN string
	shards    map[string]*shard
	order     []string // shard IDs in the order DescribeStream listed them
	refresh   bool     // list the shards again before the next round
	lastList  time.Time
}

// shard is one shard's reading position.
type shard struct {
	id, parent string
	// start is where reading begins: StartingPosition for the shards of
	// the first listing, TRIM_HORIZON for children found later.
	start      types.ShardIteratorType
	done       bool // read to its end (or nothing to read, under LATEST)
	iterator   *string
	checkpoint string // last sequence number handed over
}

// rediscoverEvery is how often open shards are listed again, to find the
// children of a split even before the parent is read to its end.
const rediscoverEvery = 10 * time.Second

// New returns a poller; it makes no call until Run.
func New(db DynamoDBAPI, streams StreamsAPI, opts Options) (*Poller, error) {
	if opts.Table == "" || opts.Handler == nil {
		return nil, errors.New("localstream: Table and Handler are required")
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	} else if opts.MaxRetries == 0 {
		opts.MaxRetries = 3
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 200 * time.Millisecond
	}
	if opts.TTLSweepInterval <= 0 {
		opts.TTLSweepInterval = time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 250 * time.Millisecond
	}
	switch opts.StartingPosition {
	case "":
		opts.StartingPosition = types.ShardIteratorTypeTrimHorizon
	case types.ShardIteratorTypeTrimHorizon, types.ShardIteratorTypeLatest:
	default:
		return nil, fmt.Errorf("localstream: starting position %q: use TRIM_HORIZON or LATEST", opts.StartingPosition)
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Poller{db: db, streams: streams, opts: opts, shards: map[string]*shard{}}, nil
}

// Run polls until ctx is done, then returns nil; if the table has TTL
// enabled it also deletes the expired items, unless DisableTTLSweep. It
// returns an error only if the table cannot be described or has no stream;
// later errors are logged and retried.
func (p *Poller) Run(ctx context.Context) error {
	out, err := p.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &p.opts.Table})
	if err != nil {
		return fmt.Errorf("localstream: describe table %s: %w", p.opts.Table, err)
	}
	if out.Table == nil || out.Table.LatestStreamArn == nil {
		return fmt.Errorf("localstream: table %s has no stream", p.opts.Table)
	}
	p.streamARN = *out.Table.LatestStreamArn
	if !p.opts.DisableTTLSweep {
		ttl, err := p.db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &p.opts.Table})
		if err != nil {
			return fmt.Errorf("localstream: describe time to live of %s: %w", p.opts.Table, err)
		}
		if d := ttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled && d.AttributeName != nil {
			p.sweeper = &sweeper{db: p.db, table: p.opts.Table, attr: *d.AttributeName, interval: p.opts.TTLSweepInterval,
				now: time.Now, logError: p.logError, deletions: map[string]string{}}
			for _, k := range out.Table.KeySchema {
				p.sweeper.keys = append(p.sweeper.keys, aws.ToString(k.AttributeName))
			}
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() { p.sweeper.run(ctx) })
		}
	}
	p.refresh = true
	initial := true
	for ctx.Err() == nil {
		if p.refresh || time.Since(p.lastList) >= rediscoverEvery {
			if err := p.discover(ctx, initial); err != nil {
				p.logError(ctx, "list shards", err)
			} else {
				initial = false
			}
		}
		got := false
		for _, id := range p.order {
			if ctx.Err() != nil {
				break
			}
			s := p.shards[id]
			if s.done || !p.ready(s) {
				continue
			}
			got = p.poll(ctx, s) || got
		}
		if !got {
			sleep(ctx, p.opts.PollInterval)
		}
	}
	return nil
}

// discover lists the stream's shards and tracks the new ones.
func (p *Poller) discover(ctx context.Context, initial bool) error {
	var after *string
	for {
		out, err := p.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: &p.streamARN, ExclusiveStartShardId: after})
		if err != nil {
			return err
		}
		for _, sh := range out.StreamDescription.Shards {
			id := aws.ToString(sh.ShardId)
			if _, ok := p.shards[id]; ok {
				continue
			}
			s := &shard{id: id, parent: aws.ToString(sh.ParentShardId), start: types.ShardIteratorTypeTrimHorizon}
			if initial {
				s.start = p.opts.StartingPosition
				closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
				// A closed shard holds nothing newer than LATEST.
				s.done = closed && s.start == types.ShardIteratorTypeLatest
			}
			p.shards[id] = s
			p.order = append(p.order, id)
		}
		if after = out.StreamDescription.LastEvaluatedShardId; after == nil {
			break
		}
	}
	p.refresh, p.lastList = false, time.Now()
	return nil
}

// ready reports whether s may be read: records of a key must reach the
// handler in order, so a child waits until its parent is read to the end.
// A parent the listing no longer shows has been trimmed.
func (p *Poller) ready(s *shard) bool {
	parent, ok := p.shards[s.parent]
	return s.parent == "" || !ok || parent.done
}

// poll reads one batch from s and hands it over; it reports whether it
// found records.
func (p *Poller) poll(ctx context.Context, s *shard) bool {
	if s.iterator == nil {
		in := &dynamodbstreams.GetShardIteratorInput{StreamArn: &p.streamARN, ShardId: &s.id, ShardIteratorType: s.start}
		if s.checkpoint != "" {
			in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(s.checkpoint)
		}
		out, err := p.streams.GetShardIterator(ctx, in)
		if err != nil {
			p.logError(ctx, "get shard iterator", err, "shard", s.id)
			return false
		}
		s.iterator = out.ShardIterator
	}
	out, err := p.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iterator, Limit: aws.Int32(int32(p.opts.BatchSize))})
	var expired *types.ExpiredIteratorException
	var trimmed *types.TrimmedDataAccessException
	switch {
	case errors.As(err, &expired):
		s.iterator = nil // a new one after the checkpoint
		return false
	case errors.As(err, &trimmed):
		p.logError(ctx, "records trimmed before they were read", err, "shard", s.id)
		s.iterator, s.checkpoint, s.start = nil, "", types.ShardIteratorTypeTrimHorizon
		return false
	case err != nil:
		p.logError(ctx, "get records", err, "shard", s.id)
		return false
	}
	if len(out.Records) > 0 {
		batch := make([]events.DynamoDBEventRecord, len(out.Records))
		for i, r := range out.Records {
			batch[i] = eventRecord(r, p.streamARN, p.opts.Region)
			if p.sweeper.claim(&batch[i]) {
				batch[i].UserIdentity = &events.DynamoDBUserIdentity{Type: ttlIdentityType, PrincipalID: ttlPrincipal}
			}
		}
		p.deliver(ctx, s, batch)
	}
	if s.iterator = out.NextShardIterator; s.iterator == nil {
		s.done, p.refresh = true, true // closed: its children are next
	}
	return len(out.Records) > 0
}

// deliver hands batch to the handler until it succeeds, retrying from the
// lowest failed record, and gives up after MaxRetries retries.
func (p *Poller) deliver(ctx context.Context, s *shard, batch []events.DynamoDBEventRecord) {
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
			s.checkpoint = batch[len(batch)-1].Change.SequenceNumber
			return
		}
		if attempt > p.opts.MaxRetries {
			p.giveUp(ctx, Failure{
				StreamARN: p.streamARN, ShardID: s.id,
				StartSequenceNumber: batch[0].Change.SequenceNumber,
				EndSequenceNumber:   batch[len(batch)-1].Change.SequenceNumber,
				Failed:              failed, Attempts: attempt, Err: err,
			})
			s.checkpoint = batch[len(batch)-1].Change.SequenceNumber
			return
		}
		batch = batch[from:]
		sleep(ctx, p.opts.RetryDelay<<(attempt-1))
	}
}

// invoke calls the handler the way Lambda does; see lambdainvoke.
func (p *Poller) invoke(ctx context.Context, batch []events.DynamoDBEventRecord) (events.DynamoDBEventResponse, error) {
	return lambdainvoke.JSON(ctx, p.opts.Handler, events.DynamoDBEvent{Records: batch})
}

func (p *Poller) giveUp(ctx context.Context, f Failure) {
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

func indexOf(batch []events.DynamoDBEventRecord, seq string) int {
	if seq == "" {
		return -1
	}
	for i := range batch {
		if batch[i].Change.SequenceNumber == seq {
			return i
		}
	}
	return -1
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
