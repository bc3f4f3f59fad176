package clickstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/dynamoerr"
	"github.com/shortlink-dev/shortener/shared/link"
)

// API lists the DynamoDB calls the store makes, with the SDK's signatures,
// so tests can inject failures.
type API interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Config names the table and sets retention and timeouts.
type Config struct {
	Table string
	// Timeout bounds each call, retries included; 5 s when zero.
	Timeout time.Duration
	// HourRetention is how long hourly counters are kept after their
	// hour; DefaultHourRetention when zero.
	HourRetention time.Duration
	// DayRetention is how long daily, country and referrer counters are
	// kept after their day; DefaultDayRetention when zero.
	DayRetention time.Duration
	// CheckpointRetention is how long a shard's checkpoint outlives its
	// last write; DefaultCheckpointRetention when zero. It must exceed the
	// event source mapping's MaximumRecordAgeInSeconds.
	CheckpointRetention time.Duration
	// MaxBreakdownItems bounds the items one Breakdown reads;
	// DefaultMaxBreakdownItems when zero.
	MaxBreakdownItems int
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
}

// Defaults of Config.
const (
	DefaultHourRetention       = 92 * 24 * time.Hour
	DefaultDayRetention        = 3 * 366 * 24 * time.Hour
	DefaultCheckpointRetention = 8 * 24 * time.Hour // MaximumRecordAgeInSeconds tops out at 7 days
	DefaultMaxBreakdownItems   = 100_000
)

// MaxItems is how many counter items one chunk may carry: a transaction
// takes at most 100 actions, and the checkpoint is one of them.
const MaxItems = 99

// Chunk is a run of records from one shard, reduced to increments, that is
// applied as one transaction.
type Chunk struct {
	// Shard identifies the checkpoint: the stream ARN and the shard ID.
	Shard string
	// First and Last are the sequence numbers of the chunk's first and last
	// record.
	First, Last string
	// Items are the increments, at most MaxItems of them, each key once.
	Items []Item
}

// Item is the increment of one counter item.
type Item struct {
	Key
	Counts
}

// ErrApplied: the shard's checkpoint is already at or past the chunk's
// first record, so the chunk (or part of it) was applied before.
var ErrApplied = errors.New("chunk already applied")

// ErrContended: another transaction was updating one of the chunk's items
// (a hot link counted from several shards at once). Retrying soon succeeds.
var ErrContended = errors.New("chunk contended")

// Store reads and writes the analytics table.
type Store struct {
	db  API
	cfg Config
}

// New returns a store over db.
func New(db API, cfg Config) *Store {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.HourRetention <= 0 {
		cfg.HourRetention = DefaultHourRetention
	}
	if cfg.DayRetention <= 0 {
		cfg.DayRetention = DefaultDayRetention
	}
	if cfg.CheckpointRetention <= 0 {
		cfg.CheckpointRetention = DefaultCheckpointRetention
	}
	if cfg.MaxBreakdownItems <= 0 {
		cfg.MaxBreakdownItems = DefaultMaxBreakdownItems
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{db: db, cfg: cfg}
}

const checkpointBucket = "checkpoint"

func checkpointKey(shard string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrCode: str("#shard#" + shard), AttrBucket: str(checkpointBucket)}
}

// Apply adds c's counts and moves the shard's checkpoint to c.Last, in one
// transaction, if the checkpoint is below c.First. Otherwise it changes
// nothing and returns an error matching ErrApplied. A transaction that lost
// to a concurrent one matches ErrContended and link.ErrUnavailable.
func (s *Store) Apply(ctx context.Context, c Chunk) error {
	if len(c.Items) == 0 || len(c.Items) > MaxItems {
		return fmt.Errorf("apply chunk: %d counter items, want 1 to %d", len(c.Items), MaxItems)
	}
	first, err := padSequence(c.First)
	if err != nil {
		return fmt.Errorf("apply chunk: %w", err)
	}
	last, err := padSequence(c.Last)
	if err != nil {
		return fmt.Errorf("apply chunk: %w", err)
	}
	if first > last {
		return fmt.Errorf("apply chunk: first sequence number %s is past the last %s", c.First, c.Last)
	}

	// Names go through ExpressionAttributeNames: "total" and "bucket" are
	// DynamoDB reserved words.
	items := make([]types.TransactWriteItem, 0, len(c.Items)+1)
	// The checkpoint goes first: cancellation reasons come back in the
	// order of the actions, so reason 0 says whether it was the condition.
	items = append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:                &s.cfg.Table,
		Key:                      checkpointKey(c.Shard),
		UpdateExpression:         aws.String("SET #seq = :last, #exp = :exp"),
		ConditionExpression:      aws.String("attribute_not_exists(#seq) OR #seq < :first"),
		ExpressionAttributeNames: map[string]string{"#seq": AttrSequence, "#exp": AttrExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":first": str(first),
			":last":  str(last),
			":exp":   num(s.cfg.Now().Add(s.cfg.CheckpointRetention).Unix()),
		},
	}})
	// Sorted, so the same chunk is the same transaction every time; a key
	// twice would make DynamoDB refuse the whole transaction.
	sorted := slices.SortedFunc(slices.Values(c.Items), func(a, b Item) int { return compareKeys(a.Key, b.Key) })
	for i, it := range sorted {
		if i > 0 && sorted[i-1].Key == it.Key {
			return fmt.Errorf("apply chunk: counter %s %s twice", it.Code, it.bucket())
		}
		k, n := it.Key, it.Counts
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName:        &s.cfg.Table,
			Key:              map[string]types.AttributeValue{AttrCode: str(k.Code), AttrBucket: str(k.bucket())},
			UpdateExpression: aws.String("ADD #t :t, #h :h, #b :b SET #exp = :exp"),
			ExpressionAttributeNames: map[string]string{
				"#t": AttrTotal, "#h": AttrHuman, "#b": AttrBot, "#exp": AttrExpiresAt,
			},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":t":   num(n.Total),
				":h":   num(n.Human),
				":b":   num(n.Bot),
				":exp": num(k.Start + int64(s.retention(k.Kind)/time.Second)),
			},
		}})
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		reasons := tce.CancellationReasons
		if len(reasons) > 0 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
			return fmt.Errorf("apply chunk %s..%s of %s: %w", c.First, c.Last, c.Shard, ErrApplied)
		}
		for _, r := range reasons {
			if aws.ToString(r.Code) == "TransactionConflict" {
				return fmt.Errorf("apply chunk %s..%s of %s: %w: %w", c.First, c.Last, c.Shard, ErrContended, link.ErrUnavailable)
			}
		}
	}
	return wrap("apply chunk "+c.First+".."+c.Last+" of "+c.Shard, err)
}

func (s *Store) retention(k Kind) time.Duration {
	if k == Hour {
		return s.cfg.HourRetention
	}
	return s.cfg.DayRetention
}

func compareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Dim, b.Dim))
}

// Checkpoint returns the highest sequence number applied for shard, without
// padding, or "" if none was. The read is strongly consistent: it follows a
// failed condition and must see the write that failed it.
func (s *Store) Checkpoint(ctx context.Context, shard string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.cfg.Table,
		Key:            checkpointKey(shard),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", wrap("read checkpoint of "+shard, err)
	}
	v, ok := out.Item[AttrSequence].(*types.AttributeValueMemberS)
	if !ok {
		return "", nil
	}
	seq := v.Value
	for len(seq) > 1 && seq[0] == '0' {
		seq = seq[1:]
	}
	return seq, nil
}

// Point is one bucket of a time series.
type Point struct {
	Start time.Time
	Counts
}

// Series returns the Hour or Day counters of code whose bucket starts in
// [from, to), in time order. Buckets without clicks are absent.
func (s *Store) Series(ctx context.Context, code string, kind Kind, from, to time.Time) ([]Point, error) {
	if kind != Hour && kind != Day {
		return nil, fmt.Errorf("series by %s: want hour or day", kind)
	}
	lo, hi, ok := bounds(code, kind, from, to)
	if !ok {
		return nil, nil
	}
	var points []Point
	_, err := s.query(ctx, code, lo, hi, 0, func(item map[string]types.AttributeValue) error {
		b, _ := item[AttrBucket].(*types.AttributeValueMemberS)
		if b == nil {
			return fmt.Errorf("item without %s", AttrBucket)
		}
		start, _, err := parseBucket(kind, b.Value)
		if err != nil {
			return err
		}
		c, err := unmarshalCounts(item)
		if err != nil {
			return err
		}
		points = append(points, Point{Start: start, Counts: c})
		return nil
	})
	if err != nil {
		return nil, wrap("query "+kind.String()+" series of "+code, err)
	}
	return points, nil
}

// Breakdown sums the Country or Referrer counters of code over the UTC days
// that start in [from, to), by country or host. complete is false when the
// range held more than Config.MaxBreakdownItems items and only the first
// ones were summed.
func (s *Store) Breakdown(ctx context.Context, code string, kind Kind, from, to time.Time) (sums map[string]Counts, complete bool, err error) {
	if kind != Country && kind != Referrer {
		return nil, false, fmt.Errorf("breakdown by %s: want country or referrer", kind)
	}
	sums = map[string]Counts{}
	lo, hi, ok := bounds(code, kind, from, to)
	if !ok {
		return sums, true, nil
	}
	complete, err = s.query(ctx, code, lo, hi, s.cfg.MaxBreakdownItems, func(item map[string]types.AttributeValue) error {
		b, _ := item[AttrBucket].(*types.AttributeValueMemberS)
		if b == nil {
			return fmt.Errorf("item without %s", AttrBucket)
		}
		_, dim, err := parseBucket(kind, b.Value)
		if err != nil {
			return err
		}
		c, err := unmarshalCounts(item)
		if err != nil {
			return err
		}
		sum := sums[dim]
		sum.Add(c)
		sums[dim] = sum
		return nil
	})
	if err != nil {
		return nil, false, wrap("query "+kind.String()+" breakdown of "+code, err)
	}
	return sums, complete, nil
}

// bounds are the sort keys of the first and last bucket of kind starting in
// [from, to); ok is false when there is none.
func bounds(code string, kind Kind, from, to time.Time) (lo, hi string, ok bool) {
	step := int64(secondsPerDay)
	if kind == Hour {
		step = secondsPerHour
	}
	first := floorTo(from, step)
	if first < from.Unix() || from.Nanosecond() > 0 && first == from.Unix() {
		first += step // a bucket starting before from is not in the range
	}
	last := floorTo(to, step)
	if last == to.Unix() && to.Nanosecond() == 0 {
		last -= step // nor one starting at to
	}
	if last < first {
		return "", "", false
	}
	if kind == Hour || kind == Day {
		return Key{Code: code, Kind: kind, Start: first}.bucket(), Key{Code: code, Kind: kind, Start: last}.bucket(), true
	}
	// "c#20261130#" < "c#20261130#DE" < "c#20261130$": '$' follows '#'.
	day := func(start int64) string { return time.Unix(start, 0).UTC().Format(dayLayout) }
	return kind.prefix() + day(first) + "#", kind.prefix() + day(last) + "$", true
}

// query reads every item of code with a bucket in [lo, hi], page by page,
// eventually consistent (half the read cost; stats lag by seconds anyway).
// With max > 0 it stops after max items and reports complete = false.
func (s *Store) query(ctx context.Context, code, lo, hi string, max int, each func(map[string]types.AttributeValue) error) (complete bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	in := &dynamodb.QueryInput{
		TableName:              &s.cfg.Table,
		KeyConditionExpression: aws.String("#code = :code AND #bucket BETWEEN :lo AND :hi"),
		ProjectionExpression:   aws.String("#bucket, #t, #h, #b"),
		ExpressionAttributeNames: map[string]string{
			"#code": AttrCode, "#bucket": AttrBucket, "#t": AttrTotal, "#h": AttrHuman, "#b": AttrBot,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":code": str(code), ":lo": str(lo), ":hi": str(hi),
		},
	}
	n := 0
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return false, err
		}
		for _, item := range out.Items {
			if max > 0 && n == max {
				return false, nil
			}
			n++
			if err := each(item); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// wrap adds context and marks timeouts and throttling as retryable
// unavailability.
func wrap(op string, err error) error { return dynamoerr.Wrap(op, err) }
