package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"deadline", fmt.Errorf("op: %w", context.DeadlineExceeded), true},
		{"no answer at all", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{"throttled", &types.ProvisionedThroughputExceededException{}, true},
		{"request limit", &types.RequestLimitExceeded{}, true},
		{"internal error", &types.InternalServerError{}, true},
		{"transaction in progress", &types.TransactionInProgressException{}, true},
		{"throttling", &types.ThrottlingException{}, true},
		{"transaction conflict", &types.TransactionConflictException{}, true},
		{"canceled by a concurrent transaction", canceled("None", "TransactionConflict"), true},
		{"canceled by throttling", canceled("ThrottlingError", "None"), true},
		{"canceled for throughput", canceled("ProvisionedThroughputExceeded"), true},
		{"canceled by a failed condition", canceled("None", "ConditionalCheckFailed"), false},
		{"canceled by a failed condition and a conflict", canceled("ConditionalCheckFailed", "TransactionConflict"), false},
		{"canceled as invalid", canceled("ValidationError", "None"), false},
		{"canceled without reasons", canceled(), false},
		{"untyped throttling", &smithy.GenericAPIError{Code: "ThrottlingException", Fault: smithy.FaultClient}, true},
		{"untyped transaction conflict", &smithy.GenericAPIError{Code: "TransactionConflictException"}, true},
		{"MRSC replicated write conflict", &types.ReplicatedWriteConflictException{}, true},
		{"untyped MRSC replicated write conflict", &smithy.GenericAPIError{Code: "ReplicatedWriteConflictException", Fault: smithy.FaultClient}, true},
		{"server fault", &smithy.GenericAPIError{Code: "Whatever", Fault: smithy.FaultServer}, true},
		{"caller cancelled", context.Canceled, false},
		{"condition failed", &types.ConditionalCheckFailedException{}, false},
		{"bad request", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, false},
		{"missing table", &types.ResourceNotFoundException{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, dynamo.Unavailable(tt.err))
			assert.Equal(t, tt.want, errors.Is(dynamo.Wrap("get", tt.err), link.ErrUnavailable))
			assert.ErrorIs(t, dynamo.Wrap("get", tt.err), tt.err, "the cause stays inspectable")
		})
	}
	assert.NoError(t, dynamo.Wrap("get", nil))
}

func canceled(codes ...string) error {
	e := &types.TransactionCanceledException{}
	for _, c := range codes {
		e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
	}
	return e
}

func TestConditionFailed(t *testing.T) {
	item := map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: "abc"}}
	tests := []struct {
		name       string
		err        error
		wantFailed bool
		wantOld    map[string]types.AttributeValue
	}{
		{"nil", nil, false, nil},
		{"another error", errors.New("boom"), false, nil},
		{"failed, wrapped, with the old item", fmt.Errorf("put: %w", &types.ConditionalCheckFailedException{Item: item}), true, item},
		{"failed without an item", &types.ConditionalCheckFailedException{}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, failed := dynamo.ConditionFailed(tt.err)
			assert.Equal(t, tt.wantFailed, failed)
			assert.Equal(t, tt.wantOld, old)
		})
	}
}
