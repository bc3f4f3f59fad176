// Package dynamoerr tells which DynamoDB errors are worth a retry: the
// ones that mean "slow or down", not "you asked for something wrong". Both
// DynamoDB adapters (links and analytics) map these to link.ErrUnavailable,
// which the API answers with a retryable 503.
package dynamoerr

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Unavailable reports whether err means DynamoDB did not answer in time or
// refused for load: a deadline, no answer at all, a server fault,
// throttling or a transaction in progress.
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
	)
	return errors.As(err, &throttled) || errors.As(err, &limit) || errors.As(err, &internal) ||
		errors.As(err, &inflight) || errors.As(err, &throttle)
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
