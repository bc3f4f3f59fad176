package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/faults"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// table creates a table keyed by "k" and returns its name.
func table(t *testing.T, db *dynamodb.Client) string {
	t.Helper()
	name := testenv.UniqueName(t, "faults")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &name,
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	return name
}

func clients(t *testing.T) (*faults.Injector, *dynamodb.Client, *dynamodb.Client) {
	t.Helper()
	inj := faults.New()
	ep := testenv.DynamoDBEndpoint(t)
	return inj, emulator.NewDynamoDBClient(ep, inj.DynamoDB), emulator.NewDynamoDBClient(ep)
}

func key(k string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: k}}
}

func put(ctx context.Context, db *dynamodb.Client, tbl, k string) error {
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &tbl, Item: key(k),
		ConditionExpression: aws.String("attribute_not_exists(k)")})
	return err
}

func exists(t *testing.T, db *dynamodb.Client, tbl, k string) bool {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &tbl, Key: key(k), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item != nil
}

func TestSkipThenTimes(t *testing.T) {
	inj, db, _ := clients(t)
	tbl := table(t, db)
	f := inj.Add(faults.Rule{Op: "GetItem", Skip: 1, Times: 2, Err: faults.Throttled()})
	ctx := context.Background()

	var got []bool
	for range 4 {
		_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &tbl, Key: key("x")})
		var throttled *types.ProvisionedThroughputExceededException
		got = append(got, errors.As(err, &throttled))
		if err != nil && !errors.As(err, &throttled) {
			t.Fatalf("unexpected error: %v", err)
		}
	}

	assert.Equal(t, []bool{false, true, true, false}, got)
	assert.Equal(t, 2, f.Fired())
	assert.Equal(t, 4, inj.Calls("GetItem"))
}

func TestAfterLosesTheAnswerNotTheWrite(t *testing.T) {
	inj, db, plain := clients(t)
	tbl := table(t, db)
	inj.Add(faults.Rule{Op: "PutItem", After: true, Times: 1, Err: faults.ConnectionLost()})

	err := put(context.Background(), db, tbl, "a")

	assert.ErrorIs(t, err, faults.ErrInjected)
	assert.True(t, exists(t, plain, tbl, "a"), "the write took effect")
}

func TestAttemptFaultsAreRetriedBySDK(t *testing.T) {
	// A lost answer inside the SDK's retry loop: the SDK sends the same
	// conditional put again, which now finds its own item. This is why a
	// write that must be exactly-once needs its own proof of the first
	// attempt (an idempotency record, a checkpoint), not the SDK's retry.
	inj, db, plain := clients(t)
	tbl := table(t, db)
	f := inj.Add(faults.Rule{Op: "PutItem", Attempt: true, After: true, Times: 1, Err: faults.ConnectionLost()})

	err := put(context.Background(), db, tbl, "b")

	var ccf *types.ConditionalCheckFailedException
	assert.ErrorAs(t, err, &ccf, "the retried attempt met the first attempt's write")
	assert.Equal(t, 1, f.Fired())
	assert.Equal(t, 1, inj.Calls("PutItem"), "one operation, two attempts")
	assert.True(t, exists(t, plain, tbl, "b"))
}

func TestDelayEndsAtTheCallersDeadline(t *testing.T) {
	inj, db, _ := clients(t)
	tbl := table(t, db)
	inj.Add(faults.Rule{Op: "GetItem", Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()

	start := time.Now()
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &tbl, Key: key("x")})

	assert.ErrorIs(t, err, context.DeadlineExceeded)
	// A bound, not a timing: the call ends with its context, not the delay.
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestHoldUntilReleased(t *testing.T) {
	inj, db, _ := clients(t)
	tbl := table(t, db)
	hold := make(chan struct{})
	inj.Add(faults.Rule{Op: "PutItem", Hold: hold})
	done := make(chan error, 1)
	go func() { done <- put(context.Background(), db, tbl, "held") }()

	select {
	case err := <-done:
		t.Fatalf("the held call returned before its release: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(hold)
	assert.NoError(t, <-done)
}

func TestTableAndMatch(t *testing.T) {
	inj, db, _ := clients(t)
	a, b := table(t, db), table(t, db)
	inj.Add(faults.Rule{Table: a, Err: faults.ServerError()})
	inj.Add(faults.Rule{Op: "PutItem", Match: func(in any) bool {
		return in.(*dynamodb.PutItemInput).Item["k"].(*types.AttributeValueMemberS).Value == "poison"
	}, Err: faults.ServerError()})
	ctx := context.Background()

	var ise *types.InternalServerError
	assert.ErrorAs(t, put(ctx, db, a, "x"), &ise)
	assert.NoError(t, put(ctx, db, b, "x"))
	assert.ErrorAs(t, put(ctx, db, b, "poison"), &ise)
}
