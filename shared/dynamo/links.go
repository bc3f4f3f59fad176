package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// LinkConfig names the tables and bounds every call.
type LinkConfig struct {
	LinksTable       string
	IdempotencyTable string
	// Timeout bounds each call, retries included; 2 s when zero.
	Timeout time.Duration
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
	// ConsistentReads makes Get strongly consistent. The management API
	// reads before a conditional write and sets it, so a change made a
	// moment ago is never read stale into a spurious 412; the redirect
	// path leaves it off (half the read cost).
	ConsistentReads bool
	// Audit, when set, is the audit log a create's transaction writes the
	// entry its context carries into (audit.WithPending): the entry
	// commits with the link or not at all.
	Audit *AuditStore
	// PurgeDelay is how long after a link's expiry its TTL attribute lies
	// (DefaultPurgeDelay when zero; negative: at the expiry itself, for
	// tests of the TTL backstop).
	PurgeDelay time.Duration
	// TagsTable is the tags table (tableschema.LinkTags). With it, every
	// write of a link with tags moves its membership in the same
	// transaction, and ListTagged and TagCounts answer; without it, tags
	// are kept on the link only.
	TagsTable string
	// OwnerIndex, when set, is the index List reads (by-owner or
	// by-owner-all), without asking DynamoDB which is ready.
	OwnerIndex string
}

// LinkStore is the DynamoDB implementation of linkstore.Store.
type LinkStore struct {
	db  API
	cfg LinkConfig
	idx indexState
}

var _ linkstore.Store = (*LinkStore)(nil)

// NewLinkStore returns a store over db.
func NewLinkStore(db API, cfg LinkConfig) *LinkStore {
	SetDefault(&cfg.Timeout, 2*time.Second)
	SetDefaultNow(&cfg.Now)
	switch {
	case cfg.PurgeDelay == 0:
		cfg.PurgeDelay = DefaultPurgeDelay
	case cfg.PurgeDelay < 0:
		cfg.PurgeDelay = 0
	}
	return &LinkStore{db: db, cfg: cfg}
}

const codeIsFree = "attribute_not_exists(" + tableschema.AttrCode + ")"

// Create implements linkstore.Store. Without an idempotency record it is
// one conditional PutItem; with one, a two-item transaction so a link never
// exists without the record that makes its retry safe, nor the reverse.
func (s *LinkStore) Create(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if s.tagsOn() && len(l.Tags) > 0 {
		return s.createTagged(ctx, l, idem)
	}
	if idem == nil {
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:           &s.cfg.LinksTable,
			Item:                marshalLink(l, s.cfg.PurgeDelay),
			ConditionExpression: aws.String(codeIsFree),
		})
		if conditionFailed(err) {
			return &linkstore.ConflictError{Taken: linkstore.TakenCode, Code: l.Code}
		}
		return wrapCode("create link", l.Code, err)
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:           &s.cfg.LinksTable,
			Item:                marshalLink(l, s.cfg.PurgeDelay),
			ConditionExpression: aws.String(codeIsFree),
		}},
		{Put: &types.Put{
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
		}},
	}
	// The change's audit entry, if it carries one, commits with it.
	pending := takeAudit(ctx, s.cfg.Audit, &items)
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	settleAudit(pending, err)
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		// Reasons come back in the order of TransactItems.
		reasons := tce.CancellationReasons
		if len(reasons) >= 2 && aws.ToString(reasons[1].Code) == "ConditionalCheckFailed" {
			return &linkstore.ConflictError{Taken: linkstore.TakenIdempotencyKey, Code: l.Code}
		}
		if len(reasons) >= 1 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
			return &linkstore.ConflictError{Taken: linkstore.TakenCode, Code: l.Code}
		}
	}
	return wrapCode("create link", l.Code, err)
}

// Get implements linkstore.Store, eventually consistent unless the store
// was configured otherwise: half a read unit, and the redirect path
// tolerates a moment of replication lag.
func (s *LinkStore) Get(ctx context.Context, code string) (link.Link, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName:      &s.cfg.LinksTable,
		Key:            map[string]types.AttributeValue{tableschema.AttrCode: str(code)},
		ConsistentRead: aws.Bool(s.cfg.ConsistentReads),
	})
	if err != nil {
		return link.Link{}, wrapCode("get link", code, err)
	}
	if item == nil {
		return link.Link{}, fmt.Errorf("get link %q: %w", code, link.ErrNotFound)
	}
	return unmarshalLink(item)
}

// GetIdempotency implements linkstore.Store. The read is strongly
// consistent: a retry that arrives right after the first request must see it.
func (s *LinkStore) GetIdempotency(ctx context.Context, owner, key string) (linkstore.Idempotency, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName:      &s.cfg.IdempotencyTable,
		Key:            map[string]types.AttributeValue{tableschema.AttrIdemPK: str(idemPK(owner, key))},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return linkstore.Idempotency{}, wrapCode("get idempotency record", key, err)
	}
	if item == nil {
		return linkstore.Idempotency{}, fmt.Errorf("get idempotency record: %w", link.ErrNotFound)
	}
	return s.unmarshalIdempotency(owner, key, item)
}

// unmarshalIdempotency decodes a record; an expired one, which TTL has not
// removed yet, is link.ErrNotFound.
func (s *LinkStore) unmarshalIdempotency(owner, key string, item map[string]types.AttributeValue) (linkstore.Idempotency, error) {
	rec := linkstore.Idempotency{Owner: owner, Key: key}
	hash, err := getS(item, tableschema.AttrIdemHash, nil)
	expires, err := getN(item, tableschema.AttrExpiresAt, err)
	if err != nil {
		return linkstore.Idempotency{}, fmt.Errorf("decode idempotency record: %w", err)
	}
	if !s.cfg.Now().Before(time.Unix(expires, 0)) {
		return linkstore.Idempotency{}, fmt.Errorf("get idempotency record: %w", link.ErrNotFound)
	}
	rec.RequestHash = hash
	rec.Code, _ = getS(item, tableschema.AttrCode, nil) // a claim carries none yet
	if b, ok := item[tableschema.AttrIdemResponse].(*types.AttributeValueMemberB); ok {
		rec.Response = b.Value
	}
	rec.ExpiresAt = time.Unix(expires, 0).UTC()
	return rec, nil
}

// ClaimIdempotency implements linkstore.Store: one conditional put of a
// record without a code, which the same condition as Create's keeps from
// taking a key that is held; a failed condition returns the record that
// holds it, so telling a retry from another request costs no second read.
func (s *LinkStore) ClaimIdempotency(ctx context.Context, rec linkstore.Idempotency) (linkstore.Idempotency, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.IdempotencyTable,
		Item: map[string]types.AttributeValue{
			tableschema.AttrIdemPK:    str(idemPK(rec.Owner, rec.Key)),
			tableschema.AttrIdemHash:  str(rec.RequestHash),
			tableschema.AttrExpiresAt: num(rec.ExpiresAt.Unix()),
		},
		ConditionExpression:                 aws.String(idemIsFree),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": num(s.cfg.Now().Unix())},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, failed := ConditionFailed(err); failed {
		held, derr := s.unmarshalIdempotency(rec.Owner, rec.Key, old)
		if errors.Is(derr, link.ErrNotFound) {
			// It expired between the condition and now: a retry claims it.
			return linkstore.Idempotency{}, fmt.Errorf("claim idempotency key %q: the record holding it just expired: %w", rec.Key, link.ErrUnavailable)
		}
		if derr != nil {
			return linkstore.Idempotency{}, fmt.Errorf("claim idempotency key %q: read the record holding it: %w", rec.Key, derr)
		}
		return held, &linkstore.ConflictError{Taken: linkstore.TakenIdempotencyKey}
	}
	if err != nil {
		return linkstore.Idempotency{}, wrapCode("claim idempotency key", rec.Key, err)
	}
	rec.Code, rec.Response = "", nil
	return rec, nil
}

// idemIsFree holds for a key without a record or with an expired one: an
// expired record may linger until TTL removes it; it no longer holds the key.
const idemIsFree = "attribute_not_exists(" + tableschema.AttrIdemPK + ") OR " + tableschema.AttrExpiresAt + " <= :now"

// idemPK scopes a key to its owner, so two callers cannot see or collide
// with each other's keys. The length prefix keeps "a"+"b:c" apart from "a:b"+"c".
func idemPK(owner, key string) string {
	return strconv.Itoa(len(owner)) + ":" + owner + ":" + key
}

// wrapCode adds context and marks timeouts and throttling as retryable
// unavailability, which the API answers with 503.
func wrapCode(op, key string, err error) error {
	return Wrap(fmt.Sprintf("%s %q", op, key), err)
}
