// Package packedclicks keeps click counts in DynamoDB packed many codes to
// an item, so that counting a click costs a small fraction of a write unit
// instead of several (clickstore/dynamoclicks, one item per code and
// bucket, 6.8 WRU a click measured by cmd/cost). It implements
// clickstore.Store on the same analytics table (tableschema.Analytics:
// "code" and "bucket" keys, TTL on expires_at), in partitions no code can
// have (codes never contain '#').
//
// # Layout
//
//	code            bucket                  holds
//	#cp             <stream ARN>/<shard>    "seq": the shard's checkpoint (zero-padded to 128 digits)
//	#r#<shard key>  <seq key>#<part>        "data": one chunk's counts (a rollup); "last": its last sequence number
//	#s#<g>          20261130#<gen>#<part>   "data": a segment: one compaction's counts of group g's codes on that day; "of": its parts
//	#d#<b>          20261130                "data": the counts of the codes of bucket b on that UTC day; "gen"
//	#meta           compaction              the compaction's generation, state, per-shard watermarks and open days
//
// A shard key is 64 bits of FNV-1a of the checkpoint name; a seq key is
// the sequence number's digit count (three digits) and its digits, so
// that string order is numeric order. A code's bucket is FNV-1a (32 bits)
// of the code modulo Config.Buckets, and a bucket's group is the bucket
// modulo Config.Groups.
//
// # Levels
//
// Counts go through three levels, each item written once (LSM-like):
//
//   - rollups: one per shard batch, in the checkpoint's transaction;
//   - segments: a compaction writes, per group and day its rollups touch,
//     one immutable segment (in parts of at most 64 KB), keyed by its
//     generation;
//   - day items, per bucket and day, as a chain: once a group has gathered
//     Config.MergeBytes of segments of open days, a compaction merges them
//     into one new item per bucket-day they touch, holding the segments
//     from the chain's top generation (exclusive) to its own (inclusive),
//     keyed by both; once a UTC day has been closed for Config.MergeAfter
//     and no segment of it was written for as long, the compaction folds
//     each of its bucket-days (Config.MergeGroups groups a run) into one
//     item from 0 to its generation and deletes the chain it replaced.
//     Late clicks of a closed day make new segments and reopen the day:
//     they go to its chains while they come, and its next fold adds them.
//
// No write grows with the day's fill: a rollup holds a batch, a segment a
// compaction's batches, a chain item MergeBytes of segments, and the fold
// happens once per bucket-day (again only for late clicks).
//
// "data" is a segment: per UTC day and code, the day's counts, the hours'
// and every breakdown entry (any kind other than hour and day: country,
// referrer host, and whatever kind is added later), with a string table
// for the breakdown values, compressed with DEFLATE. A reader decodes the
// items of its code's bucket and keeps its code.
//
// # Exactly once
//
// Apply writes a chunk's rollup and advances the shard's checkpoint in one
// TransactWriteItems, on the condition that the checkpoint is below the
// chunk's first sequence number (see clickstore): a chunk is one shard
// batch (MaxChunkItems), so a batch of 1,000 clicks is one transaction of
// a checkpoint and a rollup of a few KB.
//
// Compact (compact.go) folds rollups into segments, exactly once, by
// generations: it claims the next generation and the rollups it takes per
// shard (a sequence range past the shard's watermark) in the compaction
// state with a conditional write, writes each segment part under its
// generation if absent, merges closed days (each day item written with a
// condition on the generation it read, stamped with its own, taking the
// segments past it), then moves the watermarks and the open days. A run
// that dies is resumed after its lease with the same rollups, so the same
// segment bytes: a part already there is skipped, an item already at the
// generation is skipped. Compacted rollups and merged segments are not
// deleted: TTL deletes them for free after Config.RollupRetention, and
// readers skip them by the watermarks and the items' generations.
//
// # What a read sees
//
// Counts are as applied: a read sums its code's day items, the complete
// segments of open days past its item's generation, and every rollup past
// the watermarks (less, while a compaction runs, the rollups of its range
// whose segment is complete or whose day item already carries its
// generation). It reads the compaction state before and after, strongly
// consistent, and starts over if it moved, so a read never counts a rollup
// twice or misses one.
//
// # Where compaction runs
//
// In the clicks function, after a batch is applied, every few batches per
// instance (clicksfn.Handler.CompactEvery). No schedule is needed while
// clicks flow: reads count whatever is not compacted or merged yet. Only
// if no click at all arrived for RollupRetention would a closed day's
// segments expire unfolded (see Retention and lag).
//
// # Sizes at the seeds' load
//
// 10 B clicks a month is 333 M a day, 3,858 a second. With the clicks
// function compacting every 16 batches on each of 4 shards, a compaction
// takes about 16 k clicks at that rate, as it does on cmd/cost's stream
// (whose batches are cut at the same rate), so per click the first two
// levels cost what cmd/cost -span 26h measures (docs/cost-model.md):
//
//   - rollups: 0.018 WRU a click (a rollup of about 8 KB per 1,000-click
//     batch, in a transaction at 2 WRU a KB, and the checkpoint);
//   - segments: 7.9 bytes a click, 128 groups of about 1 KB per
//     compaction, 0.013 WRU a click with the rounding up to whole KB.
//
// The day items depend on the day's volume, which no local stream reaches;
// from the measured bytes:
//
//   - chains: a day's segments are 333 M x 7.9 B = 2.6 GB, 20 MB a group;
//     at MergeBytes = 256 KB a group merges about 80 times a day, each time
//     one item of about 4 KB per bucket (64 buckets a group): 2.6 M WRU
//     and 0.3 M more for the rounding, 0.009 WRU a click;
//   - folds: a day holds some 30 M distinct links at about 20 bytes each,
//     600 MB, so Buckets = 8192 makes a folded item about 73 KB (under the
//     390 KB this package allows, far from DynamoDB's 400 KB): 0.6 M WRU,
//     0.002 WRU a click; deleting the 80 chain items of each bucket-day
//     costs their size again, 0.009 WRU a click.
//
// Total about 0.05 WRU a click, the same at any hour of the day. A read of
// a recent day reads its bucket's chain (up to about 80 x 4 KB) and at most
// about MergeBytes of its group's segments: some 150 RRU at the end of a
// seed day, a few hundred KB in two Query pages (not measured at that
// size); a closed day is one item.
//
// # Retention and lag
//
// Rollups and segments expire Config.RollupRetention (30 days) after their
// write: a rollup not compacted, or a segment neither merged nor folded,
// by then is lost. The guarantee is the lag: Compaction.Lag (the clicks
// function's CompactionLag metric, milliseconds) is how long the oldest
// rollup a compaction took, or the oldest closed day it left unfolded,
// waited; alarm on it at a day, 29 days before anything is lost. A shard whose checkpoint
// expired (Config.CheckpointRetention, 31 days after its last batch) has
// no rollups left, and the compaction drops its watermark.
package packedclicks
