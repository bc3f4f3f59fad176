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

// OptionalN reads item's number attribute name, for an attribute an item
// may lack: ok is false when it is absent (n is 0) or not a decimal
// integer (n is what strconv.ParseInt made of it).
func OptionalN(item map[string]types.AttributeValue, name string) (n int64, ok bool) {
	v, isN := item[name].(*types.AttributeValueMemberN)
	if !isN {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil
}
