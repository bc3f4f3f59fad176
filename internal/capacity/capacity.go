// Package capacity measures what DynamoDB calls consume. A Meter added to a
// client's options asks every call for its consumed capacity
// (ReturnConsumedCapacity TOTAL) and adds up what the answers report, read
// and write units apart, so a cost model can take its per-operation figures
// from a run instead of from arithmetic on item sizes. DynamoDB Local
// answers ReturnConsumedCapacity as DynamoDB does; see
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
// for how DynamoDB counts units (an UpdateItem is billed on the larger of
// the item before and after, a transactional write at two units per KB).
package capacity

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Usage is what a run of calls consumed.
type Usage struct {
	// RRU and WRU are the read and write units the answers reported.
	RRU, WRU float64
	// Calls counts the calls that answered; Failed those that returned an
	// error. A failed conditional write is billed too, but its error
	// carries no consumed capacity, so Failed says how many went unmeasured.
	Calls, Failed int
	// ByOperation holds the units per operation name (PutItem, Query, ...).
	ByOperation map[string]float64
	// ByTag holds the units per Meter.Tag and operation name, as "tag
	// PutItem", for the calls the meter's Tag named.
	ByTag map[string]float64
	// ByTable holds, per table and operation ("links GetItem"), the calls
	// and the units they consumed; a batch or transaction over several
	// tables is filed under the first of them in name order.
	ByTable map[string]TableUse `json:",omitempty"`
}

// TableUse is what the calls of one operation on one table consumed.
type TableUse struct {
	Units float64
	// Calls answered; Failed returned an error (a failed conditional
	// write among them, billed by DynamoDB but not measured).
	Calls, Failed int
}

// Sub returns u minus an earlier reading v of the same meter.
func (u Usage) Sub(v Usage) Usage {
	d := Usage{RRU: u.RRU - v.RRU, WRU: u.WRU - v.WRU, Calls: u.Calls - v.Calls, Failed: u.Failed - v.Failed,
		ByOperation: map[string]float64{}, ByTag: map[string]float64{}}
	for op, n := range u.ByOperation {
		if n -= v.ByOperation[op]; n != 0 {
			d.ByOperation[op] = n
		}
	}
	for k, n := range u.ByTag {
		if n -= v.ByTag[k]; n != 0 {
			d.ByTag[k] = n
		}
	}
	for k, t := range u.ByTable {
		w := v.ByTable[k]
		if t = (TableUse{Units: t.Units - w.Units, Calls: t.Calls - w.Calls, Failed: t.Failed - w.Failed}); t != (TableUse{}) {
			if d.ByTable == nil {
				d.ByTable = map[string]TableUse{}
			}
			d.ByTable[k] = t
		}
	}
	return d
}

// Meter adds up consumed capacity. Its zero value is ready; it is safe for
// concurrent use.
//
// DynamoDB Local reports a TransactWriteItems call as 2 units whatever it
// holds (TestLocalUnderreportsTransactions shows it), where DynamoDB bills
// every action of a transaction at 2 units per KB of the larger of the item
// before and after. With Items set, the meter bills transactions that way
// itself: it reads each item the transaction touches before and after the
// call, through Items (a client without the meter), and sizes it as
// DynamoDB documents. Without Items it takes what the answer reports.
// DynamoDB Local also reports a Query that finds nothing as 0 units, which
// DynamoDB bills the minimum read: the meter bills it that (emptyQueryUnits).
type Meter struct {
	// Items reads the items a transaction touches; nil: transactions are
	// counted as reported.
	Items ItemReader
	// Tag, when set, names a call from its context (a store's level, say,
	// packedclicks.LevelOf): Usage.ByTag adds up the units per tag and
	// operation; a call it names "" is left out of ByTag.
	Tag func(context.Context) string

	mu      sync.Mutex
	u       Usage
	schemas map[string]schema
}

// ItemReader lists the calls the meter makes to size a transaction's items.
type ItemReader interface {
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// Usage returns what the meter has counted so far.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.u
	u.ByOperation = maps.Clone(m.u.ByOperation)
	if u.ByOperation == nil {
		u.ByOperation = map[string]float64{}
	}
	u.ByTag = maps.Clone(m.u.ByTag)
	if u.ByTag == nil {
		u.ByTag = map[string]float64{}
	}
	u.ByTable = maps.Clone(m.u.ByTable)
	return u
}

// Options installs the meter on a DynamoDB client:
//
//	db := dynamodb.NewFromConfig(cfg, meter.Options)
func (m *Meter) Options(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("ConsumedCapacityMeter", m.handle), middleware.After)
	})
}

func (m *Meter) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	op, write := ask(in.Parameters)
	var tx *transaction
	if txIn, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok && m.Items != nil {
		var err error
		if tx, err = m.before(ctx, txIn); err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, fmt.Errorf("capacity meter: %w", err)
		}
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if op == "" {
		return out, md, err
	}
	var units float64
	if err == nil {
		units = consumed(out.Result)
		if q, ok := in.Parameters.(*dynamodb.QueryInput); ok && units == 0 {
			units = emptyQueryUnits(q)
		}
		if tx != nil {
			if units, err = m.after(ctx, tx); err != nil {
				err = fmt.Errorf("capacity meter: %w", err)
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.u.ByTable == nil {
		m.u.ByTable = map[string]TableUse{}
	}
	key := tableOf(in.Parameters) + " " + op
	t := m.u.ByTable[key]
	if err != nil {
		t.Failed++
		m.u.ByTable[key] = t
		m.u.Failed++
		return out, md, err
	}
	t.Calls++
	t.Units += units
	m.u.ByTable[key] = t
	m.u.Calls++
	if write {
		m.u.WRU += units
	} else {
		m.u.RRU += units
	}
	if m.u.ByOperation == nil {
		m.u.ByOperation = map[string]float64{}
	}
	m.u.ByOperation[op] += units
	if m.Tag != nil {
		if tag := m.Tag(ctx); tag != "" {
			if m.u.ByTag == nil {
				m.u.ByTag = map[string]float64{}
			}
			m.u.ByTag[tag+" "+op] += units
		}
	}
	return out, md, err
}

// ask sets ReturnConsumedCapacity on the calls that take it and names the
// operation; op is empty for calls that consume no capacity (CreateTable,
// DescribeTable, ...).
func ask(params any) (op string, write bool) {
	const total = types.ReturnConsumedCapacityTotal
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = total
		return "GetItem", false
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = total
		return "Query", false
	case *dynamodb.ScanInput:
		in.ReturnConsumedCapacity = total
		return "Scan", false
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = total
		return "BatchGetItem", false
	case *dynamodb.TransactGetItemsInput:
		in.ReturnConsumedCapacity = total
		return "TransactGetItems", false
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = total
		return "PutItem", true
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = total
		return "UpdateItem", true
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = total
		return "DeleteItem", true
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = total
		return "BatchWriteItem", true
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = total
		return "TransactWriteItems", true
	}
	return "", false
}

// tableOf names the table a call works on: the first in name order of a
// batch's or a transaction's.
func tableOf(params any) string {
	var names []string
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.QueryInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.ScanInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.PutItemInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.UpdateItemInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.DeleteItemInput:
		names = append(names, aws.ToString(in.TableName))
	case *dynamodb.BatchGetItemInput:
		names = slices.Collect(maps.Keys(in.RequestItems))
	case *dynamodb.BatchWriteItemInput:
		names = slices.Collect(maps.Keys(in.RequestItems))
	case *dynamodb.TransactGetItemsInput:
		for _, it := range in.TransactItems {
			if it.Get != nil {
				names = append(names, aws.ToString(it.Get.TableName))
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				names = append(names, aws.ToString(it.Put.TableName))
			case it.Update != nil:
				names = append(names, aws.ToString(it.Update.TableName))
			case it.Delete != nil:
				names = append(names, aws.ToString(it.Delete.TableName))
			case it.ConditionCheck != nil:
				names = append(names, aws.ToString(it.ConditionCheck.TableName))
			}
		}
	}
	if len(names) == 0 {
		return "?"
	}
	return slices.Min(names)
}

// consumed adds up the capacity an answer reports.
func consumed(result any) float64 {
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return sum(out.ConsumedCapacity)
	case *dynamodb.TransactGetItemsOutput:
		return sum(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return units(out.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		return sum(out.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		return sum(out.ConsumedCapacity)
	}
	return 0
}

// emptyQueryUnits is what DynamoDB bills a Query that finds nothing:
// "Queries that do not return results consume the minimum number of read
// capacity units for that type of read operation"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html),
// half a unit eventually consistent, one strongly consistent. DynamoDB
// Local reports 0 for them (TestLocalUnderreportsEmptyQueries).
func emptyQueryUnits(q *dynamodb.QueryInput) float64 {
	if aws.ToBool(q.ConsistentRead) {
		return 1
	}
	return 0.5
}

func units(c *types.ConsumedCapacity) float64 {
	if c == nil || c.CapacityUnits == nil {
		return 0
	}
	return *c.CapacityUnits
}

func sum(cs []types.ConsumedCapacity) float64 {
	var n float64
	for i := range cs {
		n += units(&cs[i])
	}
	return n
}
