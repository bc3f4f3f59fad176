package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// The tags table (tableschema.LinkTags) holds two kinds of item, both
// scoped to an owner by a length-prefixed owner ID in their partition key
// (owner IDs may hold '#'; tags never do, link.TagCharacters):
//
//   - membership: pk "m<len>:<owner>#<tag>", sk "<created ms, 13 digits>#<code>",
//     carrying a copy of the link item (the listing's projection, as an
//     ALL index would hold it). A tag's links page newest first, as the
//     listing does, in one Query: as fast as the plain listing. Every
//     write of the link rewrites its copies in the same transaction; they
//     carry the link's TTL attribute, so should TTL remove the link before
//     the expiry sweep tombstones it, it removes the copies too.
//   - counter: pk "c<len>:<owner>", sk the tag, n the number of the owner's
//     links carrying it. GET /v1/tags is one Query of it.
//
// Each is written in the transaction that writes the link, so they never
// disagree with it: a create adds, a PATCH that changes tags moves, a
// delete or the expiry sweep's tombstone removes.

var _ linkstore.Tagged = (*LinkStore)(nil)

func ownerKey(owner string) string { return strconv.Itoa(len(owner)) + ":" + owner }

func memberPK(owner, tag string) string { return "m" + ownerKey(owner) + "#" + tag }

func counterPK(owner string) string { return "c" + ownerKey(owner) }

// memberSK sorts like the listing: newest first read backwards, then by
// code (linkstore.Cursor.Before). Thirteen digits hold epoch milliseconds
// until the year 2286.
func memberSK(createdMillis int64, code string) string {
	return fmt.Sprintf("%013d#%s", createdMillis, code)
}

func parseMemberSK(sk string) (int64, string, bool) {
	ms, code, ok := strings.Cut(sk, "#")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	return n, code, err == nil
}

func (s *LinkStore) tagsOn() bool { return s.cfg.TagsTable != "" }

// tagOps are the writes that move code's membership from the tags in
// remove to those in add, with the counters, and rewrite the copies of
// the tags it keeps; item is the link item the copies hold (nil when
// nothing is added or kept).
func (s *LinkStore) tagOps(owner, code string, created time.Time, add, remove, keep []string,
	item map[string]types.AttributeValue) []types.TransactWriteItem {
	var ops []types.TransactWriteItem
	sk := memberSK(created.UnixMilli(), code)
	counter := func(tag string, delta int64) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{
			TableName:                 &s.cfg.TagsTable,
			Key:                       map[string]types.AttributeValue{tableschema.AttrTagPK: str(counterPK(owner)), tableschema.AttrSK: str(tag)},
			UpdateExpression:          aws.String("ADD " + tableschema.AttrTagCount + " :d"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(delta)},
		}}
	}
	for _, t := range remove {
		ops = append(ops, types.TransactWriteItem{Delete: &types.Delete{
			TableName: &s.cfg.TagsTable,
			Key:       map[string]types.AttributeValue{tableschema.AttrTagPK: str(memberPK(owner, t)), tableschema.AttrSK: str(sk)},
		}}, counter(t, -1))
	}
	member := func(tag string) types.TransactWriteItem {
		m := make(map[string]types.AttributeValue, len(item)+2)
		maps.Copy(m, item)
		m[tableschema.AttrTagPK], m[tableschema.AttrSK] = str(memberPK(owner, tag)), str(sk)
		return types.TransactWriteItem{Put: &types.Put{TableName: &s.cfg.TagsTable, Item: m}}
	}
	for _, t := range add {
		ops = append(ops, member(t), counter(t, 1))
	}
	for _, t := range keep {
		ops = append(ops, member(t))
	}
	return ops
}

// tagDiff is what moves from old to next: the tags only next has, those
// only old has, and those both have.
func tagDiff(old, next []string) (add, remove, keep []string) {
	for _, t := range next {
		if !slices.Contains(old, t) {
			add = append(add, t)
		} else {
			keep = append(keep, t)
		}
	}
	for _, t := range old {
		if !slices.Contains(next, t) {
			remove = append(remove, t)
		}
	}
	return add, remove, keep
}

// createTagged is Create for a link with tags: the link, the idempotency
// record when there is one, and the link's membership and counters, in
// one transaction (at most 1 + 1 + 2*link.MaxTags = 42 of the 100 items a
// transaction may hold).
func (s *LinkStore) createTagged(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	item := marshalLink(l, s.cfg.PurgeDelay)
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName:           &s.cfg.LinksTable,
		Item:                item,
		ConditionExpression: aws.String(codeIsFree),
	}}}
	if idem != nil {
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName: &s.cfg.IdempotencyTable,
			Item: map[string]types.AttributeValue{
				tableschema.AttrIdemPK:       str(idemPK(idem.Owner, idem.Key)),
				tableschema.AttrIdemHash:     str(idem.RequestHash),
				tableschema.AttrCode:         str(idem.Code),
				tableschema.AttrIdemResponse: &types.AttributeValueMemberB{Value: idem.Response},
				tableschema.AttrExpiresAt:    num(idem.ExpiresAt.Unix()),
			},
			ConditionExpression:       aws.String(idemIsFree),
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": num(s.cfg.Now().Unix())},
		}})
	}
	items = append(items, s.tagOps(l.Owner, l.Code, l.CreatedAt, l.Tags, nil, nil, item)...)
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		reasons := tce.CancellationReasons
		if idem != nil && len(reasons) > 1 && aws.ToString(reasons[1].Code) == "ConditionalCheckFailed" {
			return &linkstore.ConflictError{Taken: linkstore.TakenIdempotencyKey, Code: l.Code}
		}
		if len(reasons) >= 1 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
			return &linkstore.ConflictError{Taken: linkstore.TakenCode, Code: l.Code}
		}
	}
	return wrapCode("create link", l.Code, err)
}

// rewriteAttempts bounds how often a tagged rewrite reads again after
// another writer changed the link between its read and its transaction.
const rewriteAttempts = 3

// rewriteTagged replaces owner's live link at code, moving its tag
// membership in the same transaction. It reads the stored link first
// (strongly consistent: which tags to move depends on it), asks decide
// what to do with it, and writes conditioned on the version it read, so
// the membership moved is the stored link's. decide returns the item to
// put with the tags it carries, or skip to write nothing (nil error).
func (s *LinkStore) rewriteTagged(ctx context.Context, op, code, owner string,
	decide func(old link.Link) (item map[string]types.AttributeValue, tags []string, skip bool, err error)) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	for range rewriteAttempts {
		raw, err := getItem(ctx, s.db, 0, &dynamodb.GetItemInput{
			TableName: &s.cfg.LinksTable, Key: map[string]types.AttributeValue{tableschema.AttrCode: str(code)}, ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return wrapCode(op, code, err)
		}
		if raw == nil {
			return fmt.Errorf("%s %q: %w", op, code, link.ErrNotFound)
		}
		old, err := unmarshalLink(raw)
		if err != nil || old.Owner != owner || old.Status == link.StatusTombstone {
			return fmt.Errorf("%s %q: %w", op, code, link.ErrNotFound)
		}
		item, tags, skip, err := decide(old)
		if err != nil || skip {
			return err
		}
		add, remove, keep := tagDiff(old.Tags, tags)
		cond := aws.String(ownedCondition(old.Version))
		values := ownedValues(owner, old.Version)
		if len(add)+len(remove)+len(keep) == 0 {
			// No tags before or after: one conditional put, at half a
			// transaction's price.
			_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.cfg.LinksTable, Item: item,
				ConditionExpression: cond, ExpressionAttributeNames: linkNames, ExpressionAttributeValues: values})
			if conditionFailed(err) {
				continue
			}
			return wrapCode(op, code, err)
		}
		items := append([]types.TransactWriteItem{{Put: &types.Put{TableName: &s.cfg.LinksTable, Item: item,
			ConditionExpression: cond, ExpressionAttributeNames: linkNames, ExpressionAttributeValues: values}}},
			s.tagOps(owner, code, old.CreatedAt, add, remove, keep, item)...)
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if firstConditionFailed(err) {
			continue // changed since the read: read again
		}
		return wrapCode(op, code, err)
	}
	return fmt.Errorf("%s %q: changed by others %d times in a row: %w", op, code, rewriteAttempts, link.ErrUnavailable)
}

// firstConditionFailed reports whether err is a transaction canceled
// because its first item's condition failed.
func firstConditionFailed(err error) bool {
	var tce *types.TransactionCanceledException
	return errors.As(err, &tce) && len(tce.CancellationReasons) > 0 &&
		aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed"
}

// updateTagged is Update with the tags table.
func (s *LinkStore) updateTagged(ctx context.Context, l link.Link, expect int64) error {
	return s.rewriteTagged(ctx, "update link", l.Code, l.Owner, func(old link.Link) (map[string]types.AttributeValue, []string, bool, error) {
		if expect != 0 && old.Version != expect {
			return nil, nil, false, fmt.Errorf("update link %q: version is %d: %w", l.Code, old.Version, link.ErrPrecondition)
		}
		return marshalLink(l, s.cfg.PurgeDelay), l.Tags, false, nil
	})
}

// supersedeTagged is Supersede with the tags table.
func (s *LinkStore) supersedeTagged(ctx context.Context, l link.Link) error {
	return s.rewriteTagged(ctx, "supersede link", l.Code, l.Owner, func(old link.Link) (map[string]types.AttributeValue, []string, bool, error) {
		if old.Version >= l.Version {
			return nil, nil, true, nil // a newer version is stored already
		}
		return marshalLink(l, s.cfg.PurgeDelay), l.Tags, false, nil
	})
}

// deleteTagged is Delete with the tags table: the tombstone carries no
// tags, so every membership of the link goes.
func (s *LinkStore) deleteTagged(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error {
	return s.rewriteTagged(ctx, "delete link", code, owner, func(old link.Link) (map[string]types.AttributeValue, []string, bool, error) {
		if expect != 0 && old.Version != expect {
			return nil, nil, false, fmt.Errorf("delete link %q: version is %d: %w", code, old.Version, link.ErrPrecondition)
		}
		return marshalTombstone(t), nil, false, nil
	})
}

// tombstoneTagged is Tombstone for an expired link that carries tags: the
// in-place tombstone and the removal of its membership in one
// transaction, conditioned as Tombstone's own write and on the version
// read. handled is false when the stored item is not such a link, for
// Tombstone's own write to decide.
func (s *LinkStore) tombstoneTagged(ctx context.Context, t link.Tombstone) (written, handled bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	for range rewriteAttempts {
		raw, err := getItem(ctx, s.db, 0, &dynamodb.GetItemInput{
			TableName: &s.cfg.LinksTable, Key: map[string]types.AttributeValue{tableschema.AttrCode: str(t.Code)}, ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return false, true, wrapCode("write tombstone", t.Code, err)
		}
		if raw == nil {
			return false, false, nil
		}
		old, err := unmarshalLink(raw)
		if err != nil || old.Status == link.StatusTombstone || len(old.Tags) == 0 {
			return false, false, nil
		}
		now := s.cfg.Now()
		if now.Before(old.ExpiresAt) {
			return false, true, nil // live: never tombstoned
		}
		update, attrNames, values := tombstoneUpdate(t)
		attrNames["#status"] = tableschema.AttrStatus
		values[":tomb"] = str(string(link.StatusTombstone))
		values[":now"] = num(now.Unix())
		values[":v"] = num(old.Version)
		items := append([]types.TransactWriteItem{{Update: &types.Update{
			TableName:                 &s.cfg.LinksTable,
			Key:                       map[string]types.AttributeValue{tableschema.AttrCode: str(t.Code)},
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String("#status <> :tomb AND " + tableschema.AttrExpiresAt + " <= :now AND " + tableschema.AttrVersion + " = :v"),
			ExpressionAttributeNames:  attrNames,
			ExpressionAttributeValues: values,
		}}}, s.tagOps(old.Owner, old.Code, old.CreatedAt, nil, old.Tags, nil, nil)...)
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if firstConditionFailed(err) {
			continue
		}
		if err != nil {
			return false, true, wrapCode("write tombstone", t.Code, err)
		}
		return true, true, nil
	}
	return false, true, fmt.Errorf("write tombstone %q: changed by others %d times in a row: %w", t.Code, rewriteAttempts, link.ErrUnavailable)
}

// ListTagged implements linkstore.Tagged: each tag's membership copies are
// read newest first from the cursor's position (one Query per tag, a page
// and one more each) and merged, a link that has two of the tags once.
// The partitions name the owner, so no other owner's link is read.
func (s *LinkStore) ListTagged(ctx context.Context, owner string, tags []string, limit int, cursor string) ([]link.Link, string, error) {
	after, err := linkstore.DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if !s.tagsOn() {
		return nil, "", fmt.Errorf("list tagged links: no tags table: %w", link.ErrUnavailable)
	}
	if limit <= 0 || limit > linkstore.MaxPage {
		limit = linkstore.MaxPage
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	type entry struct {
		sk string
		l  link.Link
	}
	var entries []entry
	for _, tag := range tags {
		in := &dynamodb.QueryInput{
			TableName:                 &s.cfg.TagsTable,
			KeyConditionExpression:    aws.String(tableschema.AttrTagPK + " = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(memberPK(owner, tag))},
			ScanIndexForward:          aws.Bool(false),
			Limit:                     aws.Int32(int32(limit + 1)),
		}
		if after != nil {
			in.KeyConditionExpression = aws.String(tableschema.AttrTagPK + " = :pk AND " + tableschema.AttrSK + " < :pos")
			in.ExpressionAttributeValues[":pos"] = str(memberSK(after.CreatedAt, after.Code))
		}
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, "", wrapCode("list links tagged", tag, err)
		}
		for _, item := range out.Items {
			sk, err := getS(item, tableschema.AttrSK, nil)
			if err != nil {
				return nil, "", fmt.Errorf("decode tag membership: %w", err)
			}
			l, err := unmarshalLink(item)
			if err != nil {
				return nil, "", fmt.Errorf("decode tag membership %q: %w", sk, err)
			}
			entries = append(entries, entry{sk: sk, l: l})
		}
	}
	if len(tags) > 1 {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].sk > entries[j].sk })
		entries = slices.CompactFunc(entries, func(a, b entry) bool { return a.sk == b.sk })
	}
	more := len(entries) > limit
	if more {
		entries = entries[:limit]
	}
	links := make([]link.Link, 0, len(entries))
	for _, e := range entries {
		if e.l.Owner == owner && e.l.Status != link.StatusTombstone {
			links = append(links, linkstore.Listed(e.l))
		}
	}
	if !more {
		return links, "", nil
	}
	ms, code, _ := parseMemberSK(entries[len(entries)-1].sk)
	return links, linkstore.EncodeCursor(link.Link{Code: code, CreatedAt: time.UnixMilli(ms)}), nil
}

// MaxTagCounts bounds how many of an owner's tags TagCounts reads.
const MaxTagCounts = 1000

// TagCounts implements linkstore.Tagged: one Query of the owner's counter
// items, in tag order; a tag no link carries any more (its count down to
// zero) is left out.
func (s *LinkStore) TagCounts(ctx context.Context, owner string) ([]linkstore.TagCount, error) {
	if !s.tagsOn() {
		return nil, fmt.Errorf("count tags: no tags table: %w", link.ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	out := []linkstore.TagCount{}
	in := &dynamodb.QueryInput{
		TableName:                 &s.cfg.TagsTable,
		KeyConditionExpression:    aws.String(tableschema.AttrTagPK + " = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(counterPK(owner))},
	}
	for read := 0; read < MaxTagCounts; {
		in.Limit = aws.Int32(int32(MaxTagCounts - read))
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, wrapCode("count tags of", owner, err)
		}
		for _, item := range page.Items {
			read++
			tag, err := getS(item, tableschema.AttrSK, nil)
			n, err := getN(item, tableschema.AttrTagCount, err)
			if err != nil {
				return nil, fmt.Errorf("decode tag counter: %w", err)
			}
			if n > 0 {
				out = append(out, linkstore.TagCount{Tag: tag, Links: n})
			}
		}
		if page.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, nil
}

// describeAPI is the call that tells whether an index is ready; the
// store asks it of its client when the client has it.
type describeAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// IndexCheckInterval is how long the store trusts what it learnt of the
// by-owner-all index.
const IndexCheckInterval = time.Minute

// listIndex is the index List reads: by-owner-all once DynamoDB reports it
// ACTIVE and done backfilling (added to a deployed table, it is CREATING
// while DynamoDB fills it from the items already there, and a Query of it
// is refused or incomplete until then:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html),
// by-owner before. full reports whether the entries carry every attribute.
func (s *LinkStore) listIndex(ctx context.Context) (name string, full bool) {
	if s.cfg.OwnerIndex != "" {
		return s.cfg.OwnerIndex, s.cfg.OwnerIndex == tableschema.IndexByOwnerAll
	}
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	now := s.cfg.Now()
	if !s.idx.checked.IsZero() && now.Sub(s.idx.checked) < IndexCheckInterval {
		return s.idx.name()
	}
	s.idx.checked, s.idx.ready = now, false
	d, ok := s.db.(describeAPI)
	if !ok {
		return s.idx.name()
	}
	out, err := d.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.cfg.LinksTable})
	if err != nil || out.Table == nil {
		// The old index always answers; ask again after the interval.
		return s.idx.name()
	}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == tableschema.IndexByOwnerAll {
			s.idx.ready = g.IndexStatus == types.IndexStatusActive && !aws.ToBool(g.Backfilling)
		}
	}
	return s.idx.name()
}

// indexState is what the store learnt of the by-owner-all index, and when.
type indexState struct {
	mu      sync.Mutex
	checked time.Time
	ready   bool
}

func (i *indexState) name() (string, bool) {
	if i.ready {
		return tableschema.IndexByOwnerAll, true
	}
	return tableschema.IndexByOwner, false
}
