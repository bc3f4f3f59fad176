// Package streamconsumer provides the settings every stream-fed function of
// the service shares: partial batch responses, bounded retries, bisection
// on error, a maximum record age and an encrypted SQS on-failure
// destination, so one poison record parks in a queue instead of blocking
// its shard until the record expires.
package streamconsumer
