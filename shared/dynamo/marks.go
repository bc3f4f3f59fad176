package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// MarkStore is one Region's marks table.
type MarkStore struct {
	db  API
	cfg Config
}

var (
	_ edgemarks.Store  = (*MarkStore)(nil)
	_ edgemarks.Reader = (*MarkStore)(nil)
)

// NewMarkStore returns the store over db; a zero cfg.Timeout bounds no
// call. The redirect's role may only UpdateItem the table, the management
// API's only GetItem it.
func NewMarkStore(db API, cfg Config) *MarkStore { return &MarkStore{db: db, cfg: cfg} }

// AttrFencedAt (epoch milliseconds) is the fence of a code: the time of
// the latest change the management API fenced it for (edgemarks.Reader).
// A mark built from data changed before it is refused. AttrFenceKeep
// (epoch seconds) is the mark a fence set to keep its item (the mark is
// the table's TTL attribute): while the mark still equals it, no redirect
// has marked since, and the mark says nothing about the edge.
const (
	AttrFencedAt  = "fenced_at"
	AttrFenceKeep = "fence_keep"
)

// raise sets the mark only when it raises it, and only for data no fence
// has outdated. Without the first condition two redirects marking one
// code at once could leave the smaller mark: one that sent a 410 for a
// minute after one that sent a redirect for a day. Without the second, a
// redirect reading a replica that lags behind a change could mark, and
// send the old answer for a day, after the management API has decided no
// edge holds the code. A condition that fails is billed like the write (1
// WRU:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html),
// and happens only when another instance marked further or a change
// fenced the code, so it costs nothing extra in practice; the item (a
// code and two numbers) stays far below 1 KB
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
// Which condition failed is read from the item the failure returns
// (ReturnValuesOnConditionCheckFailure, which consumes no read units:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html).
//
// A mark that only a fence's keep stands above is written, lowering the
// item's TTL to the mark: the fence is no longer needed once a redirect
// of the Region has read the changed data, and the mark still keeps it
// an hour at least (edgemarks.DefaultSlack). Every mark written drops the
// keep's record, so that a mark equal to the keep, to the second, still
// reads as a mark.
var (
	raise     = "SET #u = :u REMOVE #k"
	raiseOnly = "(attribute_not_exists(#u) OR #u < :u OR #u = #k) AND (attribute_not_exists(#f) OR #f <= :s)"
	markNames = map[string]string{"#u": tableschema.AttrHeldUntil, "#f": AttrFencedAt, "#k": AttrFenceKeep}
)

// Mark raises code's mark to until, in whole seconds rounded up (the TTL
// attribute's unit), unless a fence after stamp refuses it
// (edgemarks.ErrFenced). A mark already further is left, and that is no
// error: the table says what the caller needs.
func (s *MarkStore) Mark(ctx context.Context, code string, stamp, until time.Time) error {
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.cfg.Table,
		Key:                                 markKey(code),
		UpdateExpression:                    &raise,
		ConditionExpression:                 &raiseOnly,
		ExpressionAttributeNames:            usedNames(raise + " " + raiseOnly),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":u": seconds(edgemarks.CeilSecond(until)),
			":s": millis(stamp),
		},
	})
	if old, failed := ConditionFailed(err); failed {
		fence, ok, ferr := number(old, AttrFencedAt)
		switch {
		case ferr != nil:
			return fmt.Errorf("mark edge hold of %q: %w", code, ferr)
		case old == nil:
			// The item exists (an absent one meets both conditions), so
			// DynamoDB left out what it was: which condition failed is
			// unknown, and the answer must not count on a mark.
			return fmt.Errorf("mark edge hold of %q: refused, and no item to say why", code)
		case ok && fence > stamp.UnixMilli():
			return edgemarks.ErrFenced
		}
		return nil
	}
	if err != nil {
		return Wrap("mark edge hold", err)
	}
	return nil
}

// fence sets the fence and keeps the item at least until keep, in one
// write, when both rise; Fence splits it when only one does.
var (
	fenceAndKeep     = "SET #f = :f, #u = :k, #k = :k"
	fenceAndKeepOnly = "(attribute_not_exists(#f) OR #f < :f) AND (attribute_not_exists(#u) OR #u < :k)"
	fenceOnlySet     = "SET #f = :f"
	fenceOnly        = "attribute_not_exists(#f) OR #f < :f"
	keepOnlySet      = "SET #u = :k"
	keepOnly         = "attribute_not_exists(#u) OR #u < :k"
)

// Fence raises code's fence to stamp (milliseconds) and its mark, which
// is also the item's TTL, to keep (seconds, rounded up), and returns the
// mark as it was when the fence took effect: the zero time when that mark
// was an earlier fence's keep, which no redirect has marked past since
// (AttrFenceKeep), so that a second change of a link nobody asked for is
// not invalidated either. Both rise in one
// conditional UpdateItem that returns the item as it was (ALL_OLD, on
// success or on failure); only when one of them is already further (a
// later change's fence, or a mark beyond keep) does a second write raise
// the other. The mark read and the fence are one atomic write, or the
// mark is read where a fence at least as late already stood: a mark
// written after it, for older data, is refused, and one written before
// it is in what Fence returns.
func (s *MarkStore) Fence(ctx context.Context, code string, stamp, keep time.Time) (time.Time, error) {
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	values := map[string]types.AttributeValue{":f": millis(stamp), ":k": seconds(edgemarks.CeilSecond(keep))}
	old, failed, err := s.update(ctx, code, fenceAndKeep, fenceAndKeepOnly, values)
	if err != nil {
		return time.Time{}, err
	}
	before, err := heldUntil(code, old)
	if err != nil || !failed {
		return before, err
	}
	if failed && old == nil {
		return time.Time{}, fmt.Errorf("fence edge mark of %q: refused, and no item to say why", code)
	}
	fence, hasFence, err := number(old, AttrFencedAt)
	if err != nil {
		return time.Time{}, fmt.Errorf("fence edge mark of %q: %w", code, err)
	}
	if !hasFence || fence < stamp.UnixMilli() {
		// A mark beyond keep: only the fence rises, and what it returns
		// is the mark as it took effect.
		old, failed, err = s.update(ctx, code, fenceOnlySet, fenceOnly, map[string]types.AttributeValue{":f": values[":f"]})
		if err != nil {
			return time.Time{}, err
		}
		if !failed || old != nil {
			return heldUntil(code, old)
		}
		return time.Time{}, fmt.Errorf("fence edge mark of %q: refused, and no item to say why", code)
	}
	// A later change's fence stands already; the mark read with it is the
	// answer. Keep the item as long as this change needs.
	if _, _, err := s.update(ctx, code, keepOnlySet, keepOnly, map[string]types.AttributeValue{":k": values[":k"]}); err != nil {
		return time.Time{}, err
	}
	return before, nil
}

// update is one conditional UpdateItem that returns the item as it was
// before it, whether the condition held (failed false) or not.
func (s *MarkStore) update(ctx context.Context, code, set, cond string, values map[string]types.AttributeValue) (old map[string]types.AttributeValue, failed bool, err error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.cfg.Table,
		Key:                                 markKey(code),
		UpdateExpression:                    &set,
		ConditionExpression:                 &cond,
		ExpressionAttributeNames:            usedNames(set + " " + cond),
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, failed = ConditionFailed(err); failed {
		return old, true, nil
	}
	if err != nil {
		return nil, false, Wrap("fence edge mark", err)
	}
	return out.Attributes, false, nil
}

// usedNames are the attribute names an expression uses: DynamoDB refuses
// any other.
func usedNames(expr string) map[string]string {
	used := map[string]string{}
	for k, v := range markNames {
		if strings.Contains(expr, k) {
			used[k] = v
		}
	}
	return used
}

// heldUntil is the mark an item says; the zero time for none, or when
// the mark is only a fence's keep.
func heldUntil(code string, item map[string]types.AttributeValue) (time.Time, error) {
	secs, ok, err := number(item, tableschema.AttrHeldUntil)
	if err != nil {
		return time.Time{}, fmt.Errorf("read edge mark of %q: %w", code, err)
	}
	keep, kept, err := number(item, AttrFenceKeep)
	if err != nil {
		return time.Time{}, fmt.Errorf("read edge mark of %q: %w", code, err)
	}
	if !ok || kept && keep == secs {
		return time.Time{}, nil
	}
	return time.Unix(secs, 0).UTC(), nil
}

// number reads a whole-number attribute of item; ok is false without it.
func number(item map[string]types.AttributeValue, name string) (n int64, ok bool, err error) {
	v, present := item[name]
	if !present {
		return 0, false, nil
	}
	nv, isN := v.(*types.AttributeValueMemberN)
	if !isN {
		return 0, false, fmt.Errorf("%s is not a number", name)
	}
	n, err = strconv.ParseInt(nv.Value, 10, 64)
	return n, err == nil, err
}

// HeldUntil reads code's mark strongly consistently: a read that began
// after a mark's write returned sees it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html).
// No item: the zero time.
func (s *MarkStore) HeldUntil(ctx context.Context, code string) (time.Time, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName:                &s.cfg.Table,
		Key:                      markKey(code),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#u"),
		ExpressionAttributeNames: map[string]string{"#u": tableschema.AttrHeldUntil},
	})
	if err != nil {
		return time.Time{}, Wrap("read edge mark", err)
	}
	if item == nil {
		return time.Time{}, nil
	}
	n, ok := item[tableschema.AttrHeldUntil].(*types.AttributeValueMemberN)
	if !ok {
		return time.Time{}, fmt.Errorf("read edge mark of %q: no %s", code, tableschema.AttrHeldUntil)
	}
	secs, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("read edge mark of %q: %w", code, err)
	}
	return time.Unix(secs, 0).UTC(), nil
}

func markKey(code string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: code}}
}
