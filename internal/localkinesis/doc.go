// Package localkinesis is the Kinesis side of the local run, against
// kinesalite: it creates the click stream (EnsureStream), writes real-time
// log records to it the way CloudFront does (Writer), and plays the Lambda
// event source mapping that feeds the stream to the clicks function
// (Poller), so the function's real handler runs unchanged.
//
// # Writer
//
// Writer collects clicklog records and sends them with PutRecords, at most
// 500 records (and 5 MiB) per call, when 500 are waiting or every
// FlushInterval (100 ms), whichever comes first. Each record is one log
// line, clicklog.Format's output with its newline, as CloudFront writes one
// line per Kinesis record; the partition key is the edge request id, so
// records spread over the shards as CloudFront's do. Records PutRecords
// reports as failed (throttling) are sent again, a bounded number of
// times, then dropped and counted: real-time logs are best effort in AWS
// too.
//
// The Writer does not go through the SDK's PutRecords: it appends each
// record to the next call's JSON body as it is written (base64 line,
// JSON-escaped partition key), and HTTPSender posts that body in Kinesis's
// JSON 1.1 protocol, signed with the SDK's SigV4 signer, to a
// kinesis.Client's endpoint, region and credentials. In the local run the
// edge writes a record per redirect on the cores the redirects run on;
// the SDK's generic serializer and its decoded result per record cost
// more than twice as much (BenchmarkWriterRecord).
//
// # Poller
//
// Poller reads every shard of a stream, each in its own goroutine, with
// GetShardIterator (TRIM_HORIZON, as the deployed mapping starts) and
// GetRecords, and calls the handler with events.KinesisEvent batches
// shaped exactly as Lambda delivers them:
//
//	{"Records": [{
//	  "kinesis": {"kinesisSchemaVersion": "1.0", "partitionKey": "...",
//	    "sequenceNumber": "4959...", "data": "<base64>",
//	    "approximateArrivalTimestamp": 1796040002.5},
//	  "eventSource": "aws:kinesis", "eventVersion": "1.0",
//	  "eventID": "shardId-000000000000:4959...",
//	  "eventName": "aws:kinesis:record",
//	  "invokeIdentityArn": "arn:aws:iam::000000000000:role/...",
//	  "awsRegion": "us-east-1",
//	  "eventSourceARN": "arn:aws:kinesis:us-east-1:000000000000:stream/..."}]}
//
// The event travels through JSON on its way to the handler, as it does in
// Lambda, so the handler decodes exactly what it would there.
//
// The delivery itself is internal/localmapping's, shared with the DynamoDB
// Streams poller; the Poller is its Kinesis source. Like a mapping with
// ReportBatchItemFailures and ParallelizationFactor 1
// (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html),
// it hands a shard's records over in order, one batch at a time; when the
// handler reports batch item failures it retries from the lowest failed
// sequence number (a handler error, or an itemIdentifier that is empty or
// names no record of the batch, fails the whole batch), waiting RetryDelay,
// doubled each time; after MaxRetries retries it gives the batch up to
// OnFailure, the stand-in for an on-failure destination, which by default
// logs the batch's shard and sequence number range, and moves on. A shard
// closed by a resharding is read to its end before its children, so
// records of one partition key stay in order. MaximumBatchingWindow is
// BatchWindow: records are gathered for up to that long, or until
// BatchSize are in hand, before the handler is called.
//
// What it leaves out: BisectBatchOnFunctionError, MaximumRecordAge,
// tumbling windows and enhanced fan-out.
package localkinesis
