package dynamo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// outboxPartition is the outbox's partition key in the analytics table.
const outboxPartition = "#hooks"

const (
	attrBatch    = "batch"    // the ClickBatch, JSON
	attrAttempts = "attempts" // tries made from the outbox
	attrSince    = "since"    // epoch milliseconds
	attrDue      = "due"      // epoch milliseconds
)

// maxBatchBytes bounds the JSON of one item's batch, below DynamoDB's
// 400 KB item limit
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html):
// a larger batch is kept in several items, each a part of its codes.
const maxBatchBytes = 300 << 10

// ErrClaimed is Claim's answer when another try holds the item, or it is
// gone.
var ErrClaimed = errors.New("pending clicks claimed by another try")

// Outbox is the outbox.
type Outbox struct {
	db  API
	cfg Config
}

// NewOutbox returns the outbox in cfg.Table; cfg.Timeout is 2 s when
// zero.
func NewOutbox(db API, cfg Config) *Outbox {
	SetDefault(&cfg.Timeout, 2*time.Second)
	return &Outbox{db: db, cfg: cfg}
}

func outboxKey(sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		tableschema.AttrCode:   &types.AttributeValueMemberS{Value: outboxPartition},
		tableschema.AttrBucket: &types.AttributeValueMemberS{Value: sk},
	}
}

// Put keeps p, in parts if its batch is large. Its key is derived from
// the batch's ID, so the same batch kept twice (a retried invocation) is
// one item.
func (s *Outbox) Put(ctx context.Context, p webhook.PendingClicks) error {
	h := sha256.Sum256([]byte(p.Batch.ID))
	base := hex.EncodeToString(h[:12])
	parts, err := splitBatch(p.Batch)
	if err != nil {
		return err
	}
	for i, body := range parts {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		item := outboxKey(fmt.Sprintf("%s#%03d", base, i)) // parts sort in order
		item[attrBatch] = &types.AttributeValueMemberS{Value: string(body)}
		item[attrAttempts] = &types.AttributeValueMemberN{Value: strconv.Itoa(p.Attempts)}
		item[attrSince], item[attrDue] = millis(p.Since), millis(p.Due)
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.cfg.Table, Item: item})
		cancel()
		if err != nil {
			return Wrap("keep pending clicks", err)
		}
	}
	return nil
}

// split encodes b as JSON in parts of at most maxBatchBytes, each with
// whole codes.
func splitBatch(b webhook.ClickBatch) ([][]byte, error) {
	body, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encode pending clicks: %w", err)
	}
	if len(body) <= maxBatchBytes || len(b.Codes) < 2 {
		if len(body) > maxBatchBytes {
			return nil, fmt.Errorf("pending clicks of one code are %d bytes, over %d", len(body), maxBatchBytes)
		}
		return [][]byte{body}, nil
	}
	half := len(b.Codes) / 2
	first, err := splitBatch(webhook.ClickBatch{ID: b.ID, Codes: b.Codes[:half]})
	if err != nil {
		return nil, err
	}
	second, err := splitBatch(webhook.ClickBatch{ID: b.ID, Codes: b.Codes[half:]})
	if err != nil {
		return nil, err
	}
	return append(first, second...), nil
}

// Due returns up to limit kept batches whose due time is at or before
// now, oldest (by Since) first. It reads the whole partition, which holds
// only what waits.
func (s *Outbox) Due(ctx context.Context, now time.Time, limit int) ([]webhook.PendingClicks, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var due []webhook.PendingClicks
	var start map[string]types.AttributeValue
	for {
		out, err := s.db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 &s.cfg.Table,
			KeyConditionExpression:    aws.String("#pk = :pk"),
			FilterExpression:          aws.String("#due <= :now"),
			ExpressionAttributeNames:  map[string]string{"#pk": tableschema.AttrCode, "#due": attrDue},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: outboxPartition}, ":now": millis(now)},
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, Wrap("read pending clicks", err)
		}
		if due, err = appendDecoded(due, out.Items, decodePending); err != nil {
			return nil, err
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
	}
	slices.SortStableFunc(due, func(a, b webhook.PendingClicks) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key) // a batch's parts in order
	})
	return due[:min(len(due), limit)], nil
}

func decodePending(item map[string]types.AttributeValue) (webhook.PendingClicks, error) {
	var p webhook.PendingClicks
	str := func(name string) string {
		v, _ := item[name].(*types.AttributeValueMemberS)
		if v == nil {
			return ""
		}
		return v.Value
	}
	num := func(name string) int64 {
		v, _ := item[name].(*types.AttributeValueMemberN)
		if v == nil {
			return 0
		}
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	p.Key = str(tableschema.AttrBucket)
	if err := json.Unmarshal([]byte(str(attrBatch)), &p.Batch); err != nil {
		return p, fmt.Errorf("pending clicks %s: %w", p.Key, err)
	}
	p.Attempts = int(num(attrAttempts))
	p.Since, p.Due = time.UnixMilli(num(attrSince)).UTC(), time.UnixMilli(num(attrDue)).UTC()
	return p, nil
}

// Claim takes p for one try: it counts the attempt and moves p's due time
// to until, so no other try takes it meanwhile, and if this one never
// ends (its function timed out), p is tried again after until. It fails
// with ErrClaimed when another try took p first or p is gone.
func (s *Outbox) Claim(ctx context.Context, p webhook.PendingClicks, until time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.cfg.Table,
		Key:                       outboxKey(p.Key),
		UpdateExpression:          aws.String("SET #due = :until ADD #attempts :one"),
		ConditionExpression:       aws.String("#due = :seen"),
		ExpressionAttributeNames:  map[string]string{"#due": attrDue, "#attempts": attrAttempts},
		ExpressionAttributeValues: map[string]types.AttributeValue{":until": millis(until), ":seen": millis(p.Due), ":one": &types.AttributeValueMemberN{Value: "1"}},
	})
	if conditionFailed(err) {
		return ErrClaimed
	}
	return Wrap("claim pending clicks", err)
}

// Reschedule keeps what is left of a claimed p (p.Batch) until p.Due.
func (s *Outbox) Reschedule(ctx context.Context, p webhook.PendingClicks) error {
	body, err := json.Marshal(p.Batch)
	if err != nil {
		return fmt.Errorf("encode pending clicks: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.cfg.Table,
		Key:                       outboxKey(p.Key),
		UpdateExpression:          aws.String("SET #due = :due, #batch = :batch"),
		ConditionExpression:       aws.String("attribute_exists(#batch)"),
		ExpressionAttributeNames:  map[string]string{"#due": attrDue, "#batch": attrBatch},
		ExpressionAttributeValues: map[string]types.AttributeValue{":due": millis(p.Due), ":batch": &types.AttributeValueMemberS{Value: string(body)}},
	})
	if conditionFailed(err) {
		return nil // queued and deleted by another try meanwhile
	}
	return Wrap("reschedule pending clicks", err)
}

// Delete removes a batch whose events are all queued.
func (s *Outbox) Delete(ctx context.Context, k string) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.cfg.Table, Key: outboxKey(k)})
	return Wrap("delete pending clicks", err)
}
