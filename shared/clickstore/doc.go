// Package clickstore defines how click counts are kept: the counters (per
// code and hour, day, country or referrer), the chunks of increments a
// consumer applies exactly once per Kinesis shard, the Store the functions
// call, and Memory, an in-process Store with the same behaviour as the
// DynamoDB adapter in shared/dynamo. Both pass the one behaviour
// suite in clickstore/clickstoretest. Counts never touch the link item: a
// viral link would make its item a hot key, and the redirect path reads it.
//
// # Exactly once
//
// Lambda delivers Kinesis records at least once: a batch is retried after a
// reported failure, a timeout or a crash, and may come back with different
// boundaries. A store keeps, per shard, a checkpoint: the highest sequence
// number applied. Apply adds a chunk's increments and advances its shard's
// checkpoint together, and only if the checkpoint is below the chunk's
// first sequence number. Either the counts and the checkpoint move
// together or neither does, so a chunk that was applied cannot apply
// again: Apply answers ErrApplied. The consumer then reads the checkpoint
// (Checkpoint) and skips the records at or below it. Sequence numbers are
// decimal strings of up to 128 digits (MaxSequenceDigits), compared as
// numbers (CompareSequence).
//
// We chose a checkpoint over a dedup record per batch or per request
// because it costs one extra item per transaction instead of one per
// record or a read before every write, and it stays correct when a retried
// batch is cut differently from the first attempt. It needs one consumer
// per shard at a time (ParallelizationFactor 1): parallel batches of one
// shard would race for the checkpoint.
//
// A DynamoDB transaction holds at most 100 actions, so a consumer splits a
// batch into ordered chunks of at most MaxItems counter items plus the
// checkpoint.
package clickstore
