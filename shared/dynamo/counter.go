package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Counter is the DynamoDB linkcounter.Store.
type Counter struct {
	db    API
	table string
}

var _ linkcounter.Store = (*Counter)(nil)

// NewCounter returns a store over table.
func NewCounter(db API, table string) *Counter { return &Counter{db: db, table: table} }

const (
	attrUsed  = "used"
	attrN     = "n"
	attrUntil = "until" // epoch milliseconds
)

func counterKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrIdemPK: &types.AttributeValueMemberS{Value: pk}}
}

// UseClick is one UpdateItem: ADD used 1 if used < max. DynamoDB applies
// the condition and the increment atomically on the one item, so of any
// number of racing clicks exactly max succeed (docs: "Conditional writes",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalUpdate).
func (s *Counter) UseClick(ctx context.Context, k string, max int64, expires time.Time) (bool, error) {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 counterKey("clicks#" + k),
		UpdateExpression:    aws.String("ADD #used :one SET #exp = :exp"),
		ConditionExpression: aws.String("attribute_not_exists(#used) OR #used < :max"),
		ExpressionAttributeNames: map[string]string{
			"#used": attrUsed, "#exp": tableschema.AttrExpiresAt,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": num(1), ":max": num(max), ":exp": num(expires.Unix()),
		},
	})
	switch {
	case err == nil:
		return true, nil
	case conditionFailed(err):
		return false, nil
	}
	return false, fmt.Errorf("use a click of %q: %w", k, err)
}

// ClicksUsed is an eventually consistent GetItem.
func (s *Counter) ClicksUsed(ctx context.Context, k string) (int64, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: counterKey("clicks#" + k),
		ProjectionExpression: aws.String("#used"), ExpressionAttributeNames: map[string]string{"#used": attrUsed}})
	if err != nil {
		return 0, fmt.Errorf("read the clicks of %q: %w", k, err)
	}
	n, _ := OptionalN(out.Item, attrUsed)
	return n, nil
}

// Attempt counts within the open window of lim (n+1 if n < max and the window
// has not ended), else opens a new one (n = 1 if the window has ended or
// there is none), each a conditional UpdateItem; when both conditions
// fail the window is open and full. Opening races with counting only at a
// window's end: a few rounds settle it. Its errors do not name k: a
// ViewerKey holds the viewer's address, which stays out of the logs (the
// caller names the code).
func (s *Counter) Attempt(ctx context.Context, k string, lim linkcounter.Limit, now time.Time) (time.Duration, error) {
	pk := "pw#" + k
	names := map[string]string{"#n": attrN, "#until": attrUntil, "#exp": tableschema.AttrExpiresAt}
	nowMS := now.UnixMilli()
	for range 3 {
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &s.table, Key: counterKey(pk),
			UpdateExpression:          aws.String("ADD #n :one"),
			ConditionExpression:       aws.String("#until > :now AND #n < :max"),
			ExpressionAttributeNames:  map[string]string{"#n": attrN, "#until": attrUntil},
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1), ":now": num(nowMS), ":max": num(int64(lim.Max))},
		})
		if err == nil {
			return 0, nil
		}
		if !conditionFailed(err) {
			return 0, fmt.Errorf("count a password attempt: %w", err)
		}
		until := now.Add(lim.Window)
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &s.table, Key: counterKey(pk),
			UpdateExpression:         aws.String("SET #n = :one, #until = :until, #exp = :exp"),
			ConditionExpression:      aws.String("attribute_not_exists(#until) OR #until <= :now"),
			ExpressionAttributeNames: names,
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1), ":now": num(nowMS),
				":until": num(until.UnixMilli()), ":exp": num(until.Add(time.Minute).Unix())},
		})
		if err == nil {
			return 0, nil
		}
		if !conditionFailed(err) {
			return 0, fmt.Errorf("open a password window: %w", err)
		}
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: counterKey(pk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return 0, fmt.Errorf("read a password window: %w", err)
		}
		n, _ := OptionalN(out.Item, attrN)
		u, ok := OptionalN(out.Item, attrUntil)
		if ok && u > nowMS && n >= int64(lim.Max) {
			return max(time.Duration(u-nowMS)*time.Millisecond, time.Second), linkcounter.ErrLimited
		}
	}
	return time.Second, linkcounter.ErrLimited // still racing: refuse rather than let one more through
}

// Forgive takes an attempt back within the window it was counted in.
func (s *Counter) Forgive(ctx context.Context, k string, now time.Time) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: counterKey("pw#" + k),
		UpdateExpression:          aws.String("ADD #n :minus"),
		ConditionExpression:       aws.String("#until > :now AND #n > :zero"),
		ExpressionAttributeNames:  map[string]string{"#n": attrN, "#until": attrUntil},
		ExpressionAttributeValues: map[string]types.AttributeValue{":minus": num(-1), ":now": num(now.UnixMilli()), ":zero": num(0)},
	})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("forgive a password attempt: %w", err)
	}
	return nil
}
