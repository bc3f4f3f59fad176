// Package packedclicks keeps click counts in DynamoDB packed many codes to
// an item, so that counting a click costs a small fraction of a write unit
// instead of several (shared/dynamo, one item per code and
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
//	#s#<g>          20261130!merged         "gen": the generation group g's segments of that day were last merged up to
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
// happens once per bucket-day (again only for late clicks). Nor does a
// chain merge's read: it reads the segments past its group's last merge
// of the day (the "!merged" marker, written once the merge's items are)
// and the top item of each chain it extends, not the day so far.
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
// generation is skipped. A group's merge marker moves only once every
// item of its merge is written, so a run that dies before it makes the
// next merge read more, never less (the argument is at mergedSK).
// Compacted rollups and merged segments are not deleted: TTL deletes
// them for free after Config.RollupRetention, and readers skip them by
// the watermarks and the items' generations.
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
// In the clicks function, after a batch is applied: an instance's first,
// then every few batches (clicksfn.Handler.CompactEvery). No schedule is needed while
// clicks flow: reads count whatever is not compacted or merged yet. Only
// if no click at all arrived for RollupRetention would a closed day's
// segments expire unfolded (see Retention and lag).
//
// # Sizes at the seeds' load, measured
//
// 10 B clicks a month is 333 M a day, 3,858 a second. With the clicks
// function compacting every 16 batches on each of 4 shards, a compaction
// takes about 16 k clicks at that rate, as it does on cmd/cost's stream
// (whose batches are cut at the same rate). Runs of cmd/cost on
// 2026-12-01, on a 2-core machine shared with other builds (load 6 to 12;
// the time changes, not the units), measure every level: one of the
// default layout, and one that scales the layout down so that one group
// and its buckets see what one of the seed's 128 groups sees.
//
// The default layout (128 groups, 8,192 buckets), 2 M clicks over 1 M
// links stamped over 26 simulated hours (13m51s):
//
//	go run ./cmd/cost -design new -records 2000000 -codes 1000000 -span 26h -creates 10 -queries 20
//
// 0.0365 WRU a click (73,003 WRU): rollup and checkpoint transactions
// 0.0180, segment puts 0.0123 (15.7 MB, 7.9 bytes a click, 128 segments of
// about 1 KB a compaction, each rounded up to whole KB), compaction state
// 0.0003, the fold of day one 0.0060; no chain item (no group gathers
// MergeBytes in a day at this volume). Reads while counting 0.004 RRU a
// click. That run's levels above the segments are not the seed's: each of
// its groups gathers 123 KB a day, where a seed group gathers 20 MB.
//
// The seed's group, scaled: 3 M clicks over 10 M links over 26 simulated
// hours, 1 group of 64 buckets, MergeBytes 128 KB (3m50s):
//
//	go run ./cmd/cost -design new -records 3000000 -codes 10000000 -span 26h -groups 1 -buckets 64 -merge-bytes 131072 -creates 10 -queries 20
//
// Why its levels above the segments cost per click what the seed's do. At
// the seed a day is N = 333 M clicks in G = 128 groups of B/G = 64
// buckets; here N = 2.77 M (3 M over 26 hours) in G = 1 group of 64
// buckets, so a group receives N/G = 2.6 M clicks a day at the seed and
// 2.77 M here. What a level writes per item and per click depends only
// on:
//
//   - the clicks a group gathers between two chain merges, which makes
//     the clicks a chain item holds (that over B/G): the seed's group
//     gathers 1 KB of segment a compaction (7.9 B a click over 128 groups)
//     and merges once past 256 KB, every 267 compactions, 33 k of its
//     clicks, 520 a bucket; here the one group gathers 90 KB a compaction
//     (5.6 B a click: one segment a compaction shares its string table and
//     compresses better) and with 128 KB merges every 2 compactions, 32 k
//     clicks, 500 a bucket. (With the default 256 KB it merges every 3,
//     750 a bucket: items of 4.5 KB, 0.0067 WRU a click for the chains,
//     0.0062 for the deletes, 0.089 RRU a click of merge reads before
//     the merge marker.) Under the stream's popularity law (Zipf 1) such
//     an item holds about 240 distinct links at the seed (6 B links) and
//     270 here (10 M), so it is the seed's size, and a group makes about
//     80 chain items a bucket and day at the seed, 86 here;
//   - the clicks a bucket-day holds, N / B: 40.6 k at the seed, 43.3 k here,
//     and its distinct links: about 11,400 at the seed (Zipf 1 over 6 B
//     links: 93 M distinct links a day, an estimate) and 11,700 here (10 M
//     links were chosen for that), so a folded item, and the chain a fold
//     deletes, are the seed's too.
//
// WRU a click of a level is the units of an item over the clicks it
// holds, so these transfer. What does not: the segment puts (one 90 KB
// segment in 2 parts a compaction instead of 128 of 1 KB: less rounding),
// taken from the default run above.
//
// The figures below were measured before the click breakdowns (devices,
// systems, browsers, campaigns and the visitors' registers). With them,
// `make cost` of 2026-12-03 measures 0.0750 WRU and 0.0146 RRU a click at a
// seed group's volume and 0.0749 / 0.0146 at 10x it, and 157.5 RRU for a
// 90-day hourly stats answer: docs/cost-model.md, "Measured", keeps the
// current figures; the reasoning level by level below still holds.
//
// Measured on the scaled run (125,645 WRU, 0.0419 a click over the run;
// the counts checked against a count in memory of the same stream on 550
// links):
//
//   - chain writes: 6,080 chain items of 3,238 bytes on average (a merge
//     adds up a link's clicks, so an item is smaller than its 4 KB of
//     segments), 23,318 WRU, 0.0078 WRU a click (0.0064 to 0.0089 in every
//     simulated hour, no growth over the day);
//   - folds: 64 folded items of 154 KB on average, the largest 158 KB
//     (under the 390 KB this package allows), 9,676 WRU: 0.0035 WRU a
//     click of the day folded (2.77 M);
//   - deletes of the folded chains: 5,568 items, 21,490 WRU, 0.0078 WRU a
//     click of that day;
//   - rollups 0.0180 and compaction state 0.0001, as in the default run.
//
// At the seed's load, each level from the run that has its shape:
// 0.0180 + 0.0003 + 0.0123 + 0.0078 + 0.0035 + 0.0078 = 0.050 WRU a click,
// the same in every hour but the folds' (spread over the hours after
// midnight at the seed: 128 groups, MergeGroups a compaction).
//
// Reads while counting, on the same command after the merge marker (run
// of 2026-12-02, 3m30s; 125,741 WRU, the markers' 95 of them in the chain
// writes): 0.0084 RRU a click (25,198 RRU): the chain merges 0.0034
// (10,241 RRU; each merge reads its marker, its group's segments past it,
// about 128 KB, and the top item of each of 64 chains, 3.2 KB), the
// compaction's state and listing 0.0022, day one's fold 0.0028 (its
// group's whole day of segments and every chain, once a day). Every
// simulated hour reads 0.0046 to 0.0063 RRU a click, hour 24 as hour 0.
// Before it, a merge read every segment of its group's day so far and
// every item of the chains it extended, so the units grew with the hour:
// 0.137 RRU a click over the same run (410,654 RRU, 395,697 of them the
// merges'; 0.006 in hour 0, 0.30 in hour 24; run again on 2026-12-02 on
// the code before the change, 7m: the same WRU and RRU to the unit),
// about 0.027 WRU a click more at the seed's prices.
//
// At 10x a group's volume (27.7 M clicks a day): the same command with
// -span 2h36m stamps the 3 M clicks over a tenth of the time, so the group
// gets them at 10x the seed's rate while batches, compactions and merges
// hold what they hold at the seed (they are cut by clicks, not by time):
// 0.0056 RRU a click in each of its hours (0.0054, 0.0057, 0.0055; the
// seed run's hours without the fold read the same, 0.0056) and 0.0314
// WRU, as the seed run's hours (0.030 to 0.033). Before the marker the
// same run read 0.144 RRU a click, growing by the hour (0.054, 0.168,
// 0.243): by hour 2 near the seed day's hour 24 (0.30). Its 2.6 hours are
// the first 94 merges of a 10x day, as many as the seed run's 26 hours
// (95): a 10x day has about 860, and what the run does not reproduce is
// the merges past the 94th and the 10x day's fold. A merge's reads do not
// depend on the merges before it (its Query starts past the marker, its
// chain reads are one item; TestChainMergeReadsDoNotGrowWithTheDay checks
// it over 40 merges), so those read what the first 94 do; before the
// marker they would have grown on, to about 10x the seed's 0.137 a click
// over the day. A fold
// reads its day once, so its units a click of the day do not grow either,
// but a 10x bucket-day (433 k clicks) may fold into more than the 390 KB
// an item may hold: at 10x a group needs more buckets.
//
// A stats answer (cmd/cost's 90 days hourly and 7 days daily, each one
// View): 85.5 RRU (86.5 for the most clicked link) at the end of the
// scaled run (day one folded, one 154 KB item; two hours of day two in
// chain items and segments); 101.5 RRU (113.5) at the end of a seed-like
// day before its fold (the same command with -records 2770000 -span 24h,
// 3m29s: 86 chain items a bucket, 3,275 bytes on average, and the group's
// segments not merged yet; run before an instance's first batch compacted
// too); 11.5 at the end of the default run (also before). The merge
// marker leaves them as they were: 85.5 (86.5) on the scaled run after it,
// 115.5 (128.5) at the end of the 10x run before and after it.
//
// # Retention and lag
//
// Rollups and segments expire Config.RollupRetention (30 days) after their
// write: a rollup not compacted, or a segment neither merged nor folded,
// by then is lost. The guarantee is the lag: Compaction.Lag (the clicks
// function's CompactionLag metric, milliseconds) is how long the oldest
// rollup a compaction took, or the oldest closed day it left unfolded,
// waited. infra/monitoring alarms on it at a day, 29 days before anything
// is lost, and on its absence for a day while the clicks function runs
// (compactions not finishing). A shard whose checkpoint expired (Config.CheckpointRetention, 31 days after its last batch) has
// no rollups left, and the compaction drops its watermark.
package packedclicks
