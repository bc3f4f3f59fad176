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
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// listProjection is the projection of List: a subscription without its
// secret, each name a placeholder (url is a reserved word).
var listProjection, listNames = func() (string, map[string]string) {
	names := map[string]string{}
	var expr []string
	for i, a := range []string{tableschema.AttrOwner, tableschema.AttrSK, tableschema.AttrURL, tableschema.AttrEvents, tableschema.AttrHumanOnly, tableschema.AttrCreatedAt, tableschema.AttrDisabled} {
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

// The version item (tableschema.WebhookVersionOwner) counts every change
// of any subscription (create, delete, disable), written in the same
// transaction as the change, so a reader that caches owners'
// subscriptions (webhook.SubscriptionCache) knows with one small strongly
// consistent read whether anything it holds may be stale.
const versionSK = "version"

// bump is the version item's update, one action of a change's transaction.
func (st *Store) bump() types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &st.cfg.Table,
		Key:                       itemKey(tableschema.WebhookVersionOwner, versionSK),
		UpdateExpression:          aws.String("ADD #v :one"),
		ExpressionAttributeNames:  map[string]string{"#v": tableschema.AttrWebhookVersion},
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
		Key: itemKey(tableschema.WebhookVersionOwner, versionSK), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": tableschema.AttrWebhookVersion}})
	if err != nil {
		return 0, wrap("subscriptions version", err)
	}
	return num(out.Item, tableschema.AttrWebhookVersion), nil
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
	return map[string]types.AttributeValue{tableschema.AttrOwner: s(owner), tableschema.AttrSK: s(sk)}
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
		ExpressionAttributeNames:  map[string]string{"#o": tableschema.AttrOwner, "#sk": tableschema.AttrSK},
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
	item[tableschema.AttrURL] = s(sub.URL)
	item[tableschema.AttrEvents] = &types.AttributeValueMemberSS{Value: sub.Events}
	item[tableschema.AttrHumanOnly] = &types.AttributeValueMemberBOOL{Value: sub.HumanOnly}
	item[tableschema.AttrSecret] = s(sub.Secret)
	item[tableschema.AttrCreatedAt] = n(sub.CreatedAt.UnixMilli())
	return st.change(ctx, "create subscription "+sub.ID, types.TransactWriteItem{Put: &types.Put{
		TableName: &st.cfg.Table, Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#sk)"),
		ExpressionAttributeNames: map[string]string{"#sk": tableschema.AttrSK},
	}}, link.ErrConflict)
}

// List implements webhook.Store, strongly consistent so a subscription
// created a moment ago receives the next event. It reads no secret: the
// projection names tableschema.WebhookReadableAttributes only, with Select
// SPECIFIC_ATTRIBUTES, which is what the fan-out functions' IAM condition
// requires.
func (st *Store) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	var subs []webhook.Subscription
	names := maps.Clone(listNames)
	names["#o"], names["#sk"] = tableschema.AttrOwner, tableschema.AttrSK
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
		ExpressionAttributeNames: map[string]string{"#sk": tableschema.AttrSK},
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
		ExpressionAttributeNames:  map[string]string{"#sk": tableschema.AttrSK, "#d": tableschema.AttrDisabled},
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
	item[tableschema.AttrEvent] = s(d.Event)
	item[tableschema.AttrEventID] = s(d.EventID)
	item[tableschema.AttrAttempt] = n(int64(d.Attempt))
	item[tableschema.AttrStatus] = s(d.Status)
	item[tableschema.AttrResponseCode] = n(int64(d.ResponseCode))
	item[tableschema.AttrAt] = n(d.At.UnixMilli())
	if !d.NextRetry.IsZero() {
		item[tableschema.AttrNextRetry] = n(d.NextRetry.UnixMilli())
	}
	item[tableschema.AttrExpiresAt] = n(d.At.Add(webhook.DeliveryRetention).Unix())
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
		ExpressionAttributeNames:  map[string]string{"#o": tableschema.AttrOwner, "#sk": tableschema.AttrSK},
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
		d.Event = str(it, tableschema.AttrEvent)
		d.EventID = str(it, tableschema.AttrEventID)
		d.Status = str(it, tableschema.AttrStatus)
		d.Attempt = int(num(it, tableschema.AttrAttempt))
		d.ResponseCode = int(num(it, tableschema.AttrResponseCode))
		d.At = time.UnixMilli(num(it, tableschema.AttrAt)).UTC()
		if v := num(it, tableschema.AttrNextRetry); v != 0 {
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
	sk := str(it, tableschema.AttrSK)
	if len(sk) <= len(subPrefix) {
		return webhook.Subscription{}, fmt.Errorf("decode subscription: sort key %q", sk)
	}
	sub := webhook.Subscription{
		ID: sk[len(subPrefix):], Owner: str(it, tableschema.AttrOwner), URL: str(it, tableschema.AttrURL),
		Secret: str(it, tableschema.AttrSecret), CreatedAt: time.UnixMilli(num(it, tableschema.AttrCreatedAt)).UTC(),
	}
	if v, ok := it[tableschema.AttrEvents].(*types.AttributeValueMemberSS); ok {
		sub.Events = v.Value
		webhook.SortEvents(sub.Events)
	}
	if v, ok := it[tableschema.AttrHumanOnly].(*types.AttributeValueMemberBOOL); ok {
		sub.HumanOnly = v.Value
	}
	if v, ok := it[tableschema.AttrDisabled].(*types.AttributeValueMemberBOOL); ok {
		sub.Disabled = v.Value
	}
	return sub, nil
}
