package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// MissCounter is the misses table.
type MissCounter struct {
	db  API
	cfg Config
}

var _ missbudget.Counter = (*MissCounter)(nil)

// NewMissCounter returns the store over db; a zero cfg.Timeout bounds no
// call.
func NewMissCounter(db API, cfg Config) *MissCounter { return &MissCounter{db: db, cfg: cfg} }

// missUpdate is the one write: ADD creates the item at 1 or adds to it, and
// the expiry is set once, by the first miss of the window. The item stays
// far below 1 KB (a key of at most ~60 bytes and two numbers), so every
// call is billed one write unit whatever the count
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
var missUpdate = "ADD #m :one SET #e = if_not_exists(#e, :exp)"

// Add counts one miss of client in the window starting at window and
// returns the window's count after it.
func (s *MissCounter) Add(ctx context.Context, client string, window, expires time.Time) (int64, error) {
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.cfg.Table,
		Key: map[string]types.AttributeValue{
			tableschema.AttrClientWindow: &types.AttributeValueMemberS{Value: missbudget.Key(client, window)},
		},
		UpdateExpression:         &missUpdate,
		ExpressionAttributeNames: map[string]string{"#m": tableschema.AttrMisses, "#e": tableschema.AttrExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": &types.AttributeValueMemberN{Value: "1"},
			":exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)},
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, Wrap("count miss", err)
	}
	n, ok := out.Attributes[tableschema.AttrMisses].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("count miss: no %s in the answer", tableschema.AttrMisses)
	}
	c, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("count miss: %w", err)
	}
	return c, nil
}
