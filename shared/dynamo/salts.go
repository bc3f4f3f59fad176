package dynamo

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// Salts keeps the visitor salts in the analytics table: one item per UTC
// day in a partition no code can have (codes never contain '#'), with the
// table's TTL deleting it visitors.SaltLife after the day's start.
//
//	code    bucket     holds
//	#salt   20261203   "salt": 32 random bytes; expires_at
//
// The first caller of a day puts a new random salt if there is none
// (attribute_not_exists), and everyone reads what is there, strongly
// consistent, so all the clicks functions of a Region hash with one salt.
// TTL deletes expired items within a few days, not at once, so a reader
// refuses an item past its expires_at itself.
type Salts struct {
	db  API
	cfg Config
	now func() time.Time
}

var _ visitors.Salts = (*Salts)(nil)

// NewSalts returns the salts of cfg.Table (the analytics table); now is
// the clock (time.Now when nil).
func NewSalts(db API, cfg Config, now func() time.Time) *Salts {
	if now == nil {
		now = time.Now
	}
	return &Salts{db: db, cfg: cfg, now: now}
}

const (
	saltPartition = "#salt"
	attrSalt      = "salt"
)

// Salt implements visitors.Salts.
func (s *Salts) Salt(ctx context.Context, day int64) ([]byte, bool, error) {
	expires := time.Unix(day, 0).Add(visitors.SaltLife)
	if !s.now().Before(expires) {
		return nil, false, nil
	}
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	key := map[string]types.AttributeValue{
		tableschema.AttrCode:   &types.AttributeValueMemberS{Value: saltPartition},
		tableschema.AttrBucket: &types.AttributeValueMemberS{Value: time.Unix(day, 0).UTC().Format(dayLayout)},
	}
	for range 2 {
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.cfg.Table, Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, false, Wrap("get visitor salt", err)
		}
		if b, ok := out.Item[attrSalt].(*types.AttributeValueMemberB); ok && len(b.Value) == visitors.SaltBytes {
			return b.Value, true, nil
		}
		item := map[string]types.AttributeValue{
			attrSalt:                  &types.AttributeValueMemberB{Value: visitors.NewSalt()},
			tableschema.AttrExpiresAt: &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)},
		}
		for k, v := range key {
			item[k] = v
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.cfg.Table, Item: item,
			ConditionExpression:      aws.String("attribute_not_exists(#c)"),
			ExpressionAttributeNames: map[string]string{"#c": tableschema.AttrCode},
		})
		var cond *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &cond) {
			return nil, false, Wrap("put visitor salt", err)
		}
		// Written, or another function was first: read what is there.
	}
	return nil, false, errors.New("visitor salt: neither read nor written")
}
