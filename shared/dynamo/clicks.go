package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// ClickConfig names the table and sets retention and timeouts.
type ClickConfig struct {
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
	// clickstore.DefaultMaxBreakdownItems when zero.
	MaxBreakdownItems int
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
}

// Defaults of ClickConfig.
const (
	DefaultHourRetention       = 92 * 24 * time.Hour
	DefaultDayRetention        = 3 * 366 * 24 * time.Hour
	DefaultCheckpointRetention = 8 * 24 * time.Hour // MaximumRecordAgeInSeconds tops out at 7 days
)

// ClickStore reads and writes the analytics table.
type ClickStore struct {
	db  API
	cfg ClickConfig
}

var _ clickstore.Store = (*ClickStore)(nil)

// NewClickStore returns a store over db.
func NewClickStore(db API, cfg ClickConfig) *ClickStore {
	SetDefault(&cfg.Timeout, 5*time.Second)
	SetDefault(&cfg.HourRetention, DefaultHourRetention)
	SetDefault(&cfg.DayRetention, DefaultDayRetention)
	SetDefault(&cfg.CheckpointRetention, DefaultCheckpointRetention)
	SetDefault(&cfg.MaxBreakdownItems, clickstore.DefaultMaxBreakdownItems)
	SetDefaultNow(&cfg.Now)
	return &ClickStore{db: db, cfg: cfg}
}

const checkpointBucket = "checkpoint"

func checkpointKey(shard string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrCode: str("#shard#" + shard), tableschema.AttrBucket: str(checkpointBucket)}
}

// Apply implements clickstore.Store in one transaction. A transaction that
// lost to a concurrent one matches clickstore.ErrContended and
// link.ErrUnavailable.
func (s *ClickStore) Apply(ctx context.Context, c clickstore.Chunk) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("apply chunk: %w", err)
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
		ExpressionAttributeNames: map[string]string{"#seq": tableschema.AttrSequence, "#exp": tableschema.AttrExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":first": str(clickstore.PadSequence(c.First)),
			":last":  str(clickstore.PadSequence(c.Last)),
			":exp":   num(s.cfg.Now().Add(s.cfg.CheckpointRetention).Unix()),
		},
	}})
	// Sorted, so the same chunk is the same transaction every time
	// (Validate refused a key twice, which would make DynamoDB refuse the
	// whole transaction).
	sorted := slices.SortedFunc(slices.Values(c.Items), func(a, b clickstore.Item) int { return clickstore.CompareKeys(a.Key, b.Key) })
	for _, it := range sorted {
		k, n := it.Key, it.Counts
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName:        &s.cfg.Table,
			Key:              map[string]types.AttributeValue{tableschema.AttrCode: str(k.Code), tableschema.AttrBucket: str(bucket(k))},
			UpdateExpression: aws.String("ADD #t :t, #h :h, #b :b SET #exp = :exp"),
			ExpressionAttributeNames: map[string]string{
				"#t": tableschema.AttrTotal, "#h": tableschema.AttrHuman, "#b": tableschema.AttrBot, "#exp": tableschema.AttrExpiresAt,
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
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return WrapApply(c, err)
}

// WrapApply maps the outcome of the transaction that applies c, whose
// first item is the update of c's checkpoint conditioned on c not being
// applied yet: that condition failing is clickstore.ErrApplied, a conflict
// with another transaction clickstore.ErrContended (and unavailable); any
// other error is wrapped as Wrap does. nil stays nil.
func WrapApply(c clickstore.Chunk, err error) error {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		reasons := tce.CancellationReasons
		if len(reasons) > 0 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
			return fmt.Errorf("apply chunk %s..%s of %s: %w", c.First, c.Last, c.Shard, clickstore.ErrApplied)
		}
		for _, r := range reasons {
			if aws.ToString(r.Code) == "TransactionConflict" {
				return fmt.Errorf("apply chunk %s..%s of %s: %w: %w", c.First, c.Last, c.Shard, clickstore.ErrContended, link.ErrUnavailable)
			}
		}
	}
	return Wrap("apply chunk "+c.First+".."+c.Last+" of "+c.Shard, err)
}

func (s *ClickStore) retention(k clickstore.Kind) time.Duration {
	if k == clickstore.Hour {
		return s.cfg.HourRetention
	}
	return s.cfg.DayRetention
}

// Checkpoint implements clickstore.Store. The read is strongly consistent:
// it follows a failed condition and must see the write that failed it.
func (s *ClickStore) Checkpoint(ctx context.Context, shard string) (string, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName:      &s.cfg.Table,
		Key:            checkpointKey(shard),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", Wrap("read checkpoint of "+shard, err)
	}
	v, ok := item[tableschema.AttrSequence].(*types.AttributeValueMemberS)
	if !ok {
		return "", nil
	}
	return clickstore.TrimSequence(v.Value), nil
}

// Series implements clickstore.Store with one Query.
func (s *ClickStore) Series(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) ([]clickstore.Point, error) {
	if err := clickstore.CheckSeries(kind); err != nil {
		return nil, err
	}
	lo, hi, ok := bounds(code, kind, from, to)
	if !ok {
		return nil, nil
	}
	var points []clickstore.Point
	_, err := s.query(ctx, code, lo, hi, 0, func(item map[string]types.AttributeValue) error {
		start, _, c, err := unmarshalBucket(kind, item)
		if err != nil {
			return err
		}
		points = append(points, clickstore.Point{Start: start, Counts: c})
		return nil
	})
	if err != nil {
		return nil, Wrap("query "+kind.String()+" series of "+code, err)
	}
	return points, nil
}

// Breakdown implements clickstore.Store with one Query, reading at most
// ClickConfig.MaxBreakdownItems items.
func (s *ClickStore) Breakdown(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) (sums map[string]clickstore.Counts, complete bool, err error) {
	if err := clickstore.CheckBreakdown(kind); err != nil {
		return nil, false, err
	}
	sums = map[string]clickstore.Counts{}
	lo, hi, ok := bounds(code, kind, from, to)
	if !ok {
		return sums, true, nil
	}
	// This design keeps an item per campaign; the cap per code and day
	// (clickstore.MaxCampaigns) is applied as it reads, day by day.
	byDay := map[int64]map[string]clickstore.Counts{}
	complete, err = s.query(ctx, code, lo, hi, s.cfg.MaxBreakdownItems, func(item map[string]types.AttributeValue) error {
		start, dim, c, err := unmarshalBucket(kind, item)
		if err != nil {
			return err
		}
		if kind == clickstore.Visitor {
			c = clickstore.Counts{Total: 1, Human: 1} // a set
		}
		if kind == clickstore.Campaign {
			d := byDay[start.Unix()]
			if d == nil {
				d = map[string]clickstore.Counts{}
				byDay[start.Unix()] = d
			}
			v := d[dim]
			v.Add(c)
			d[dim] = v
			return nil
		}
		sum := sums[dim]
		sum.Add(c)
		sums[dim] = sum
		return nil
	})
	if err != nil {
		return nil, false, Wrap("query "+kind.String()+" breakdown of "+code, err)
	}
	for _, d := range byDay {
		clickstore.CapCampaigns(d)
		for dim, c := range d {
			sum := sums[dim]
			sum.Add(c)
			sums[dim] = sum
		}
	}
	return sums, complete, nil
}

// bounds are the sort keys of the first and last bucket of kind starting in
// [from, to); ok is false when there is none.
func bounds(code string, kind clickstore.Kind, from, to time.Time) (lo, hi string, ok bool) {
	first, last, ok := clickstore.Starts(kind, from, to)
	if !ok {
		return "", "", false
	}
	if kind == clickstore.Hour || kind == clickstore.Day {
		return bucket(clickstore.Key{Code: code, Kind: kind, Start: first}), bucket(clickstore.Key{Code: code, Kind: kind, Start: last}), true
	}
	// "c#20261130#" < "c#20261130#DE" < "c#20261130$": '$' follows '#'.
	day := func(start int64) string { return time.Unix(start, 0).UTC().Format(dayLayout) }
	return prefix(kind) + day(first) + "#", prefix(kind) + day(last) + "$", true
}

// query reads every item of code with a bucket in [lo, hi], page by page,
// eventually consistent (half the read cost; stats lag by seconds anyway).
// With max > 0 it stops after max items and reports complete = false.
func (s *ClickStore) query(ctx context.Context, code, lo, hi string, max int, each func(map[string]types.AttributeValue) error) (complete bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	in := &dynamodb.QueryInput{
		TableName:              &s.cfg.Table,
		KeyConditionExpression: aws.String("#code = :code AND #bucket BETWEEN :lo AND :hi"),
		ProjectionExpression:   aws.String("#bucket, #t, #h, #b"),
		ExpressionAttributeNames: map[string]string{
			"#code": tableschema.AttrCode, "#bucket": tableschema.AttrBucket,
			"#t": tableschema.AttrTotal, "#h": tableschema.AttrHuman, "#b": tableschema.AttrBot,
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
