package faults_test

import (
	"context"
	"errors"
	"os"
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

func TestRepliesDecodeToTheSDKsTypedErrors(t *testing.T) {
	// Each reply goes through the SDK's own deserializer, so the code under
	// test meets exactly the error a real DynamoDB answer would give it.
	tests := []struct {
		name  string
		reply *faults.Reply
		op    string
		check func(t *testing.T, err error)
	}{
		{"throughput exceeded", faults.ReplyThroughputExceeded(), "PutItem", func(t *testing.T, err error) {
			var e *types.ProvisionedThroughputExceededException
			require.ErrorAs(t, err, &e)
			require.Len(t, e.ThrottlingReasons, 1)
			assert.Equal(t, "TableWriteProvisionedThroughputExceeded", aws.ToString(e.ThrottlingReasons[0].Reason))
		}},
		{"request limit exceeded", faults.ReplyRequestLimitExceeded(), "PutItem", func(t *testing.T, err error) {
			var e *types.RequestLimitExceeded
			require.ErrorAs(t, err, &e)
		}},
		{"throttling", faults.ReplyThrottling(), "PutItem", func(t *testing.T, err error) {
			var e *types.ThrottlingException
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "ThrottlingException", e.ErrorCode())
		}},
		{"transaction conflict", faults.ReplyTransactionConflict(), "PutItem", func(t *testing.T, err error) {
			var e *types.TransactionConflictException
			require.ErrorAs(t, err, &e)
		}},
		{"MRSC replicated write conflict", faults.ReplyReplicatedWriteConflict(), "PutItem", func(t *testing.T, err error) {
			var e *types.ReplicatedWriteConflictException
			require.ErrorAs(t, err, &e)
		}},
		{"transaction canceled", faults.ReplyTransactionCanceled("None", "TransactionConflict"), "TransactWriteItems", func(t *testing.T, err error) {
			var e *types.TransactionCanceledException
			require.ErrorAs(t, err, &e)
			require.Len(t, e.CancellationReasons, 2)
			assert.Equal(t, "None", aws.ToString(e.CancellationReasons[0].Code))
			assert.Equal(t, "TransactionConflict", aws.ToString(e.CancellationReasons[1].Code))
			assert.Equal(t, "Transaction is ongoing for the item", aws.ToString(e.CancellationReasons[1].Message))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inj, db, plain := clients(t)
			tbl := table(t, db)
			f := inj.Add(faults.Rule{Op: tt.op, Reply: tt.reply})
			var err error
			if tt.op == "TransactWriteItems" {
				_, err = db.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: &tbl, Item: key("t1")}},
					{Put: &types.Put{TableName: &tbl, Item: key("t2")}},
				}})
			} else {
				err = put(context.Background(), db, tbl, "r")
			}
			tt.check(t, err)
			assert.Equal(t, 1, f.Fired(), "one operation")
			assert.False(t, exists(t, plain, tbl, "r") || exists(t, plain, tbl, "t1"), "nothing was written")
		})
	}
}

func TestReplyCanceledIsShapedAsDynamoDBLocalAnswers(t *testing.T) {
	// Captured from DynamoDB Local: a two-item transaction whose second
	// put's condition failed.
	want, err := os.ReadFile("testdata/transaction-canceled-dynamodb-local.json")
	require.NoError(t, err)
	got := faults.ReplyTransactionCanceled("None", "ConditionalCheckFailed")
	assert.Equal(t, 400, got.Status)
	assert.JSONEq(t, string(want), string(got.Body))
}

func TestRepliesAreRetriedAsTheSDKRetriesRealOnes(t *testing.T) {
	tests := []struct {
		name    string
		reply   *faults.Reply
		retried bool
	}{
		{"throughput exceeded", faults.ReplyThroughputExceeded(), true},
		{"request limit exceeded", faults.ReplyRequestLimitExceeded(), true},
		{"throttling", faults.ReplyThrottling(), true},
		{"transaction conflict", faults.ReplyTransactionConflict(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inj, db, plain := clients(t)
			tbl := table(t, db)
			// One attempt answered with the reply; the next one, if the SDK
			// makes it, reaches DynamoDB Local.
			f := inj.Add(faults.Rule{Op: "PutItem", Attempt: true, Times: 1, Reply: tt.reply})
			err := put(context.Background(), db, tbl, "x")
			assert.Equal(t, 1, f.Fired())
			if tt.retried {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
			assert.Equal(t, tt.retried, exists(t, plain, tbl, "x"))
		})
	}
}

func TestReplyAfterTheWriteTookEffect(t *testing.T) {
	inj, db, plain := clients(t)
	tbl := table(t, db)
	inj.Add(faults.Rule{Op: "PutItem", After: true, Times: 1, Reply: faults.ReplyTransactionConflict()})

	err := put(context.Background(), db, tbl, "w")

	var e *types.TransactionConflictException
	assert.ErrorAs(t, err, &e)
	assert.True(t, exists(t, plain, tbl, "w"), "the write took effect; only its answer was replaced")
}
