package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// linkNames are the expression attribute names every lifecycle condition uses;
// "status" is a DynamoDB reserved word.
var linkNames = map[string]string{"#status": tableschema.AttrStatus}

// Update implements linkstore.Store: a whole-item put conditioned on the
// owner, the version the caller read, and the link not being a tombstone.
func (s *LinkStore) Update(ctx context.Context, l link.Link, expect int64) error {
	if s.tagsOn() {
		return s.updateTagged(ctx, l, expect)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.cfg.LinksTable,
		Item:                                marshalLink(l, s.cfg.PurgeDelay),
		ConditionExpression:                 aws.String(ownedCondition(expect)),
		ExpressionAttributeNames:            linkNames,
		ExpressionAttributeValues:           ownedValues(l.Owner, expect),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	return s.ownedError("update link", l.Code, l.Owner, err)
}

// Delete implements linkstore.Store: the link item is replaced by its
// tombstone under the same conditions as Update.
func (s *LinkStore) Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error {
	t.Code, t.PrevOwner = code, owner
	if s.tagsOn() {
		return s.deleteTagged(ctx, owner, code, expect, t)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.cfg.LinksTable,
		Item:                                marshalTombstone(t),
		ConditionExpression:                 aws.String(ownedCondition(expect)),
		ExpressionAttributeNames:            linkNames,
		ExpressionAttributeValues:           ownedValues(owner, expect),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	return s.ownedError("delete link", code, owner, err)
}

func ownedCondition(expect int64) string {
	c := tableschema.AttrOwner + " = :owner AND #status <> :tomb"
	if expect != 0 {
		c += " AND " + tableschema.AttrVersion + " = :expect"
	}
	return c
}

func ownedValues(owner string, expect int64) map[string]types.AttributeValue {
	v := map[string]types.AttributeValue{":owner": str(owner), ":tomb": str(string(link.StatusTombstone))}
	if expect != 0 {
		v[":expect"] = num(expect)
	}
	return v
}

// ownedError tells a lost update (412) from a link the caller may not see
// (404) using the item DynamoDB returns with a failed condition. Owner
// isolation: someone else's link is "not found", never "forbidden".
func (s *LinkStore) ownedError(op, code, owner string, err error) error {
	prev, failed := ConditionFailed(err)
	if !failed {
		return wrapCode(op, code, err)
	}
	if prev == nil {
		return fmt.Errorf("%s %q: %w", op, code, link.ErrNotFound)
	}
	old, derr := unmarshalLink(prev)
	if derr != nil || old.Owner != owner || old.Status == link.StatusTombstone {
		return fmt.Errorf("%s %q: %w", op, code, link.ErrNotFound)
	}
	return fmt.Errorf("%s %q: version is %d: %w", op, code, old.Version, link.ErrPrecondition)
}

// List implements linkstore.Store through the owner index, newest first:
// by-owner-all once it is ready (listIndex), by-owner before.
// It asks for one item more than the page so the last page has no cursor.
func (s *LinkStore) List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	after, err := linkstore.DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 || limit > linkstore.MaxPage {
		limit = linkstore.MaxPage
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	index, full := s.listIndex(ctx)
	in := &dynamodb.QueryInput{
		TableName:                 &s.cfg.LinksTable,
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(tableschema.AttrOwner + " = :owner"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":owner": str(owner)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit + 1)),
	}
	if after != nil {
		// The cursor names only a position; the owner comes from the
		// caller, so a forged cursor cannot reach another owner's index.
		in.ExclusiveStartKey = map[string]types.AttributeValue{
			tableschema.AttrCode: str(after.Code), tableschema.AttrOwner: str(owner), tableschema.AttrCreatedAt: num(after.CreatedAt),
		}
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, "", wrapCode("list links of", owner, err)
	}
	links := make([]link.Link, 0, len(out.Items))
	if links, err = appendDecoded(links, out.Items, unmarshalLink); err != nil {
		return nil, "", err
	}
	for i := range links {
		if full {
			links[i] = linkstore.Listed(links[i])
		}
	}
	if len(links) <= limit {
		return links, "", nil
	}
	links = links[:limit]
	return links, linkstore.EncodeCursor(links[limit-1]), nil
}

// Tombstone implements linkstore.Store. The condition admits a link that
// has itself expired (the expiry sweep, or a TTL removal not replicated
// here yet) or an absent item (TTL removed it), never a live link or a
// tombstone. Written in place, the tombstone drops the link's TTL
// attribute and its expiring-links entry.
func (s *LinkStore) Tombstone(ctx context.Context, t link.Tombstone) (bool, error) {
	if s.tagsOn() {
		if written, handled, err := s.tombstoneTagged(ctx, t); handled {
			return written, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	update, attrNames, values := tombstoneUpdate(t)
	attrNames["#status"] = tableschema.AttrStatus
	values[":tomb"] = str(string(link.StatusTombstone))
	values[":now"] = num(s.cfg.Now().Unix())
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.cfg.LinksTable,
		Key:                       map[string]types.AttributeValue{tableschema.AttrCode: str(t.Code)},
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("attribute_not_exists(" + tableschema.AttrCode + ") OR (#status <> :tomb AND " + tableschema.AttrExpiresAt + " <= :now)"),
		ExpressionAttributeNames:  attrNames,
		ExpressionAttributeValues: values,
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrapCode("write tombstone", t.Code, err)
	}
	return true, nil
}

// tombstoneUpdate turns the item under t.Code, a link or nothing, into t
// in one write: it sets the tombstone's attributes and removes every
// attribute only a link has, except that an expired link's tombstone
// written without an after-expiry URL (reclaim lists codes only) keeps
// the link's own (linkstore.Memory does the same). Billed like the put it
// replaces: on the larger of the item before and after.
func tombstoneUpdate(t link.Tombstone) (update string, attrNames map[string]string, values map[string]types.AttributeValue) {
	attrNames = map[string]string{}
	values = map[string]types.AttributeValue{}
	var set, remove []string
	tomb := marshalTombstone(t)
	for _, k := range slices.Sorted(maps.Keys(tomb)) {
		if k == tableschema.AttrCode {
			continue
		}
		n, v := "#s"+strconv.Itoa(len(set)), ":s"+strconv.Itoa(len(set))
		attrNames[n], values[v] = k, tomb[k]
		set = append(set, n+" = "+v)
	}
	for _, k := range linkOnlyAttrs {
		if _, ok := tomb[k]; ok || k == tableschema.AttrExpiredURL && t.Reason == link.ReasonExpired {
			continue
		}
		n := "#r" + strconv.Itoa(len(remove))
		attrNames[n] = k
		remove = append(remove, n)
	}
	update = "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}
	return update, attrNames, values
}

// linkOnlyAttrs are the attributes a link item can carry besides its key,
// read off the item of a link with every field set, so a field added to
// the link is removed from its tombstone without a second list to keep.
var linkOnlyAttrs = func() []string {
	full := link.Link{Code: "c", Alias: "C", URL: "u", Owner: "o", Status: link.StatusActive, Version: 1, RedirectStatus: 302,
		Features: link.Features{PasswordHash: "h", MaxClicks: 1, Rules: []link.Rule{{URL: "u", Country: []string{"DE"}}},
			Targets: []link.Target{{URL: "u", Weight: 50}, {URL: "v", Weight: 50}}, ExpiredURL: "e",
			KeepQueryOut: true, QueryPrecedence: link.QueryVisitor},
		Meta: link.Meta{Title: "t", Notes: "n", Tags: []string{"t"}}}
	var out []string
	for k := range marshalLink(full, time.Hour) {
		if k != tableschema.AttrCode {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}()

// GetTombstone implements linkstore.Store.
func (s *LinkStore) GetTombstone(ctx context.Context, code string) (link.Tombstone, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName: &s.cfg.LinksTable,
		Key:       map[string]types.AttributeValue{tableschema.AttrCode: str(code)},
	})
	if err != nil {
		return link.Tombstone{}, wrapCode("get tombstone", code, err)
	}
	if s, ok := item[tableschema.AttrStatus].(*types.AttributeValueMemberS); !ok || s.Value != string(link.StatusTombstone) {
		return link.Tombstone{}, fmt.Errorf("tombstone %q: %w", code, link.ErrNotFound)
	}
	return unmarshalTombstone(item)
}

// ExpiredLinks implements linkstore.Store through the expiring-links
// index. Tombstones are not in it.
func (s *LinkStore) ExpiredLinks(ctx context.Context, now time.Time, limit int) ([]linkstore.Expired, error) {
	var due []linkstore.Expired
	err := s.queryDue(ctx, "expired links", tableschema.IndexExpiringLinks, tableschema.AttrExpShard, tableschema.AttrExpiresAt, now, limit,
		func(item map[string]types.AttributeValue) error {
			code, err := getS(item, tableschema.AttrCode, nil)
			owner, _ := getS(item, tableschema.AttrOwner, nil) // kept for audit only
			due = append(due, linkstore.Expired{Code: code, Owner: owner})
			return err
		})
	return due, err
}

// DueTombstones implements linkstore.Store through the due-tombstones
// index.
func (s *LinkStore) DueTombstones(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var codes []string
	err := s.queryDue(ctx, "due tombstones", tableschema.IndexDueTombstones, tableschema.AttrTombShard, tableschema.AttrReclaimAfter, now, limit,
		func(item map[string]types.AttributeValue) error {
			code, err := getS(item, tableschema.AttrCode, nil)
			codes = append(codes, code)
			return err
		})
	return codes, err
}

// queryDue queries a sparse index shard by shard (partition shardAttr,
// sort key dueAttr <= now), never a scan, and hands each item to add
// until limit items are found.
func (s *LinkStore) queryDue(ctx context.Context, what, index, shardAttr, dueAttr string, now time.Time, limit int,
	add func(map[string]types.AttributeValue) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	found := 0
	for sh := 0; sh < TombShards && found < limit; sh++ {
		out, err := s.db.Query(ctx, &dynamodb.QueryInput{
			TableName:              &s.cfg.LinksTable,
			IndexName:              aws.String(index),
			KeyConditionExpression: aws.String(shardAttr + " = :shard AND " + dueAttr + " <= :now"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":shard": str(fmt.Sprint(sh)), ":now": num(now.Unix()),
			},
			Limit: aws.Int32(int32(limit - found)),
		})
		if err != nil {
			return wrapCode("query "+what+" in shard", fmt.Sprint(sh), err)
		}
		for _, item := range out.Items {
			if err := add(item); err != nil {
				return fmt.Errorf("decode %s: %w", what, err)
			}
			found++
		}
	}
	return nil
}

// Release implements linkstore.Store: a delete conditioned on the item
// still being a due tombstone, so a code re-issued in the meantime, or a
// tombstone whose grace was extended, is never touched.
func (s *LinkStore) Release(ctx context.Context, code string, now time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                &s.cfg.LinksTable,
		Key:                      map[string]types.AttributeValue{tableschema.AttrCode: str(code)},
		ConditionExpression:      aws.String("#status = :tomb AND " + tableschema.AttrReclaimAfter + " <= :now"),
		ExpressionAttributeNames: linkNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":tomb": str(string(link.StatusTombstone)), ":now": num(now.Unix()),
		},
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrapCode("release tombstone", code, err)
	}
	return true, nil
}

// Supersede implements linkstore.Links: a whole-item put conditioned on
// the owner, the link not being a tombstone, and the stored version being
// older than l's. A newer version already stored (a later edit granted
// after this one by the reservation table) leaves it alone and succeeds.
func (s *LinkStore) Supersede(ctx context.Context, l link.Link) error {
	if s.tagsOn() {
		return s.supersedeTagged(ctx, l)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	values := ownedValues(l.Owner, 0)
	values[":next"] = num(l.Version)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.cfg.LinksTable,
		Item:                                marshalLink(l, s.cfg.PurgeDelay),
		ConditionExpression:                 aws.String(ownedCondition(0) + " AND " + tableschema.AttrVersion + " < :next"),
		ExpressionAttributeNames:            linkNames,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err = s.ownedError("supersede link", l.Code, l.Owner, err); errors.Is(err, link.ErrPrecondition) {
		return nil // a newer version is stored already
	}
	return err
}
