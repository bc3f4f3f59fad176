// Package dynamoclicks keeps click counts in DynamoDB: the analytics
// table's item layout, the exactly-once apply of a chunk of increments as
// one transaction, and the queries behind the stats API. It is the
// DynamoDB implementation of clickstore.Store.
//
// # Table layout
//
// One table (tableschema.Analytics), keyed by "code" (partition key: the
// link's storage key) and "bucket" (sort key). Every counter item carries
// "total", "human" and "bot" (numbers, updated with ADD) and "expires_at"
// (epoch seconds, the TTL attribute), set from the bucket's start so a
// redelivered write cannot move it:
//
//	code     bucket                       counts per
//	Ab3dE5g  h#2026113012                 hour (UTC)             kept Config.HourRetention
//	Ab3dE5g  d#20261130                   day (UTC)              kept Config.DayRetention
//	Ab3dE5g  c#20261130#DE                day and country        kept Config.DayRetention
//	Ab3dE5g  r#20261130#news.example.com  day and referrer host  kept Config.DayRetention
//
// The prefixes keep each kind contiguous, so every stats query is one
// Query with "bucket BETWEEN": zero-padded UTC digits sort like time.
// Country and referrer items are per day only: per hour they would
// multiply the items a batch writes for little use.
//
// Checkpoints live in the same table under a partition key no code can
// have (codes never contain '#'): code "#shard#<stream ARN>/<shard ID>",
// bucket "checkpoint", attribute "seq" holding the highest Kinesis sequence
// number applied, zero-padded to 128 digits.
//
// # Exactly once
//
// Apply writes a chunk's increments and advances its shard's checkpoint in
// one TransactWriteItems, on the condition that the checkpoint is below
// the chunk's first sequence number (see clickstore for why a
// checkpoint). Sequence numbers are decimal strings of up to 128 digits;
// padding them with zeros to that width lets DynamoDB compare them as
// strings in the condition.
//
// The checkpoint item expires after Config.CheckpointRetention without
// writes, which must exceed the event source mapping's
// MaximumRecordAgeInSeconds so no redelivery can outlive it; expiry also
// clears the checkpoints of closed shards.
package dynamoclicks
