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
// Three levels, each written once per what it holds (LSM-like):
//
//   - rollups: one per shard batch, in the checkpoint's transaction;
//   - segments: a compaction writes, per group and day its rollups touch,
//     one immutable segment (split in parts of at most 64 KB), keyed by its
//     generation, never rewritten;
//   - day items: once a UTC day has been closed for Config.MergeAfter, the
//     compaction merges its segments, Config.MergeGroups groups a run, into
//     one item per bucket and day. Late clicks of a closed day make a new
//     segment and reopen the day; its next merge adds them to the items.
//
// So a click is written three times (a rollup, a segment, a day item), and
// no write grows with the day's fill. The day item is the only item
// rewritten, and only for late clicks.
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
// instance (clicksfn.Handler.CompactEvery). No schedule is needed: with no
// clicks there is nothing to compact, and reads count the rollups left.
//
// # Sizes at the seeds' load
//
// 10 B clicks a month is 333 M a day, 3,858 a second, over tens of
// millions of distinct codes a day. A code-day encodes to about 20 bytes
// compressed (day and hour counts, a country, a referrer host), so a day
// holds about 30 M x 20 B = 600 MB of counts:
//
//   - day items: with Buckets = 8192 a bucket-day holds about 3,700 codes,
//     73 KB, under the 390 KB this package allows and far from the 400 KB
//     limit; written once a day: 600 MB / 1 KB = 0.6 M WRU, 0.002 WRU a
//     click;
//   - segments: with Groups = 128 a compaction of 16 batches (16 k clicks,
//     about 400 KB of rollups) writes 128 segments of about 3 KB: 0.016
//     WRU a click measured (cmd/cost -span), whatever the day's fill;
//   - rollups: a rollup of about 25 KB per 1,000-click batch in a
//     transaction (2 WRU a KB) with the checkpoint: 0.018 WRU a click
//     measured.
//
// Total about 0.036 WRU a click, flat over the day (cmd/cost -span 26h,
// docs/cost-model.md).
//
// # Where it does not hold yet
//
// Reads of a day not merged yet (today, and yesterday until it is) read
// the code's group's segments of that day: at the seeds' load about
// 600 MB / 128 = 5 MB by the end of the day, some 1,200 RRU and several
// Query pages per stats answer, too slow for the 50 ms goal. Fewer bytes
// per read need a tier between segments and day items (segments merged per
// bucket and hour once an hour closes), not built. Until then this layout
// is a setting (SHORTENER_CLICK_STORE=packed), not the default.
//
// # Retention and lag
//
// Rollups and segments expire Config.RollupRetention (30 days) after their
// write: a compaction that lags longer loses them. Compaction.Lag (the
// clicks function's CompactionLag metric) is how long the oldest rollup a
// compaction took waited: alarm on it at a day. A shard whose checkpoint
// expired (Config.CheckpointRetention, 31 days after its last batch) has
// no rollups left, and the compaction drops its watermark.
package packedclicks
