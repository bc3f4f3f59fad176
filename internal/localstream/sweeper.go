package localstream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/internal/pace"
)

// ttlIgnoredAfter is how far in the past a TTL value may lie before
// DynamoDB ignores it: it deletes nothing whose TTL is more than five
// years old.
const ttlIgnoredAfter = 5 * 365 * 24 * time.Hour

// sweeper plays DynamoDB's TTL process for one table: it deletes expired
// items, each conditioned on its TTL value being unchanged, and remembers
// what it deleted, so that the poller can mark the REMOVE records those
// deletions produce as DynamoDB marks its own.
//
// It exists because DynamoDB Local's own sweeper cannot delete an item
// that a global secondary index leaves out (a sparse index, such as the
// links table's due-tombstones index, which holds only tombstones), and
// then abandons the sweep: in the links table it deletes nothing. Where DynamoDB Local does delete an item first, the conditional
// delete here finds nothing, and the poller translates DynamoDB Local's own
// record instead.
type sweeper struct {
	db        DynamoDBAPI
	table     string
	attr      string
	keys      []string
	interval  time.Duration
	now       func() time.Time
	logError  func(ctx context.Context, msg string, err error, attrs ...any)
	mu        sync.Mutex
	deletions map[string]string // key -> TTL value of deletions whose record has not been seen
}

// sweep deletes the items expired at now.
func (s *sweeper) sweep(ctx context.Context) error {
	now := s.now()
	names := map[string]string{"#ttl": s.attr}
	projection := []string{"#ttl"}
	for i, k := range s.keys {
		n := fmt.Sprintf("#k%d", i)
		names[n] = k
		projection = append(projection, n)
	}
	in := &dynamodb.ScanInput{
		TableName: &s.table,
		// DynamoDB compares only numbers with numbers: an item whose TTL
		// attribute is not a Number is never deleted, as in AWS.
		FilterExpression:         aws.String("#ttl <= :now AND #ttl >= :floor"),
		ProjectionExpression:     aws.String(strings.Join(projection, ", ")),
		ExpressionAttributeNames: names,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now":   &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())},
			":floor": &types.AttributeValueMemberN{Value: fmt.Sprint(now.Add(-ttlIgnoredAfter).Unix())},
		},
		ConsistentRead: aws.Bool(true),
	}
	for {
		out, err := s.db.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("scan %s for expired items: %w", s.table, err)
		}
		for _, item := range out.Items {
			s.delete(ctx, item)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func (s *sweeper) delete(ctx context.Context, item map[string]types.AttributeValue) {
	ttl, ok := item[s.attr].(*types.AttributeValueMemberN)
	if !ok {
		return
	}
	key := make(map[string]types.AttributeValue, len(s.keys))
	for _, k := range s.keys {
		key[k] = item[k]
	}
	id := keyID(key)
	// Remembered before the delete, so the record cannot reach the poller
	// first.
	s.mu.Lock()
	s.deletions[id] = ttl.Value
	s.mu.Unlock()
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       key,
		ConditionExpression:       aws.String("#ttl = :ttl"),
		ExpressionAttributeNames:  map[string]string{"#ttl": s.attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": ttl},
	})
	if err == nil {
		return
	}
	s.mu.Lock()
	delete(s.deletions, id)
	s.mu.Unlock()
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) { // changed or deleted since the scan: not expired any more, or gone
		s.logError(ctx, "delete expired item", err, "table", s.table, "key", id)
	}
}

// claim reports whether rec is the record of a deletion the sweeper made,
// and forgets that deletion.
func (s *sweeper) claim(rec *events.DynamoDBEventRecord) bool {
	if s == nil || rec.EventName != string(events.DynamoDBOperationTypeRemove) || rec.UserIdentity != nil {
		return false
	}
	id := keyID(rec.Change.Keys)
	ttl, ok := rec.Change.OldImage[s.attr]
	s.mu.Lock()
	defer s.mu.Unlock()
	want, pending := s.deletions[id]
	if !pending || !ok || ttl.DataType() != events.DataTypeNumber || ttl.Number() != want {
		return false
	}
	delete(s.deletions, id)
	return true
}

// run sweeps every interval until ctx is done.
func (s *sweeper) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.sweep(ctx); err != nil {
			s.logError(ctx, "ttl sweep", err)
		}
		pace.Sleep(ctx, s.interval)
	}
}

// keyID is a canonical string for an item key, for either SDK's
// attribute values (a stream record's Keys or an item's). Keys are
// strings, numbers or binary.
func keyID[V any](key map[string]V) string {
	names := make([]string, 0, len(key))
	for k := range key {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%q=", k)
		switch v := any(key[k]).(type) {
		case *types.AttributeValueMemberS:
			fmt.Fprintf(&b, "S%q;", v.Value)
		case *types.AttributeValueMemberN:
			fmt.Fprintf(&b, "N%q;", v.Value)
		case *types.AttributeValueMemberB:
			fmt.Fprintf(&b, "B%x;", v.Value)
		case events.DynamoDBAttributeValue:
			switch v.DataType() {
			case events.DataTypeString:
				fmt.Fprintf(&b, "S%q;", v.String())
			case events.DataTypeNumber:
				fmt.Fprintf(&b, "N%q;", v.Number())
			case events.DataTypeBinary:
				fmt.Fprintf(&b, "B%x;", v.Binary())
			}
		}
	}
	return b.String()
}
