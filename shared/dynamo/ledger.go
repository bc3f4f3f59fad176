package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// LedgerConfig names the reservation table and bounds every call.
type LedgerConfig struct {
	Table string
	// Timeout bounds each call, retries included; 2 s when zero. An MRSC
	// write waits for another Region, so it is a cross-Region round trip
	// slower than a single-Region one.
	Timeout time.Duration
	// Now reads the clock (claims' expiry); time.Now when nil.
	Now func() time.Time
}

// Ledger is the DynamoDB implementation of linkstore.Ledger over the
// reservation table (tableschema.Reservations). Every read is strongly
// consistent: on an MRSC table that sees the latest write in every Region.
type Ledger struct {
	db  ItemAPI
	cfg LedgerConfig
}

var _ linkstore.Ledger = (*Ledger)(nil)

// NewLedger returns a ledger over db.
func NewLedger(db ItemAPI, cfg LedgerConfig) *Ledger {
	SetDefault(&cfg.Timeout, 2*time.Second)
	SetDefaultNow(&cfg.Now)
	return &Ledger{db: db, cfg: cfg}
}

const (
	statePending = "pending"
	stateLive    = "live"
	stateDeleted = "deleted"
	stateDone    = "done"
)

var ledgerNames = map[string]string{"#st": tableschema.AttrResState, "#tok": tableschema.AttrResToken}

func resKey(code string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrResPK: str("code#" + code)}
}

func claimKey(owner, key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrResPK: str("idem#" + idemPK(owner, key))}
}

// Reserve implements linkstore.Ledger.
func (l *Ledger) Reserve(ctx context.Context, r linkstore.Reservation) (linkstore.Reservation, error) {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	item := resKey(r.Code)
	item[tableschema.AttrOwner] = str(r.Owner)
	item[tableschema.AttrVersion] = num(r.Version)
	item[tableschema.AttrCreatedAt] = num(r.ReservedAt.UnixMilli())
	item[tableschema.AttrUpdatedAt] = num(r.UpdatedAt.UnixMilli())
	item[tableschema.AttrResState] = str(stateLive)
	if r.Pending {
		item[tableschema.AttrResState] = str(statePending)
		item[tableschema.AttrResToken] = str(r.Token)
	}
	if r.Claim != "" {
		item[tableschema.AttrResClaim] = str(r.Claim)
	}
	_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &l.cfg.Table,
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_not_exists(" + tableschema.AttrResPK + ")"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, failed := ConditionFailed(err); failed {
		held, derr := unmarshalReservation(r.Code, old)
		if derr != nil {
			return linkstore.Reservation{}, derr
		}
		return held, &linkstore.ConflictError{Taken: linkstore.TakenCode, Code: r.Code}
	}
	if err != nil {
		return linkstore.Reservation{}, wrapCode("reserve code", r.Code, err)
	}
	return r, nil
}

// GetReservation implements linkstore.Ledger.
func (l *Ledger) GetReservation(ctx context.Context, code string) (linkstore.Reservation, error) {
	item, err := getItem(ctx, l.db, l.cfg.Timeout, &dynamodb.GetItemInput{TableName: &l.cfg.Table, Key: resKey(code), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return linkstore.Reservation{}, wrapCode("get reservation", code, err)
	}
	if item == nil {
		return linkstore.Reservation{}, fmt.Errorf("reservation %q: %w", code, link.ErrNotFound)
	}
	return unmarshalReservation(code, item)
}

func unmarshalReservation(code string, item map[string]types.AttributeValue) (linkstore.Reservation, error) {
	r := linkstore.Reservation{Code: code}
	owner, err := getS(item, tableschema.AttrOwner, nil)
	state, err := getS(item, tableschema.AttrResState, err)
	version, err := getN(item, tableschema.AttrVersion, err)
	reserved, err := getN(item, tableschema.AttrCreatedAt, err)
	updated, err := getN(item, tableschema.AttrUpdatedAt, err)
	if err != nil {
		return r, fmt.Errorf("decode reservation %q: %w", code, err)
	}
	r.Owner, r.Version = owner, version
	r.Pending, r.Deleted = state == statePending, state == stateDeleted
	r.Token, _ = getS(item, tableschema.AttrResToken, nil)
	r.Claim, _ = getS(item, tableschema.AttrResClaim, nil)
	r.ReservedAt, r.UpdatedAt = time.UnixMilli(reserved).UTC(), time.UnixMilli(updated).UTC()
	return r, nil
}

// Confirm implements linkstore.Ledger.
func (l *Ledger) Confirm(ctx context.Context, code, token string) error {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &l.cfg.Table,
		Key:                      resKey(code),
		UpdateExpression:         aws.String("SET #st = :live REMOVE #tok"),
		ConditionExpression:      aws.String("#st = :pending AND #tok = :token"),
		ExpressionAttributeNames: ledgerNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":live": str(stateLive), ":pending": str(statePending), ":token": str(token),
		},
	})
	if conditionFailed(err) {
		return fmt.Errorf("confirm reservation %q: %w", code, link.ErrConflict)
	}
	return wrapCode("confirm reservation", code, err)
}

// Unreserve implements linkstore.Ledger.
func (l *Ledger) Unreserve(ctx context.Context, code, token string) (bool, error) {
	return l.deleteOwn(ctx, "give back reservation", code, resKey(code), token)
}

// deleteOwn deletes a pending entry held by token.
func (l *Ledger) deleteOwn(ctx context.Context, op, name string, key map[string]types.AttributeValue, token string) (bool, error) {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	_, err := l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &l.cfg.Table,
		Key:                       key,
		ConditionExpression:       aws.String("#st = :pending AND #tok = :token"),
		ExpressionAttributeNames:  ledgerNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{":pending": str(statePending), ":token": str(token)},
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrapCode(op, name, err)
	}
	return true, nil
}

// Advance implements linkstore.Ledger: one conditional UpdateItem, which
// on an MRSC table two Regions cannot both pass for one version.
func (l *Ledger) Advance(ctx context.Context, code, owner string, expect, next int64, deleted bool, now time.Time) (linkstore.Reservation, error) {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	cond := tableschema.AttrOwner + " = :owner AND #st = :live"
	values := map[string]types.AttributeValue{":owner": str(owner), ":live": str(stateLive), ":now": num(now.UnixMilli())}
	if expect != 0 {
		cond += " AND " + tableschema.AttrVersion + " = :expect"
		values[":expect"] = num(expect)
	}
	update := "SET " + tableschema.AttrUpdatedAt + " = :now, "
	if next == 0 {
		update += tableschema.AttrVersion + " = " + tableschema.AttrVersion + " + :one"
		values[":one"] = num(1)
	} else {
		update += tableschema.AttrVersion + " = :next"
		values[":next"] = num(next)
	}
	if deleted {
		update += ", #st = :deleted"
		values[":deleted"] = str(stateDeleted)
	}
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &l.cfg.Table,
		Key:                                 resKey(code),
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            map[string]string{"#st": tableschema.AttrResState},
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, failed := ConditionFailed(err); failed {
		if old == nil {
			return linkstore.Reservation{}, fmt.Errorf("reservation %q: %w", code, link.ErrNotFound)
		}
		held, derr := unmarshalReservation(code, old)
		if derr != nil || held.Owner != owner || held.Pending || held.Deleted {
			return held, fmt.Errorf("reservation %q: %w", code, link.ErrNotFound)
		}
		return held, fmt.Errorf("reservation %q is at version %d, not %d: %w", code, held.Version, expect, link.ErrPrecondition)
	}
	if err != nil {
		return linkstore.Reservation{}, wrapCode("advance reservation", code, err)
	}
	return unmarshalReservation(code, out.Attributes)
}

// ReleaseReservation implements linkstore.Ledger.
func (l *Ledger) ReleaseReservation(ctx context.Context, code string, reservedBy time.Time) (bool, error) {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	_, err := l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &l.cfg.Table,
		Key:                       resKey(code),
		ConditionExpression:       aws.String("attribute_not_exists(" + tableschema.AttrResPK + ") OR " + tableschema.AttrCreatedAt + " <= :by"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":by": num(reservedBy.UnixMilli())},
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, wrapCode("release reservation", code, err)
	}
	return true, nil
}

// Claim implements linkstore.Ledger: one conditional put; a key held
// returns the claim holding it, so telling a retry from another request
// costs no second read.
func (l *Ledger) Claim(ctx context.Context, c linkstore.Claim) (linkstore.Claim, error) {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	item := claimKey(c.Owner, c.Key)
	item[tableschema.AttrIdemHash] = str(c.RequestHash)
	item[tableschema.AttrExpiresAt] = num(c.ExpiresAt.Unix())
	item[tableschema.AttrResState] = str(stateDone)
	if c.Code != "" {
		item[tableschema.AttrCode] = str(c.Code)
		if len(c.Response) > 0 { // DynamoDB refuses an empty binary
			item[tableschema.AttrIdemResponse] = &types.AttributeValueMemberB{Value: c.Response}
		}
		item[tableschema.AttrResLink] = &types.AttributeValueMemberM{Value: marshalLink(c.Link, 0)}
	}
	if c.Pending {
		item[tableschema.AttrResState] = str(statePending)
		item[tableschema.AttrResToken] = str(c.Token)
		item[tableschema.AttrResLease] = num(c.LeaseUntil.UnixMilli())
	}
	_, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &l.cfg.Table,
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_not_exists(" + tableschema.AttrResPK + ") OR " + tableschema.AttrExpiresAt + " <= :now"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": num(l.cfg.Now().Unix())},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, failed := ConditionFailed(err); failed {
		held, derr := l.unmarshalClaim(c.Owner, c.Key, old)
		if errors.Is(derr, link.ErrNotFound) {
			return linkstore.Claim{}, fmt.Errorf("claim idempotency key %q: the claim holding it just expired: %w", c.Key, link.ErrUnavailable)
		}
		if derr != nil {
			return linkstore.Claim{}, derr
		}
		return held, &linkstore.ConflictError{Taken: linkstore.TakenIdempotencyKey, Code: c.Code}
	}
	if err != nil {
		return linkstore.Claim{}, wrapCode("claim idempotency key", c.Key, err)
	}
	return c, nil
}

// GetClaim implements linkstore.Ledger.
func (l *Ledger) GetClaim(ctx context.Context, owner, key string) (linkstore.Claim, error) {
	item, err := getItem(ctx, l.db, l.cfg.Timeout, &dynamodb.GetItemInput{TableName: &l.cfg.Table, Key: claimKey(owner, key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return linkstore.Claim{}, wrapCode("get idempotency claim", key, err)
	}
	if item == nil {
		return linkstore.Claim{}, fmt.Errorf("get idempotency claim: %w", link.ErrNotFound)
	}
	return l.unmarshalClaim(owner, key, item)
}

// unmarshalClaim decodes a claim; an expired one, which no TTL removes on
// an MRSC table, is link.ErrNotFound.
func (l *Ledger) unmarshalClaim(owner, key string, item map[string]types.AttributeValue) (linkstore.Claim, error) {
	c := linkstore.Claim{Idempotency: linkstore.Idempotency{Owner: owner, Key: key}}
	hash, err := getS(item, tableschema.AttrIdemHash, nil)
	expires, err := getN(item, tableschema.AttrExpiresAt, err)
	state, err := getS(item, tableschema.AttrResState, err)
	if err != nil {
		return c, fmt.Errorf("decode idempotency claim: %w", err)
	}
	if !l.cfg.Now().Before(time.Unix(expires, 0)) {
		return linkstore.Claim{}, fmt.Errorf("get idempotency claim: %w", link.ErrNotFound)
	}
	c.RequestHash, c.ExpiresAt, c.Pending = hash, time.Unix(expires, 0).UTC(), state == statePending
	c.Code, _ = getS(item, tableschema.AttrCode, nil) // a batch's own key carries none
	if b, ok := item[tableschema.AttrIdemResponse].(*types.AttributeValueMemberB); ok {
		c.Response = b.Value
	}
	if m, ok := item[tableschema.AttrResLink].(*types.AttributeValueMemberM); ok {
		if c.Link, err = unmarshalLink(m.Value); err != nil {
			return c, fmt.Errorf("decode the link of idempotency claim: %w", err)
		}
	}
	c.Token, _ = getS(item, tableschema.AttrResToken, nil)
	if lease, err := getN(item, tableschema.AttrResLease, nil); err == nil {
		c.LeaseUntil = time.UnixMilli(lease).UTC()
	}
	return c, nil
}

// TakeOver implements linkstore.Ledger.
func (l *Ledger) TakeOver(ctx context.Context, owner, key, old, token string, leaseUntil time.Time) error {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &l.cfg.Table,
		Key:                      claimKey(owner, key),
		UpdateExpression:         aws.String("SET #tok = :token, " + tableschema.AttrResLease + " = :lease"),
		ConditionExpression:      aws.String("#st = :pending AND #tok = :old"),
		ExpressionAttributeNames: ledgerNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":token": str(token), ":lease": num(leaseUntil.UnixMilli()), ":pending": str(statePending), ":old": str(old),
		},
	})
	if conditionFailed(err) {
		return fmt.Errorf("take over idempotency claim: %w", link.ErrConflict)
	}
	return wrapCode("take over idempotency claim", key, err)
}

// Settle implements linkstore.Ledger.
func (l *Ledger) Settle(ctx context.Context, owner, key, token string) error {
	ctx, cancel := bound(ctx, l.cfg.Timeout)
	defer cancel()
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &l.cfg.Table,
		Key:                      claimKey(owner, key),
		UpdateExpression:         aws.String("SET #st = :done REMOVE #tok, " + tableschema.AttrResLease + ", " + tableschema.AttrResLink),
		ConditionExpression:      aws.String("#st = :pending AND #tok = :token"),
		ExpressionAttributeNames: ledgerNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":done": str(stateDone), ":pending": str(statePending), ":token": str(token),
		},
	})
	if conditionFailed(err) {
		return fmt.Errorf("settle idempotency claim: %w", link.ErrConflict)
	}
	return wrapCode("settle idempotency claim", key, err)
}

// DropClaim implements linkstore.Ledger.
func (l *Ledger) DropClaim(ctx context.Context, owner, key, token string) error {
	_, err := l.deleteOwn(ctx, "drop idempotency claim", key, claimKey(owner, key), token)
	return err
}
