package dynamo

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The attribute values every item is written with: strings, and numbers
// in decimal, times as epoch seconds or milliseconds as each attribute's
// comment in tableschema says.

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func seconds(t time.Time) types.AttributeValue { return num(t.Unix()) }

func millis(t time.Time) types.AttributeValue { return num(t.UnixMilli()) }
