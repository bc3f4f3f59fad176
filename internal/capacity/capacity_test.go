package capacity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// pkTable creates an on-demand table keyed by the string pk, named for the
// test after prefix, and returns its name.
func pkTable(t *testing.T, db *dynamodb.Client, prefix string) string {
	t.Helper()
	table := testenv.UniqueName(t, prefix)
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            &table,
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	return table
}

// padded is an item of key pk padded with size bytes, so its size (and
// the units it costs) is what the test wants.
func padded(pk string, size int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":  &types.AttributeValueMemberS{Value: pk},
		"pad": &types.AttributeValueMemberS{Value: strings.Repeat("x", size)},
	}
}

// TestMeterAgainstDynamoDBLocal checks the meter against the units DynamoDB
// documents: a write is 1 WRU per KB (rounded up), a transactional write 2
// per KB, an eventually consistent read 0.5 RRU per 4 KB, a strongly
// consistent one 1.
func TestMeterAgainstDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	var m capacity.Meter
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t), m.Options)
	table := pkTable(t, db, "capacity")
	require.Zero(t, m.Usage().Calls, "CreateTable consumes no capacity and is not counted")

	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	}
	tests := []struct {
		name     string
		call     func() error
		wru, rru float64
		failed   int
	}{
		{"a small put is one unit", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded("a", 10)})
			return err
		}, 1, 0, 0},
		{"a 1.5 KB put is two units", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded("b", 1500)})
			return err
		}, 2, 0, 0},
		{"a transactional small write is two units", func() error {
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: &table, Item: padded("c", 10)}},
			}})
			return err
		}, 2, 0, 0},
		{"an eventually consistent read is half a unit", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("a")})
			return err
		}, 0, 0.5, 0},
		{"a strongly consistent read is one unit", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("a"), ConsistentRead: aws.Bool(true)})
			return err
		}, 0, 1, 0},
		{"a failed conditional write is counted as unmeasured", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded("a", 10),
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			var failed *types.ConditionalCheckFailedException
			if errors.As(err, &failed) {
				return nil
			}
			return errors.Join(errors.New("want a failed condition"), err)
		}, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := m.Usage()
			require.NoError(t, tt.call())
			d := m.Usage().Sub(before)
			assert.Equal(t, tt.wru, d.WRU, "WRU")
			assert.Equal(t, tt.rru, d.RRU, "RRU")
			assert.Equal(t, tt.failed, d.Failed, "failed calls")
		})
	}
	assert.Equal(t, 5.0, m.Usage().WRU, "the meter adds up every write")
	assert.Equal(t, map[string]float64{"PutItem": 3, "TransactWriteItems": 2, "GetItem": 1.5}, m.Usage().ByOperation)
}

// TestLocalUnderreportsTransactions pins down why the meter sizes
// transactions itself: DynamoDB Local answers a TransactWriteItems of five
// updates with 2 units, where DynamoDB bills 2 per action and KB. If a
// DynamoDB Local release fixes this, the first assertion fails: then the
// meter can trust the answer again.
func TestLocalUnderreportsTransactions(t *testing.T) {
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	raw := emulator.NewDynamoDBClient(endpoint)
	table := pkTable(t, raw, "tx")
	_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded("big", 1500)})
	require.NoError(t, err)

	tx := func(pks ...string) *dynamodb.TransactWriteItemsInput {
		in := &dynamodb.TransactWriteItemsInput{}
		for _, pk := range pks {
			in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Update: &types.Update{
				TableName:                 &table,
				Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
				UpdateExpression:          aws.String("ADD n :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
			}})
		}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Put: &types.Put{
			TableName: &table, Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "put-" + pks[0]}},
		}})
		return in
	}

	var reported capacity.Meter
	_, err = emulator.NewDynamoDBClient(endpoint, reported.Options).TransactWriteItems(ctx, tx("a", "b", "c", "d"))
	require.NoError(t, err)
	assert.Equal(t, 2.0, reported.Usage().WRU, "DynamoDB Local reports a transaction as 2 units")

	sized := capacity.Meter{Items: raw}
	db := emulator.NewDynamoDBClient(endpoint, sized.Options)
	_, err = db.TransactWriteItems(ctx, tx("e", "f", "g", "h"))
	require.NoError(t, err)
	assert.Equal(t, 10.0, sized.Usage().WRU, "five small actions, 2 units each")
	_, err = db.TransactWriteItems(ctx, tx("big", "i"))
	require.NoError(t, err)
	assert.Equal(t, 10.0+4+2+2, sized.Usage().WRU, "the 1.5 KB item is billed 2 KB, twice")
}

// TestLocalUnderreportsEmptyQueries: DynamoDB Local answers a Query that
// finds nothing with 0 units, where DynamoDB bills the minimum read for
// it (API_Query: "Queries that do not return results consume the minimum
// number of read capacity units for that type of read operation"), so the
// meter bills half a unit, or one strongly consistent. If a DynamoDB Local
// release fixes this, the first assertion fails.
func TestLocalUnderreportsEmptyQueries(t *testing.T) {
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	raw := emulator.NewDynamoDBClient(endpoint)
	table := pkTable(t, raw, "emptyq")
	_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded("there", 10)})
	require.NoError(t, err)
	query := func(pk string, consistent bool) *dynamodb.QueryInput {
		return &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
			ConsistentRead:            aws.Bool(consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	}
	out, err := raw.Query(ctx, query("absent", false))
	require.NoError(t, err)
	require.Empty(t, out.Items)
	if out.ConsumedCapacity != nil {
		assert.Zero(t, aws.ToFloat64(out.ConsumedCapacity.CapacityUnits), "DynamoDB Local reports an empty Query as 0 units")
	}

	var m capacity.Meter
	db := emulator.NewDynamoDBClient(endpoint, m.Options)
	tests := []struct {
		name       string
		pk         string
		consistent bool
		rru        float64
	}{
		{"empty, eventually consistent: half a unit", "absent", false, 0.5},
		{"empty, strongly consistent: one unit", "absent", true, 1},
		{"one small item, as reported", "there", false, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := m.Usage()
			_, err := db.Query(ctx, query(tt.pk, tt.consistent))
			require.NoError(t, err)
			assert.Equal(t, tt.rru, m.Usage().Sub(before).RRU)
		})
	}
}

func TestItemSize(t *testing.T) {
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want int
	}{
		{"string", map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: "Ab3dE5g"}}, 4 + 7},
		{"number digits in pairs", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "12345"}}, 1 + 3 + 1},
		{"zeros trimmed", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "-1200.00"}}, 1 + 1 + 1},
		{"bool", map[string]types.AttributeValue{"ok": &types.AttributeValueMemberBOOL{Value: true}}, 2 + 1},
		{"map", map[string]types.AttributeValue{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberS{Value: "xy"}}}}, 1 + 3 + 1 + 1 + 2},
		{"list", map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "7"}, &types.AttributeValueMemberNULL{Value: true}}}}, 1 + 3 + (1 + 2) + (1 + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, capacity.ItemSize(tt.item))
		})
	}
	assert.Equal(t, 1.0, capacity.WriteUnits(0))
	assert.Equal(t, 1.0, capacity.WriteUnits(1024))
	assert.Equal(t, 2.0, capacity.WriteUnits(1025))
}

// TestTransactionIndexWrites: an index entry a transaction writes is billed
// once, as a plain write, beside the doubled table write.
func TestTransactionIndexWrites(t *testing.T) {
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	raw := emulator.NewDynamoDBClient(endpoint)
	table := testenv.UniqueName(t, "txgsi")
	_, err := raw.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   &table,
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("owner"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("by-owner"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("owner"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	require.NoError(t, err)
	m := capacity.Meter{Items: raw}
	db := emulator.NewDynamoDBClient(endpoint, m.Options)
	put := func(pk, owner, pad string) {
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "pad": &types.AttributeValueMemberS{Value: pad}}
		if owner != "" {
			item["owner"] = &types.AttributeValueMemberS{Value: owner}
		}
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: &table, Item: item}}}})
		require.NoError(t, err)
	}
	steps := []struct {
		name      string
		pk, owner string
		pad       string
		wantUnits float64
	}{
		{"no index key: the table write only", "a", "", "x", 2},
		{"a new index entry", "b", "o1", "x", 3},
		{"no projected attribute changed", "b", "o1", strings.Repeat("y", 1500), 4},
		{"the index key moved: out and in", "b", "o2", "y", 4 + 2},
	}
	for _, st := range steps {
		before := m.Usage()
		put(st.pk, st.owner, st.pad)
		assert.Equal(t, st.wantUnits, m.Usage().Sub(before).WRU, st.name)
	}
}

type tagKey struct{}

// TestMeterTags: with Tag set, the units of each call are added up by the
// tag its context carries and the operation; calls it names "" are in the
// totals but not in ByTag.
func TestMeterTags(t *testing.T) {
	ctx := context.Background()
	m := capacity.Meter{Tag: func(ctx context.Context) string {
		tag, _ := ctx.Value(tagKey{}).(string)
		return tag
	}}
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t), m.Options)
	table := pkTable(t, db, "tags")
	put := func(ctx context.Context, pk string, size int) {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded(pk, size)})
		require.NoError(t, err)
	}
	seg := context.WithValue(ctx, tagKey{}, "segment")
	put(seg, "a", 10)
	before := m.Usage()
	put(seg, "b", 1500)
	put(context.WithValue(ctx, tagKey{}, "fold"), "c", 10)
	put(ctx, "d", 10)
	_, err := db.DeleteItem(context.WithValue(ctx, tagKey{}, "fold"), &dynamodb.DeleteItemInput{TableName: &table,
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)

	assert.Equal(t, map[string]float64{"segment PutItem": 3, "fold PutItem": 1, "fold DeleteItem": 1}, m.Usage().ByTag)
	d := m.Usage().Sub(before)
	assert.Equal(t, map[string]float64{"segment PutItem": 2, "fold PutItem": 1, "fold DeleteItem": 1}, d.ByTag)
	assert.Equal(t, 5.0, d.WRU, "the untagged put is in the total")
}

// TestMeterByTable files every call under its table and operation, with
// its units, and a failed conditional write as failed, not answered.
func TestMeterByTable(t *testing.T) {
	ctx := context.Background()
	var m capacity.Meter
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t), m.Options)
	a, b := pkTable(t, db, "bytable-a"), pkTable(t, db, "bytable-b")
	put := func(table, pk string, size int, cond *string) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: padded(pk, size), ConditionExpression: cond})
		return err
	}
	require.NoError(t, put(a, "x", 10, nil))
	require.NoError(t, put(a, "y", 1500, nil))
	require.NoError(t, put(b, "x", 10, nil))
	require.Error(t, put(b, "x", 10, aws.String("attribute_not_exists(pk)")))
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &a, Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}}})
	require.NoError(t, err)

	tests := []struct {
		key  string
		want capacity.TableUse
	}{
		{a + " PutItem", capacity.TableUse{Units: 3, Calls: 2}},
		{b + " PutItem", capacity.TableUse{Units: 1, Calls: 1, Failed: 1}},
		{a + " GetItem", capacity.TableUse{Units: 0.5, Calls: 1}},
	}
	u := m.Usage()
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) { assert.Equal(t, tt.want, u.ByTable[tt.key]) })
	}
	assert.Len(t, u.ByTable, len(tests))
	before := u
	require.NoError(t, put(a, "z", 10, nil))
	assert.Equal(t, map[string]capacity.TableUse{a + " PutItem": {Units: 1, Calls: 1}}, m.Usage().Sub(before).ByTable)
}
