package dynamo

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
func (st *WebhookStore) bump() types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &st.cfg.Table,
		Key:                       itemKey(tableschema.WebhookVersionOwner, versionSK),
		UpdateExpression:          aws.String("ADD #v :one"),
		ExpressionAttributeNames:  map[string]string{"#v": tableschema.AttrWebhookVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1)},
	}}
}

// change writes one subscription change and the version's bump at once.
// The change's own condition failing answers missing (its error).
func (st *WebhookStore) change(ctx context.Context, op string, item types.TransactWriteItem, missing error) error {
	items := []types.TransactWriteItem{item, st.bump()}
	// The change's audit entry, if it carries one, commits with it.
	pending := takeAudit(ctx, st.audit, &items)
	_, err := st.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	settleAudit(pending, err)
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) && len(canceled.CancellationReasons) > 0 &&
		aws.ToString(canceled.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return fmt.Errorf("%s: %w", op, missing)
	}
	if err != nil {
		return wrapHook(op, err)
	}
	return nil
}

// Version implements webhook.Store: the count of subscription changes,
// read strongly consistent (one read unit: the item is a few bytes).
func (st *WebhookStore) Version(ctx context.Context) (int64, error) {
	item, err := getItem(ctx, st.db, st.cfg.Timeout, &dynamodb.GetItemInput{TableName: &st.cfg.Table,
		Key: itemKey(tableschema.WebhookVersionOwner, versionSK), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": tableschema.AttrWebhookVersion}})
	if err != nil {
		return 0, wrapHook("subscriptions version", err)
	}
	return optN(item, tableschema.AttrWebhookVersion), nil
}

// WebhookStore is the DynamoDB webhook.Store.
type WebhookStore struct {
	db  API
	cfg Config
	// audit, when set, is the audit log each change's transaction writes
	// the entry its context carries into (Audited).
	audit *AuditStore
}

// Audited is st writing the audit entry a change's context carries
// (audit.WithPending) in the change's own transaction.
func (st *WebhookStore) Audited(log *AuditStore) *WebhookStore {
	c := *st
	c.audit = log
	return &c
}

var _ webhook.Store = (*WebhookStore)(nil)

// NewWebhookStore returns a store over db; cfg.Timeout is 2 s when zero.
func NewWebhookStore(db API, cfg Config) *WebhookStore {
	SetDefault(&cfg.Timeout, 2*time.Second)
	return &WebhookStore{db: db, cfg: cfg}
}

// prefixQuery is the Query of owner's items whose sort key starts with
// prefix: its subscriptions, or one subscription's delivery attempts.
func (st *WebhookStore) prefixQuery(owner, prefix string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 &st.cfg.Table,
		KeyConditionExpression:    aws.String("#o = :o AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#o": tableschema.AttrOwner, "#sk": tableschema.AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": str(owner), ":p": str(prefix)},
	}
}

func itemKey(owner, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrOwner: str(owner), tableschema.AttrSK: str(sk)}
}

// wrapHook maps an SDK error to the domain's vocabulary.
func wrapHook(op string, err error) error {
	switch {
	case conditionFailed(err):
		return fmt.Errorf("%s: %w", op, link.ErrNotFound)
	case Unavailable(err):
		return fmt.Errorf("%s: %w: %w", op, link.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Create implements webhook.Store, bumping the version in the same
// transaction. The cap on subscriptions is checked by a count first: two
// creates racing past it leave one too many, which is harmless.
func (st *WebhookStore) Create(ctx context.Context, sub webhook.Subscription) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	in := st.prefixQuery(sub.Owner, subPrefix)
	in.Select = types.SelectCount
	out, err := st.db.Query(ctx, in)
	if err != nil {
		return wrapHook("count subscriptions", err)
	}
	if out.Count >= webhook.MaxSubscriptions {
		return fmt.Errorf("create subscription: %w", link.ErrConflict)
	}
	item := itemKey(sub.Owner, subPrefix+sub.ID)
	item[tableschema.AttrURL] = str(sub.URL)
	item[tableschema.AttrEvents] = &types.AttributeValueMemberSS{Value: sub.Events}
	item[tableschema.AttrHumanOnly] = &types.AttributeValueMemberBOOL{Value: sub.HumanOnly}
	item[tableschema.AttrSecret] = str(sub.Secret)
	item[tableschema.AttrCreatedAt] = num(sub.CreatedAt.UnixMilli())
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
func (st *WebhookStore) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	var subs []webhook.Subscription
	in := st.prefixQuery(owner, subPrefix)
	maps.Copy(in.ExpressionAttributeNames, listNames)
	in.ConsistentRead = aws.Bool(true)
	in.Select = types.SelectSpecificAttributes
	in.ProjectionExpression = aws.String(listProjection)
	for {
		out, err := st.db.Query(ctx, in)
		if err != nil {
			return nil, wrapHook("list subscriptions", err)
		}
		if subs, err = appendDecoded(subs, out.Items, unmarshalListedSub); err != nil {
			return nil, err
		}
		if len(out.LastEvaluatedKey) == 0 {
			return subs, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// unmarshalListedSub is unmarshalSub without the secret, which List never
// passes on, even from a table that ignored its projection.
func unmarshalListedSub(it map[string]types.AttributeValue) (webhook.Subscription, error) {
	sub, err := unmarshalSub(it)
	sub.Secret = ""
	return sub, err
}

// Get implements webhook.Store.
func (st *WebhookStore) Get(ctx context.Context, owner, id string) (webhook.Subscription, error) {
	item, err := getItem(ctx, st.db, st.cfg.Timeout, &dynamodb.GetItemInput{TableName: &st.cfg.Table, Key: itemKey(owner, subPrefix+id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return webhook.Subscription{}, wrapHook("get subscription", err)
	}
	if item == nil {
		return webhook.Subscription{}, fmt.Errorf("subscription %s: %w", id, link.ErrNotFound)
	}
	return unmarshalSub(item)
}

// Delete implements webhook.Store, bumping the version in the same
// transaction.
func (st *WebhookStore) Delete(ctx context.Context, owner, id string) error {
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
func (st *WebhookStore) Disable(ctx context.Context, owner, id string) error {
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
func (st *WebhookStore) Record(ctx context.Context, owner string, d webhook.Delivery) error {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	// Zero-padded milliseconds sort as numbers do.
	sk := fmt.Sprintf("%s%s#%015d#%s#%d", dlvPrefix, d.Subscription, d.At.UnixMilli(), d.EventID, d.Attempt)
	item := itemKey(owner, sk)
	item[tableschema.AttrEvent] = str(d.Event)
	item[tableschema.AttrEventID] = str(d.EventID)
	item[tableschema.AttrAttempt] = num(int64(d.Attempt))
	item[tableschema.AttrStatus] = str(d.Status)
	item[tableschema.AttrResponseCode] = num(int64(d.ResponseCode))
	item[tableschema.AttrAt] = num(d.At.UnixMilli())
	if !d.NextRetry.IsZero() {
		item[tableschema.AttrNextRetry] = num(d.NextRetry.UnixMilli())
	}
	item[tableschema.AttrExpiresAt] = num(d.At.Add(webhook.DeliveryRetention).Unix())
	if _, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.cfg.Table, Item: item}); err != nil {
		return wrapHook("record delivery", err)
	}
	return nil
}

// Deliveries implements webhook.Store.
func (st *WebhookStore) Deliveries(ctx context.Context, owner, id string, limit int) ([]webhook.Delivery, error) {
	ctx, cancel := context.WithTimeout(ctx, st.cfg.Timeout)
	defer cancel()
	in := st.prefixQuery(owner, dlvPrefix+id+"#")
	in.ScanIndexForward = aws.Bool(false)
	in.Limit = aws.Int32(int32(limit))
	out, err := st.db.Query(ctx, in)
	if err != nil {
		return nil, wrapHook("list deliveries", err)
	}
	ds := make([]webhook.Delivery, 0, len(out.Items))
	for _, it := range out.Items {
		d := webhook.Delivery{Subscription: id}
		d.Event = optS(it, tableschema.AttrEvent)
		d.EventID = optS(it, tableschema.AttrEventID)
		d.Status = optS(it, tableschema.AttrStatus)
		d.Attempt = int(optN(it, tableschema.AttrAttempt))
		d.ResponseCode = int(optN(it, tableschema.AttrResponseCode))
		d.At = time.UnixMilli(optN(it, tableschema.AttrAt)).UTC()
		if v := optN(it, tableschema.AttrNextRetry); v != 0 {
			d.NextRetry = time.UnixMilli(v).UTC()
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func optS(it map[string]types.AttributeValue, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func optN(it map[string]types.AttributeValue, name string) int64 {
	n, _ := OptionalN(it, name)
	return n
}

func unmarshalSub(it map[string]types.AttributeValue) (webhook.Subscription, error) {
	sk := optS(it, tableschema.AttrSK)
	if len(sk) <= len(subPrefix) {
		return webhook.Subscription{}, fmt.Errorf("decode subscription: sort key %q", sk)
	}
	sub := webhook.Subscription{
		ID: sk[len(subPrefix):], Owner: optS(it, tableschema.AttrOwner), URL: optS(it, tableschema.AttrURL),
		Secret: optS(it, tableschema.AttrSecret), CreatedAt: time.UnixMilli(optN(it, tableschema.AttrCreatedAt)).UTC(),
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
