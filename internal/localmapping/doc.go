// Package localmapping plays, for the local run, the Lambda event source
// mapping that feeds a stream to a function, once for every kind of
// stream: a Mapping reads the shards a Source lists and hands the
// function batches of the AWS-shaped event the Source builds, calling it
// in process as the Lambda runtime would (Invoke). The DynamoDB Streams
// poller (internal/localstream) and the Kinesis poller
// (internal/localkinesis) are Sources over it; they say how to list
// shards, read records from a position, build the event of a batch, and
// read the item identifiers of the function's partial-failure response.
//
// A Mapping behaves like a mapping with ReportBatchItemFailures on and
// ParallelizationFactor 1, as the Lambda developer guide describes it
// (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html,
// https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html,
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventsourcemapping.html):
//
//   - Each shard is read in order, one batch at a time, every shard at
//     once; a shard closed by a split or merge is read to its end before
//     its children, so the records of one key stay in order.
//   - When the function reports batch item failures, the checkpoint stays
//     at the lowest sequence number it reports and the batch is retried
//     from there. A function error (a panic included), or an
//     itemIdentifier that is empty or names no record of the batch, fails
//     the whole batch.
//   - A failed batch is retried MaxRetries times (MaximumRetryAttempts),
//     after RetryDelay, doubled each time up to 10 s; then it is given up to
//     OnFailure, the stand-in for an on-failure destination
//     (https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html,
//     https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html),
//     and the shard moves on past it.
//   - BatchSize bounds a batch; BatchWindow is MaximumBatchingWindowInSeconds
//     (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html).
//
// What it leaves out: BisectBatchOnFunctionError, MaximumRecordAgeInSeconds
// (records are retried MaxRetries times whatever their age), tumbling
// windows, filters and enhanced fan-out.
package localmapping
