// Package clickstore keeps click counts in DynamoDB. It owns the analytics
// table's layout, the exactly-once apply of a chunk of increments, and the
// queries behind the stats API. Counts never touch the link item: a viral
// link would make its item a hot key, and the redirect path reads it.
//
// # Table layout
//
// One table, keyed by "code" (partition key: the link's storage key) and
// "bucket" (sort key). Every counter item carries "total", "human" and
// "bot" (numbers, updated with ADD) and "expires_at" (epoch seconds, the TTL
// attribute), set from the bucket's start so a redelivered write cannot
// move it:
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
// Lambda delivers Kinesis records at least once: a batch is retried after a
// reported failure, a timeout or a crash, and may come back with different
// boundaries. Apply writes a chunk's increments and advances its shard's
// checkpoint in one TransactWriteItems, on the condition that the
// checkpoint is below the chunk's first sequence number. Either the counts
// and the checkpoint move together or neither does, so a chunk that was
// applied cannot apply again: its condition fails and Apply answers
// ErrApplied. The consumer then reads the checkpoint (Checkpoint) and skips
// the records at or below it. Sequence numbers are decimal strings of up to
// 128 digits; padding them with zeros to that width lets DynamoDB compare
// them as strings in the condition.
//
// We chose a checkpoint over a dedup item per batch or per request because
// it costs one extra item per transaction instead of one per record or a
// read before every write, and it stays correct when a retried batch is cut
// differently from the first attempt. It needs one consumer per shard at a
// time (ParallelizationFactor 1): parallel batches of one shard would race
// for the checkpoint. The checkpoint item expires after
// Config.CheckpointRetention without writes, which must exceed the event
// source mapping's MaximumRecordAgeInSeconds so no redelivery can outlive
// it; expiry also clears the checkpoints of closed shards.
//
// A transaction holds at most 100 actions, so a consumer splits a batch
// into ordered chunks of at most MaxItems counter items plus the checkpoint.
package clickstore
