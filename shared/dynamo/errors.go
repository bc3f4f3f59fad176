package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Unavailable reports whether err means DynamoDB did not answer in time or
// refused for load: a deadline, no answer at all, a server fault,
// throttling, or a conflict with a write in progress on the same item.
func Unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	// No API error at all means the request never got an answer: a refused
	// or reset connection, a DNS failure. Worth a retry.
	var api smithy.APIError
	if !errors.As(err, &api) {
		return !errors.Is(err, context.Canceled)
	}
	if api.ErrorFault() == smithy.FaultServer {
		return true
	}
	var (
		throttled *types.ProvisionedThroughputExceededException
		limit     *types.RequestLimitExceeded
		internal  *types.InternalServerError
		inflight  *types.TransactionInProgressException
		throttle  *types.ThrottlingException
		conflict  *types.TransactionConflictException
		canceled  *types.TransactionCanceledException
		// A client fault by its type, yet only a race with another Region.
		replicated *types.ReplicatedWriteConflictException
	)
	switch {
	case errors.As(err, &throttled), errors.As(err, &limit), errors.As(err, &internal),
		errors.As(err, &inflight), errors.As(err, &throttle), errors.As(err, &conflict),
		errors.As(err, &replicated):
		return true
	case errors.As(err, &canceled):
		return canceledForLoad(canceled)
	}
	// An error the SDK did not type (a shape ID it does not know, or a
	// generic error from a layer in between) still carries DynamoDB's code.
	_, busy := busyCodes[api.ErrorCode()]
	return busy
}

// busyCodes are the error codes of throttling and conflicts, for errors
// that reach us without the SDK's types.
var busyCodes = map[string]struct{}{
	"ProvisionedThroughputExceededException": {},
	"RequestLimitExceeded":                   {},
	"ThrottlingException":                    {},
	"TransactionConflictException":           {},
	"TransactionInProgressException":         {},
	"ReplicatedWriteConflictException":       {},
}

// canceledForLoad reports whether a canceled transaction failed only
// because of load or a concurrent writer: some item's reason is a
// conflict or throttling, and none is a verdict on the request itself (a
// failed condition, a validation error, a full item collection), which a
// retry would meet again.
func canceledForLoad(e *types.TransactionCanceledException) bool {
	busy := false
	for _, r := range e.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "", "None":
		case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
			busy = true
		default:
			return false
		}
	}
	return busy
}

// ConditionFailed reports whether err is DynamoDB refusing a write for its
// condition and, when the write asked for it
// (ReturnValuesOnConditionCheckFailure ALL_OLD), the item as it was; that
// item is nil when there was none or the write did not ask.
func ConditionFailed(err error) (old map[string]types.AttributeValue, failed bool) {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, false
	}
	return ccf.Item, true
}

// conditionFailed reports whether err is DynamoDB refusing a write for its
// condition, for a caller that needs no item.
func conditionFailed(err error) bool {
	_, failed := ConditionFailed(err)
	return failed
}

// Wrap adds context to err and marks an unavailable one with
// link.ErrUnavailable; nil stays nil.
func Wrap(context string, err error) error {
	if err == nil {
		return nil
	}
	if Unavailable(err) {
		return fmt.Errorf("%s: %w: %w", context, link.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", context, err)
}
