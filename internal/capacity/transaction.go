package capacity

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
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
		tx.actions = append(tx.actions, a)
	}
	items, err := m.readAll(ctx, tx.actions)
	if err != nil {
		return nil, err
	}
	for i := range tx.actions {
		tx.actions[i].before = items[i]
	}
	return tx, nil
}

// after bills each action of a committed transaction at 2 units per KB of
// the larger of its item before and after, and each global secondary index
// it changed as a plain write: DynamoDB does not double index writes of a
// transaction.
func (m *Meter) after(ctx context.Context, tx *transaction) (float64, error) {
	items, err := m.readAll(ctx, tx.actions)
	if err != nil {
		return 0, err
	}
	var units float64
	for i, a := range tx.actions {
		now := items[i]
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

// readAll reads the items of a transaction's actions, in their order, nil
// for an item that does not exist: one BatchGetItem (a transaction has at
// most 100 actions, a BatchGetItem takes 100 keys) and its retries.
func (m *Meter) readAll(ctx context.Context, actions []action) ([]map[string]types.AttributeValue, error) {
	req := map[string]types.KeysAndAttributes{}
	for _, a := range actions {
		ka := req[a.table]
		ka.ConsistentRead = aws.Bool(true)
		ka.Keys = append(ka.Keys, a.key)
		req[a.table] = ka
	}
	var got []map[string][]map[string]types.AttributeValue
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt == 10 {
			return nil, fmt.Errorf("read a transaction's items: unprocessed keys after %d attempts", attempt)
		}
		out, err := m.Items.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, fmt.Errorf("read a transaction's items: %w", err)
		}
		got = append(got, out.Responses)
		req = out.UnprocessedKeys
	}
	byKey := map[string]map[string]types.AttributeValue{}
	for _, resp := range got {
		for table, found := range resp {
			names, err := m.schemaOf(ctx, table)
			if err != nil {
				return nil, err
			}
			for _, item := range found {
				byKey[keyString(table, pick(item, names.keys))] = item
			}
		}
	}
	items := make([]map[string]types.AttributeValue, len(actions))
	for i, a := range actions {
		items[i] = byKey[keyString(a.table, a.key)]
	}
	return items, nil
}

// keyString names an item by its table and key values. Key attributes are
// strings, numbers or binary.
func keyString(table string, key map[string]types.AttributeValue) string {
	names := make([]string, 0, len(key))
	for n := range key {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(table)
	for _, n := range names {
		b.WriteString("\x00" + n + "\x00")
		switch v := key[n].(type) {
		case *types.AttributeValueMemberS:
			b.WriteString("S" + v.Value)
		case *types.AttributeValueMemberN:
			b.WriteString("N" + v.Value)
		case *types.AttributeValueMemberB:
			b.WriteString("B" + string(v.Value))
		}
	}
	return b.String()
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
		return sumOf(v.Value, func(s string) int { return len(s) })
	case *types.AttributeValueMemberNS:
		return sumOf(v.Value, numberSize)
	case *types.AttributeValueMemberBS:
		return sumOf(v.Value, func(b []byte) int { return len(b) })
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

func sumOf[T any](xs []T, size func(T) int) int {
	n := 0
	for _, x := range xs {
		n += size(x)
	}
	return n
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
