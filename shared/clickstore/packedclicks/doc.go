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
//	#d#<b>          20261130                "data": the counts of the codes of bucket b on that UTC day; "gen"
//	#meta           compaction              the compaction's generation, state and per-shard watermarks
//
// A shard key is 64 bits of FNV-1a of the checkpoint name; a seq key is
// the sequence number's digit count (three digits) and its digits, so
// that string order is numeric order. A code's bucket is FNV-1a (32 bits)
// of the code modulo Config.Buckets.
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
// Compact (compact.go) folds rollups into the day items, exactly once, by
// generations: it claims the next generation and the rollups it takes per
// shard (a sequence range past the shard's watermark) in the compaction
// state with a conditional write, writes each day item with a condition on
// the generation it read and stamps it with its own, then moves the
// watermarks. A run that dies is resumed after its lease with the same
// rollups; an item it already wrote carries the generation and is skipped.
// Compacted rollups are not deleted: TTL deletes them for free after
// Config.RollupRetention, and readers skip them by the watermarks.
//
// # What a read sees
//
// Counts are as applied: a read sums its code's day items and every rollup
// past the watermarks (less, while a compaction runs, the rollups of its
// range whose day item already carries its generation). It reads the
// compaction state before and after, strongly consistent, and starts over
// if it moved, so a read never counts a rollup twice or misses one. A read
// costs, besides its day items, the rollups not yet compacted, which the
// clicks function bounds by compacting after every few batches.
//
// # Where compaction runs
//
// In the clicks function, after a batch is applied, every few batches per
// instance (clicksfn.Handler.CompactEvery). No schedule is needed: with no
// clicks there is nothing to compact, and reads count the rollups left.
//
// # Where it does not hold yet
//
// A compaction rewrites every day item it touches whole, so its cost grows
// with what the day's items hold, and at a sustained high rate the items
// outgrow DynamoDB's 400 KB (Compact then fails, naming the item). cmd/cost
// measures it on a short stream, where items start empty; docs/cost-model.md
// says what it takes to hold all day (a level of immutable segments between
// the rollups and the day items). Until then this layout is a setting
// (SHORTENER_CLICK_STORE=packed), not the default.
package packedclicks
