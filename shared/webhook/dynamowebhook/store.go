// Package dynamowebhook keeps webhook subscriptions and their delivery
// attempts in one DynamoDB table, partitioned by owner: an owner's
// subscriptions are one Query (the fan-out of each event reads no other
// owner's items), and attempts sort by time under their subscription and
// expire through TTL.
package dynamowebhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/dynamoerr"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Attribute names, shared with infra/ and the local run.
const (
	AttrOwner = "owner_id" // partition key
	AttrSK    = "sk"       // sort key: "sub#<id>" or "dlv#<id>#<time>#<event>#<attempt>"
	// AttrExpiresAt is the TTL attribute (epoch seconds), on attempts only.
	AttrExpiresAt = "expires_at"

	attrURL       = "url"
	attrEvents    = "events"
	attrHumanOnly = "human_only"
	attrSecret    = "secret"
	attrCreatedAt = "created_at"
	attrDisabled  = "disabled"
	attrEvent     = "event"
	attrEventID   = "event_id"
	attrAttempt   = "attempt"
	attrStatus    = "status"
	attrCode      = "response_code"
	attrAt        = "at"
	attrNext      = "next_retry"
)

// ReadableAttributes are the attributes a reader that fans events out may
// read: every attribute of a subscription and of the version item but the
// signing secret. List and Version project onto them, and infra/webhooks
// conditions the grants of webhookstream and clicks on them
// (dynamodb:Attributes, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html),
// so only the webhooks API (which writes the secret) and the delivery
// function (Get, to sign) ever read a secret.
var ReadableAttributes = []string{AttrOwner, AttrSK, attrURL, attrEvents, attrHumanOnly, attrCreatedAt, attrDisabled, attrVersion}

// listProjection is the projection of List: a subscription without its
// secret, each name a placeholder (url is a reserved word).
var listProjection, listNames = func() (string, map[string]string) {
	names := map[string]string{}
	var expr []string
	for i, a := range []string{AttrOwner, AttrSK, attrURL, attrEvents, attrHumanOnly, attrCreatedAt, attrDisabled} {
		ph := "#p" + strconv.Itoa(i)
		names[ph] = a
		expr = append(expr, ph)
	}
	return strings.Join(expr, ", "), names
}()

const (
	subPrefix = "sub#"
	dlvPrefix = "dlv#"
)

// The version item counts every change of any subscription (create,
// delete, disable), written in the same transaction as the change, so a
// reader that caches owners' subscriptions (webhook.SubscriptionCache)
// knows with one small strongly consistent read whether anything it holds
// may be stale. Its partition key has a space, which no owner ID has
// (apikey.CheckOwner), so it is no owner's item and no owner's Query
// reads it.
const (
	// VersionOwner is the version item's partition key, exported so the
	// fan-out functions' grant (infra/webhooks) can name the one item
	// they may GetItem.
	VersionOwner = versionOwner
	versionOwner = " subscriptions"
	versionSK    = "version"
	attrVersion  = "v"
)

// bump is the version item's update, one action of a change's transaction.
func (st *Store) bump() types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &st.cfg.Table,
		Key:                       itemKey(versionOwner, versionSK),
		UpdateExpression:          aws.String("ADD #v :one"),
		ExpressionAttributeNames:  map[string]string{"#v": attrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)},
	}}
}

// change writes one subscription change and the version's bump at once.
// The change's own condition failing answers missing (its error).
func (st *Store) change(ctx context.Context, op string, item types.TransactWriteItem, missing error) error {
	_, err := st.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{item, st.bump()},
	})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) && len(canceled.CancellationReasons) > 0 &&
		aws.ToString(canceled.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return fmt.Errorf("%s: %w", op, missing)
	}
	if err != nil {
		return wrap(op, err)
	}
	return nil
}

// Version implements webhook.Store: the count of subscription changes,
// read strongly consistent (one read unit: the item is a few bytes).
func (st *Store) Version(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	out, err := st.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &st.cfg.Table,
		Key: itemKey(versionOwner, versionSK), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": attrVersion}})
	if err != nil {
		return 0, wrap("subscriptions version", err)
	}
	return num(out.Item, attrVersion), nil
}

// API lists the DynamoDB calls the store makes.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Config names the table and bounds every call.
type Config struct {
	Table string
	// Timeout bounds each call; 2 s when zero.
	Timeout time.Duration
}

// Store is the DynamoDB webhook.Store.
type Store struct {
	db  API
	cfg Config
}

var _ webhook.Store = (*Store)(nil)

// New returns a store over db.
func New(db API, cfg Config) *Store {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	return &Store{db: db, cfg: cfg}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func itemKey(owner, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrOwner: s(owner), AttrSK: s(sk)}
}

// wrap maps an SDK error to the domain's vocabulary.
func wrap(op string, err error) error {
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		return fmt.Errorf("%s: %w", op, link.ErrNotFound)
	case dynamoerr.Unavailable(err):
		return fmt.Errorf("%s: %w: %w", op, link.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Create implements webhook.Store, bumping the version in the same
// transaction. The cap on subscriptions is checked by a count first: two
// creates racing past it leave one too many, which is harmless.
func (st *Store) Create(ctx context.Context, sub webhook.Subscription) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	out, err := st.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &st.cfg.Table,
		KeyConditionExpression:    aws.String("#o = :o AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#o": AttrOwner, "#sk": AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": s(sub.Owner), ":p": s(subPrefix)},
		Select:                    types.SelectCount,
	})
	if err != nil {
		return wrap("count subscriptions", err)
	}
	if out.Count >= webhook.MaxSubscriptions {
		return fmt.Errorf("create subscription: %w", link.ErrConflict)
	}
	item := itemKey(sub.Owner, subPrefix+sub.ID)
	item[attrURL] = s(sub.URL)
	item[attrEvents] = &types.AttributeValueMemberSS{Value: sub.Events}
	item[attrHumanOnly] = &types.AttributeValueMemberBOOL{Value: sub.HumanOnly}
	item[attrSecret] = s(sub.Secret)
	item[attrCreatedAt] = n(sub.CreatedAt.UnixMilli())
	return st.change(ctx, "create subscription "+sub.ID, types.TransactWriteItem{Put: &types.Put{
		TableName: &st.cfg.Table, Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#sk)"),
		ExpressionAttributeNames: map[string]string{"#sk": AttrSK},
	}}, link.ErrConflict)
}

// List implements webhook.Store, strongly consistent so a subscription
// created a moment ago receives the next event. It reads no secret: the
// projection names ReadableAttributes only, with Select
// SPECIFIC_ATTRIBUTES, which is what the fan-out functions' IAM condition
// requires.
func (st *Store) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	var subs []webhook.Subscription
	names := maps.Clone(listNames)
	names["#o"], names["#sk"] = AttrOwner, AttrSK
	in := &dynamodb.QueryInput{
		TableName:                 &st.cfg.Table,
		KeyConditionExpression:    aws.String("#o = :o AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": s(owner), ":p": s(subPrefix)},
		ConsistentRead:            aws.Bool(true),
		Select:                    types.SelectSpecificAttributes,
		ProjectionExpression:      aws.String(listProjection),
	}
	for {
		out, err := st.db.Query(ctx, in)
		if err != nil {
			return nil, wrap("list subscriptions", err)
		}
		for _, it := range out.Items {
			sub, err := unmarshalSub(it)
			if err != nil {
				return nil, err
			}
			sub.Secret = "" // never passed on, even from a table that ignored the projection
			subs = append(subs, sub)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return subs, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Get implements webhook.Store.
func (st *Store) Get(ctx context.Context, owner, id string) (webhook.Subscription, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	out, err := st.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &st.cfg.Table, Key: itemKey(owner, subPrefix+id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return webhook.Subscription{}, wrap("get subscription", err)
	}
	if out.Item == nil {
		return webhook.Subscription{}, fmt.Errorf("subscription %s: %w", id, link.ErrNotFound)
	}
	return unmarshalSub(out.Item)
}

// Delete implements webhook.Store, bumping the version in the same
// transaction.
func (st *Store) Delete(ctx context.Context, owner, id string) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	return st.change(ctx, "delete subscription "+id, types.TransactWriteItem{Delete: &types.Delete{
		TableName: &st.cfg.Table, Key: itemKey(owner, subPrefix+id),
		ConditionExpression:      aws.String("attribute_exists(#sk)"),
		ExpressionAttributeNames: map[string]string{"#sk": AttrSK},
	}}, link.ErrNotFound)
}

// Disable implements webhook.Store, bumping the version in the same
// transaction.
func (st *Store) Disable(ctx context.Context, owner, id string) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	return st.change(ctx, "disable subscription "+id, types.TransactWriteItem{Update: &types.Update{
		TableName: &st.cfg.Table, Key: itemKey(owner, subPrefix+id),
		UpdateExpression:          aws.String("SET #d = :t"),
		ConditionExpression:       aws.String("attribute_exists(#sk)"),
		ExpressionAttributeNames:  map[string]string{"#sk": AttrSK, "#d": attrDisabled},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}},
	}}, link.ErrNotFound)
}

// Record implements webhook.Store.
func (st *Store) Record(ctx context.Context, owner string, d webhook.Delivery) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	// Zero-padded milliseconds sort as numbers do.
	sk := fmt.Sprintf("%s%s#%015d#%s#%d", dlvPrefix, d.Subscription, d.At.UnixMilli(), d.EventID, d.Attempt)
	item := itemKey(owner, sk)
	item[attrEvent] = s(d.Event)
	item[attrEventID] = s(d.EventID)
	item[attrAttempt] = n(int64(d.Attempt))
	item[attrStatus] = s(d.Status)
	item[attrCode] = n(int64(d.ResponseCode))
	item[attrAt] = n(d.At.UnixMilli())
	if !d.NextRetry.IsZero() {
		item[attrNext] = n(d.NextRetry.UnixMilli())
	}
	item[AttrExpiresAt] = n(d.At.Add(webhook.DeliveryRetention).Unix())
	if _, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.cfg.Table, Item: item}); err != nil {
		return wrap("record delivery", err)
	}
	return nil
}

// Deliveries implements webhook.Store.
func (st *Store) Deliveries(ctx context.Context, owner, id string, limit int) ([]webhook.Delivery, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	out, err := st.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &st.cfg.Table,
		KeyConditionExpression:    aws.String("#o = :o AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#o": AttrOwner, "#sk": AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": s(owner), ":p": s(dlvPrefix + id + "#")},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, wrap("list deliveries", err)
	}
	ds := make([]webhook.Delivery, 0, len(out.Items))
	for _, it := range out.Items {
		d := webhook.Delivery{Subscription: id}
		d.Event = str(it, attrEvent)
		d.EventID = str(it, attrEventID)
		d.Status = str(it, attrStatus)
		d.Attempt = int(num(it, attrAttempt))
		d.ResponseCode = int(num(it, attrCode))
		d.At = time.UnixMilli(num(it, attrAt)).UTC()
		if v := num(it, attrNext); v != 0 {
			d.NextRetry = time.UnixMilli(v).UTC()
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func str(it map[string]types.AttributeValue, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func num(it map[string]types.AttributeValue, name string) int64 {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		i, _ := strconv.ParseInt(v.Value, 10, 64)
		return i
	}
	return 0
}

func unmarshalSub(it map[string]types.AttributeValue) (webhook.Subscription, error) {
	sk := str(it, AttrSK)
	if len(sk) <= len(subPrefix) {
		return webhook.Subscription{}, fmt.Errorf("decode subscription: sort key %q", sk)
	}
	sub := webhook.Subscription{
		ID: sk[len(subPrefix):], Owner: str(it, AttrOwner), URL: str(it, attrURL),
		Secret: str(it, attrSecret), CreatedAt: time.UnixMilli(num(it, attrCreatedAt)).UTC(),
	}
	if v, ok := it[attrEvents].(*types.AttributeValueMemberSS); ok {
		sub.Events = v.Value
		webhook.SortEvents(sub.Events)
	}
	if v, ok := it[attrHumanOnly].(*types.AttributeValueMemberBOOL); ok {
		sub.HumanOnly = v.Value
	}
	if v, ok := it[attrDisabled].(*types.AttributeValueMemberBOOL); ok {
		sub.Disabled = v.Value
	}
	return sub, nil
}
