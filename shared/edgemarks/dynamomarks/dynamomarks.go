// Package dynamomarks keeps edge marks (shared/edgemarks) in a Region's
// marks table: one item per code, raised with one conditional UpdateItem
// and read with one strongly consistent GetItem, deleted by TTL once it has
// passed.
package dynamomarks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/dynamoerr"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/tableschema/dynamotable"
)

// API lists the DynamoDB calls the store makes: the redirect's role may
// only UpdateItem, the management API's only GetItem.
type API interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Config names the table and bounds each call.
type Config struct {
	Table string
	// Timeout bounds each call; none when zero.
	Timeout time.Duration
}

// Store is one Region's marks table.
type Store struct {
	db  API
	cfg Config
}

var (
	_ edgemarks.Store  = (*Store)(nil)
	_ edgemarks.Reader = (*Store)(nil)
)

// New returns the store over db.
func New(db API, cfg Config) *Store { return &Store{db: db, cfg: cfg} }

// raise sets the mark only when it raises it. Without the condition two
// redirects marking one code at once could leave the smaller mark: one
// that sent a 410 for a minute after one that sent a redirect for a day.
// A condition that fails is billed like the write (1 WRU:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html),
// and happens only when another instance marked further, so it costs
// nothing extra in practice; the item (a code and a number) stays far
// below 1 KB
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
var (
	raise     = "SET #u = :u"
	raiseOnly = "attribute_not_exists(#u) OR #u < :u"
)

// Mark raises code's mark to until, in whole seconds rounded up (the TTL
// attribute's unit). A mark already further is left, and that is no
// error: the table says what the caller needs.
func (s *Store) Mark(ctx context.Context, code string, until time.Time) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.cfg.Table,
		Key:                      key(code),
		UpdateExpression:         &raise,
		ConditionExpression:      &raiseOnly,
		ExpressionAttributeNames: map[string]string{"#u": tableschema.AttrHeldUntil},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":u": &types.AttributeValueMemberN{Value: strconv.FormatInt(edgemarks.CeilSecond(until).Unix(), 10)},
		},
	})
	var further *types.ConditionalCheckFailedException
	if errors.As(err, &further) {
		return nil
	}
	if err != nil {
		return dynamoerr.Wrap("mark edge hold", err)
	}
	return nil
}

// HeldUntil reads code's mark strongly consistently: a read that began
// after a mark's write returned sees it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html).
// No item: the zero time.
func (s *Store) HeldUntil(ctx context.Context, code string) (time.Time, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                &s.cfg.Table,
		Key:                      key(code),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#u"),
		ExpressionAttributeNames: map[string]string{"#u": tableschema.AttrHeldUntil},
	})
	if err != nil {
		return time.Time{}, dynamoerr.Wrap("read edge mark", err)
	}
	if out.Item == nil {
		return time.Time{}, nil
	}
	n, ok := out.Item[tableschema.AttrHeldUntil].(*types.AttributeValueMemberN)
	if !ok {
		return time.Time{}, fmt.Errorf("read edge mark of %q: no %s", code, tableschema.AttrHeldUntil)
	}
	secs, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("read edge mark of %q: %w", code, err)
	}
	return time.Unix(secs, 0).UTC(), nil
}

func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.cfg.Timeout > 0 {
		return context.WithTimeout(ctx, s.cfg.Timeout)
	}
	return ctx, func() {}
}

func key(code string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: code}}
}

// CreateTable creates a marks table as the deployed stacks have it
// (tableschema.EdgeMarks), for DynamoDB Local; an existing table is left
// alone. In AWS the table comes from infra/.
func CreateTable(ctx context.Context, db dynamotable.API, name string) error {
	return dynamotable.Create(ctx, db, name, tableschema.EdgeMarks())
}
