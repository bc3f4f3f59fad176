package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ItemAPI lists the single-item calls: reads and conditional writes. The
// reservation table takes nothing else, since an MRSC table has no
// transactions (TransactWriteItems and TransactGetItems fail on it:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
type ItemAPI interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// API lists the DynamoDB calls the stores make: the subset of
// *dynamodb.Client they use.
type API interface {
	ItemAPI
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ API = (*dynamodb.Client)(nil)

// Config names a store's table and bounds each of its calls.
type Config struct {
	Table string
	// Timeout bounds each call, retries included; each constructor says
	// what zero means.
	Timeout time.Duration
}

// SetDefault sets *v to def when it is zero or negative: how every
// store's constructor fills the settings its Config leaves unset.
func SetDefault[T ~int | ~int32 | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// SetDefaultNow sets *now to time.Now when it is nil: how every store's
// constructor fills an unset clock.
func SetDefaultNow(now *func() time.Time) {
	if *now == nil {
		*now = time.Now
	}
}

// bound is ctx bounded by timeout, or ctx itself when timeout is zero or
// negative: the stores whose Config has no default timeout leave the bound
// to the caller's context.
func bound(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return ctx, func() {}
}

// getItem is one GetItem bounded by timeout (as bound): the item, nil when
// there is none. The caller wraps the error with what it was reading.
func getItem(ctx context.Context, db ItemAPI, timeout time.Duration, in *dynamodb.GetItemInput) (map[string]types.AttributeValue, error) {
	ctx, cancel := bound(ctx, timeout)
	defer cancel()
	out, err := db.GetItem(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// appendDecoded appends each of items, decoded, to out; the first item
// that does not decode is the error, and what was appended before it is
// dropped with it.
func appendDecoded[T any](out []T, items []map[string]types.AttributeValue, decode func(map[string]types.AttributeValue) (T, error)) ([]T, error) {
	for _, item := range items {
		v, err := decode(item)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
