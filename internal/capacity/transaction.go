package capacity

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// transaction is what the meter learned of a TransactWriteItems before it
// ran: each action's item key and size.
type transaction struct {
	actions []action
}

type action struct {
	table  string
	key    map[string]types.AttributeValue
	before map[string]types.AttributeValue // nil when the item did not exist
	put    int                             // a Put's item size, known before the call
}

// schema is what the meter needs of a table to bill its writes.
type schema struct {
	keys    []string
	indexes []index
}

// index is a global secondary index: its key attributes and what it
// projects (nil: all attributes).
type index struct {
	keys    []string
	project []string
}

func (m *Meter) before(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*transaction, error) {
	tx := &transaction{actions: make([]action, 0, len(in.TransactItems))}
	for _, it := range in.TransactItems {
		var a action
		switch {
		case it.Put != nil:
			sc, err := m.schemaOf(ctx, aws.ToString(it.Put.TableName))
			if err != nil {
				return nil, err
			}
			a = action{table: aws.ToString(it.Put.TableName), key: pick(it.Put.Item, sc.keys), put: ItemSize(it.Put.Item)}
		case it.Update != nil:
			a = action{table: aws.ToString(it.Update.TableName), key: it.Update.Key}
		case it.Delete != nil:
			a = action{table: aws.ToString(it.Delete.TableName), key: it.Delete.Key}
		case it.ConditionCheck != nil:
			a = action{table: aws.ToString(it.ConditionCheck.TableName), key: it.ConditionCheck.Key}
		}
		item, err := m.read(ctx, a.table, a.key)
		if err != nil {
			return nil, err
		}
		a.before = item
		tx.actions = append(tx.actions, a)
	}
	return tx, nil
}

// after bills each action of a committed transaction at 2 units per KB of
// the larger of its item before and after, and each global secondary index
// it changed as a plain write: DynamoDB does not double index writes of a
// transaction.
func (m *Meter) after(ctx context.Context, tx *transaction) (float64, error) {
	var units float64
	for _, a := range tx.actions {
		now, err := m.read(ctx, a.table, a.key)
		if err != nil {
			return 0, err
		}
		units += 2 * WriteUnits(max(ItemSize(a.before), ItemSize(now), a.put))
		sc, err := m.schemaOf(ctx, a.table)
		if err != nil {
			return 0, err
		}
		for _, ix := range sc.indexes {
			units += ix.writeUnits(sc.keys, a.before, now)
		}
	}
	return units, nil
}

// writeUnits is what a change from before to after costs the index: a
// write of the entry that appears, disappears or changes, two when its key
// moves, nothing when no projected attribute changed.
func (ix index) writeUnits(tableKeys []string, before, after map[string]types.AttributeValue) float64 {
	was, is := ix.holds(before), ix.holds(after)
	pb, pa := ix.entry(tableKeys, before), ix.entry(tableKeys, after)
	switch {
	case !was && !is:
		return 0
	case !was:
		return WriteUnits(ItemSize(pa))
	case !is:
		return WriteUnits(ItemSize(pb))
	case !reflect.DeepEqual(pick(before, ix.keys), pick(after, ix.keys)):
		return WriteUnits(ItemSize(pb)) + WriteUnits(ItemSize(pa))
	case reflect.DeepEqual(pb, pa):
		return 0
	}
	return WriteUnits(max(ItemSize(pb), ItemSize(pa)))
}

func (ix index) holds(item map[string]types.AttributeValue) bool {
	if item == nil {
		return false
	}
	for _, k := range ix.keys {
		if _, ok := item[k]; !ok {
			return false
		}
	}
	return true
}

// entry is the index's copy of item: the projected attributes and both keys.
func (ix index) entry(tableKeys []string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if item == nil || ix.project == nil {
		return item
	}
	e := pick(item, tableKeys)
	for _, names := range [][]string{ix.keys, ix.project} {
		for _, n := range names {
			if v, ok := item[n]; ok {
				e[n] = v
			}
		}
	}
	return e
}

func (m *Meter) read(ctx context.Context, table string, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := m.Items.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("read an item of %s: %w", table, err)
	}
	return out.Item, nil
}

func (m *Meter) schemaOf(ctx context.Context, table string) (schema, error) {
	m.mu.Lock()
	sc, ok := m.schemas[table]
	m.mu.Unlock()
	if ok {
		return sc, nil
	}
	out, err := m.Items.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		return sc, fmt.Errorf("describe %s: %w", table, err)
	}
	sc.keys = keyNames(out.Table.KeySchema)
	for _, g := range out.Table.GlobalSecondaryIndexes {
		ix := index{keys: keyNames(g.KeySchema), project: []string{}}
		if g.Projection != nil {
			switch g.Projection.ProjectionType {
			case types.ProjectionTypeAll:
				ix.project = nil
			case types.ProjectionTypeInclude:
				ix.project = g.Projection.NonKeyAttributes
			}
		}
		sc.indexes = append(sc.indexes, ix)
	}
	m.mu.Lock()
	if m.schemas == nil {
		m.schemas = map[string]schema{}
	}
	m.schemas[table] = sc
	m.mu.Unlock()
	return sc, nil
}

func keyNames(ks []types.KeySchemaElement) []string {
	names := make([]string, 0, len(ks))
	for _, k := range ks {
		names = append(names, aws.ToString(k.AttributeName))
	}
	return names
}

func pick(item map[string]types.AttributeValue, names []string) map[string]types.AttributeValue {
	key := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		if v, ok := item[n]; ok {
			key[n] = v
		}
	}
	return key
}

// WriteUnits is what a non-transactional write of an item of size bytes
// consumes: one unit per KB, rounded up, and at least one.
func WriteUnits(size int) float64 {
	return max(1, math.Ceil(float64(size)/1024))
}

// ItemSize is an item's size as DynamoDB bills it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
// each attribute's name plus its value, where a string counts its UTF-8
// bytes, a number 1 byte per two significant digits plus 1, binary its
// bytes, null and booleans 1, and a list or map 3 bytes plus 1 per element.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize is 1 byte per two significant digits, plus 1: leading and
// trailing zeros, the sign and the decimal point do not count.
func numberSize(s string) int {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.SplitN(strings.ToLower(s), "e", 2)[0])
	digits = strings.Trim(digits, "0")
	return (len(digits)+1)/2 + 1
}
