// Package faults injects failures into AWS SDK calls, for tests that show
// how the service behaves when DynamoDB (or Kinesis, or DynamoDB Streams)
// is slow, throttles, fails, or answers a request whose answer never comes
// back. It is an SDK middleware, installed through a client's APIOptions,
// so the code under test runs unchanged against a real emulator with the
// fault in between:
//
//	inj := faults.New()
//	db := emulator.NewDynamoDBClient(endpoint, inj.DynamoDB)
//	f := inj.Add(faults.Rule{Op: "TransactWriteItems", After: true, Err: faults.ConnectionLost(), Times: 1})
//	... the code under test uses db ...
//	f.Fired() // 1
//
// A Rule fails or delays the operations it matches. By default it acts
// once per operation, outside the SDK's retry loop, so the caller sees the
// fault as the operation's result; with Attempt it acts on every HTTP
// attempt inside that loop, so the SDK retries what it deems retryable, as
// it would a real fault. With After the call is made first and its answer
// discarded: the write happened, and the caller cannot know — the case a
// retry must make safe.
//
// A Rule's Err is handed to the caller as it is. A Rule's Reply is
// DynamoDB's error answer as it comes over the wire (HTTP 400 and a JSON
// body naming the error's shape): the SDK's own deserializer turns it into
// its typed error, cancellation reasons and all, and its retryer retries
// it or not as it would a real one. Throttling and transaction conflicts
// are injected that way (ReplyThroughputExceeded, ReplyThrottling,
// ReplyRequestLimitExceeded, ReplyTransactionConflict,
// ReplyTransactionCanceled); the bodies are in wire/.
package faults
