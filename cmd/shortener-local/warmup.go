package main

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// warmUpTimeout bounds the warm-up; it is best effort.
const warmUpTimeout = 30 * time.Second

// warmUp sends DynamoDB Local one call of each kind the handlers make
// before the gateway reports ready. A freshly started JVM takes a second or
// more over its first PutItem, GetItem and transaction, longer than the
// handlers' DynamoDB timeouts (2 s, and 500 ms on the redirect path), so
// without this the first create or redirect after start-up can answer 503.
// Every call is built to change nothing: a read of a key no code can have
// and writes whose condition cannot hold. Failures are ignored; the
// handlers report real ones.
func warmUp(ctx context.Context, db *dynamodb.Client, links, idempotency string) {
	ctx, cancel := context.WithTimeout(ctx, warmUpTimeout)
	defer cancel()
	// "~" is in neither the code alphabet nor the alias syntax.
	key := map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: "~warm-up"}}
	never := aws.String("attribute_exists(" + tableschema.AttrCode + ") AND attribute_not_exists(" + tableschema.AttrCode + ")")
	_, _ = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &links, Key: key})
	_, _ = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &links, Item: key, ConditionExpression: never})
	_, _ = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: &links, Key: key, ConditionExpression: never}},
	}})
	_, _ = db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &idempotency,
		Key:            map[string]types.AttributeValue{tableschema.AttrIdemPK: &types.AttributeValueMemberS{Value: "~warm-up"}},
		ConsistentRead: aws.Bool(true),
	})
}
