package packedclicks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Compaction says what one Compact did.
type Compaction struct {
	// Gen is the generation it ran (or found running); 0 when there was
	// nothing to compact.
	Gen int64
	// Busy: another compaction was running and within its lease.
	Busy bool
	// Resumed: it finished a compaction an earlier run left unfinished.
	Resumed bool
	// Rollups and Items are the rollup parts it read and the segment
	// parts it wrote; Skipped the segment parts it found already written
	// by its generation (a resumed run's earlier attempt); Merged the day
	// items it wrote merging closed days' segments.
	Rollups, Items, Skipped, Merged int
	// SegmentBytes is the encoded size of the segments it wrote.
	SegmentBytes int
	// Folded is how many of the Merged day items were folds of closed
	// days (the rest are new items of chains); ChainBytes and FoldBytes
	// their encoded sizes, LargestDayItem the largest one's; Deleted the
	// chain items the folds replaced and deleted.
	Folded, Deleted                       int
	ChainBytes, FoldBytes, LargestDayItem int
	// Lag is how long the oldest rollup it took, or the oldest closed day
	// it left unfolded, waited: the metric to alarm on, far below
	// Config.RollupRetention.
	Lag time.Duration
}

// Hook, when set, is called by Compact after it wrote the nth segment part
// (1-based) and before the next: tests stop a compaction there, as a crash
// or a timeout would.
type Hook func(n int) error

// Compact folds the rollups applied so far into the compacted day items,
// exactly once, and can run anywhere, any number of times, concurrently:
//
//  1. It reads the compaction state. If a compaction is running within its
//     lease, it leaves it alone (Busy). If one is running past its lease
//     (its runner died), it resumes it: same generation, same rollups.
//  2. Otherwise it lists the rollups past each shard's watermark (up to
//     Config.CompactBytes) and claims the next generation with a
//     conditional write of the state: the ranges it takes per shard, the
//     generation, running. A concurrent claim fails its condition.
//  3. It merges the rollups per bucket and day and writes each day item
//     with the generation, on the condition that the item is still at the
//     generation it read: an item already at this generation (written by
//     an earlier attempt of the same run) is skipped, so no rollup is
//     added twice.
//  4. It moves the watermarks to the ranges' ends and marks the state done.
//
// Compacted rollups are left to expire (TTL deletes are free); readers
// skip them by the watermarks.
func (s *Store) Compact(ctx context.Context) (Compaction, error) {
	return s.compact(ctx, nil)
}

// CompactWithHook is Compact with a hook between item writes, for tests.
func (s *Store) CompactWithHook(ctx context.Context, hook Hook) (Compaction, error) {
	return s.compact(ctx, hook)
}

func (s *Store) compact(ctx context.Context, hook Hook) (Compaction, error) {
	ctx = withLevel(ctx, LevelCompaction)
	var res Compaction
	m, err := s.readMeta(ctx)
	if err != nil {
		return res, err
	}
	now := s.cfg.Now()
	rolls, done, err := s.claim(ctx, &m, now, &res)
	if err != nil || done {
		return res, err
	}
	res.Gen, res.Rollups = m.gen, len(rolls)
	segs, err := s.segments(rolls, m.gen, now, &res)
	if err != nil {
		return res, err
	}
	sizes, err := s.writeSegments(ctx, segs, hook, &res)
	if err != nil {
		return res, err
	}
	open, pend, touched, err := s.merge(ctx, m, sizes, now, &res)
	if err != nil {
		return res, err
	}
	return res, s.settle(ctx, m, open, pend, touched)
}

// claim takes the run a compaction works on: the one running past its
// lease, resumed with its rollups and its lease taken over, or the next
// generation with the rollups past the watermarks, claimed in m. done
// says there is nothing for this call to do (another runner holds the
// lease, or nothing is due), and res then says what it found.
func (s *Store) claim(ctx context.Context, m *meta, now time.Time, res *Compaction) (rolls []rollup, done bool, err error) {
	if m.running {
		if now.UnixMilli()-m.started < s.cfg.Lease.Milliseconds() {
			*res = Compaction{Gen: m.gen, Busy: true}
			return nil, true, nil
		}
		res.Resumed = true
		if rolls, err = s.runRollups(ctx, *m); err != nil {
			return nil, true, err
		}
		// Take the lease over, so that two late runners do not both resume.
		if err := s.writeMeta(ctx, *m, m.gen, true, m.run, now); err != nil {
			if isConditionFailed(err) {
				*res = Compaction{Gen: m.gen, Busy: true}
				return nil, true, nil
			}
			return nil, true, err
		}
		return rolls, false, nil
	}
	run, rolls, err := s.claimable(ctx, *m)
	if err != nil {
		return nil, true, err
	}
	if len(rolls) == 0 && !s.mergeDue(*m, now) {
		return nil, true, nil
	}
	if err := s.writeMeta(ctx, *m, m.gen+1, true, run, now); err != nil {
		if isConditionFailed(err) {
			*res = Compaction{Gen: m.gen + 1, Busy: true}
			return nil, true, nil
		}
		return nil, true, err
	}
	m.gen, m.running, m.run = m.gen+1, true, run
	return rolls, false, nil
}

// segments sums the run's rollups into one segment per group and day of
// generation gen, the run's counts to be written once, and notes in res
// how long the oldest rollup waited.
func (s *Store) segments(rolls []rollup, gen int64, now time.Time, res *Compaction) (map[segID]segment, error) {
	segs := map[segID]segment{}
	for _, r := range rolls {
		seg, err := decodeSegment(r.data, "")
		if err != nil {
			return nil, fmt.Errorf("rollup %s of shard %s: %w", r.first, r.shard, err)
		}
		if r.expires > 0 {
			res.Lag = max(res.Lag, now.Sub(time.Unix(r.expires, 0).Add(-s.cfg.RollupRetention)))
		}
		for day, codes := range seg {
			for code, c := range codes {
				id := segID{group: s.groupOf(s.bucketOf(code)), day: day, gen: gen}
				d := segs[id]
				if d == nil {
					d = segment{}
					segs[id] = d
				}
				d.get(day, code).add(c)
			}
		}
	}
	return segs, nil
}

// writeSegments writes the segments, day by day and eight at a time,
// calling hook after each part written, and returns each one's encoded
// size.
func (s *Store) writeSegments(ctx context.Context, segs map[segID]segment, hook Hook, res *Compaction) (map[segID]int, error) {
	ids := slices.SortedFunc(maps.Keys(segs), func(a, b segID) int {
		if a.day != b.day {
			return int(a.day - b.day)
		}
		return a.group - b.group
	})
	var (
		mu      sync.Mutex
		written int
		sizes   = map[segID]int{}
	)
	err := each(ctx, ids, 8, func(ctx context.Context, id segID) error {
		n, skipped, size, err := s.writeSegment(ctx, id, segs[id])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			return err
		}
		res.Skipped += skipped
		res.Items += n
		res.SegmentBytes += size
		sizes[id] = size
		for range n {
			written++
			if hook != nil {
				if err := hook(written); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return sizes, err
}

// merge records the run's segments in the compaction state: the days it
// wrote segments of are open (again) from their lowest such group and
// touched now, and its groups' unmerged bytes grow. Then it spends the
// run's MergeGroups on folding closed days and on the chains of open ones,
// and returns the state's new open days, pending bytes and touch times.
func (s *Store) merge(ctx context.Context, m meta, sizes map[segID]int, now time.Time, res *Compaction) (open map[string]int, pend map[int]int, touched map[string]int64, err error) {
	open, pend, touched = maps.Clone(m.open), maps.Clone(m.pend), maps.Clone(m.touched)
	for id, size := range sizes {
		d := daySK(id.day)
		if next, ok := open[d]; !ok || id.group < next {
			open[d] = id.group
		}
		pend[id.group] += size
		touched[d] = now.Unix()
	}
	budget := s.cfg.MergeGroups
	current, err := s.foldClosed(ctx, m.gen, open, touched, now, &budget, res)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.extendChains(ctx, m.gen, pend, current, budget, res); err != nil {
		return nil, nil, nil, err
	}
	return open, pend, touched, nil
}

// foldClosed folds closed days, a few groups a run (budget): each group
// of the day into one day item, in order, until every group is folded
// and the day leaves open and touched. It returns the days still open.
func (s *Store) foldClosed(ctx context.Context, gen int64, open map[string]int, touched map[string]int64, now time.Time, budget *int, res *Compaction) ([]int64, error) {
	var current []int64
	for _, d := range slices.Sorted(maps.Keys(open)) {
		t, err := time.Parse(dayLayout, d)
		if err != nil {
			return nil, fmt.Errorf("compaction state: open day %q: %w", d, err)
		}
		if !s.foldable(now, t.Unix(), touched[d]) {
			current = append(current, t.Unix())
			continue
		}
		for ; *budget > 0 && open[d] < s.cfg.Groups; open[d]++ {
			*budget--
			n, err := s.mergeGroup(ctx, open[d], []int64{t.Unix()}, gen, true)
			if err != nil {
				return nil, err
			}
			res.Merged, res.Folded, res.FoldBytes = res.Merged+n.items, res.Folded+n.items, res.FoldBytes+n.bytes
			res.Deleted, res.LargestDayItem = res.Deleted+n.deleted, max(res.LargestDayItem, n.largest)
		}
		if open[d] >= s.cfg.Groups {
			delete(open, d)
			delete(touched, d)
			continue
		}
		// A closed day not folded yet waits too: its segments expire.
		res.Lag = max(res.Lag, now.Sub(t.Add(24*time.Hour+s.cfg.MergeAfter)))
	}
	return current, nil
}

// extendChains gives the groups with the most unmerged bytes of the days
// still open (current) a new item in each chain, within budget, so that a
// read of a recent day reads at most about MergeBytes of its group's
// segments. A group merged leaves pend.
func (s *Store) extendChains(ctx context.Context, gen int64, pend map[int]int, current []int64, budget int, res *Compaction) error {
	groups := slices.SortedFunc(maps.Keys(pend), func(a, b int) int { return pend[b] - pend[a] })
	for _, g := range groups {
		if budget == 0 || pend[g] < s.cfg.MergeBytes {
			break
		}
		budget--
		n, err := s.mergeGroup(ctx, g, current, gen, false)
		if err != nil {
			return err
		}
		res.Merged, res.ChainBytes = res.Merged+n.items, res.ChainBytes+n.bytes
		res.LargestDayItem = max(res.LargestDayItem, n.largest)
		delete(pend, g)
	}
	return nil
}

// settle moves the watermarks to the ends of the run's ranges, dropping
// the shards whose checkpoint expired, and marks the run done.
func (s *Store) settle(ctx context.Context, m meta, open map[string]int, pend map[int]int, touched map[string]int64) error {
	cps, err := s.shards(ctx)
	if err != nil {
		return err
	}
	wm := maps.Clone(m.wm)
	maps.Copy(wm, m.run)
	for k := range wm {
		if _, ok := cps[k]; !ok {
			// The shard's checkpoint expired (CheckpointRetention after its
			// last write, past RollupRetention): its rollups are gone too.
			delete(wm, k)
		}
	}
	return s.finishMeta(ctx, m, wm, open, pend, touched)
}

// writeSegment writes seg as segment id, in parts of at most maxSegPart
// bytes, each once: a part already there (written by an earlier attempt
// of the same run, from the same rollups, so the same bytes) is skipped.
func (s *Store) writeSegment(ctx context.Context, id segID, seg segment) (written, skipped, size int, err error) {
	ctx = withLevel(ctx, LevelSegment)
	parts, err := splitParts(seg, maxSegPart)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("segment %d/%s: %w", id.group, daySK(id.day), err)
	}
	for i, p := range parts {
		size += len(p)
		item := key(segPK(id.group), segSK(id.day, id.gen, i))
		item[attrData] = &types.AttributeValueMemberB{Value: p}
		item[attrOf] = num(int64(len(parts)))
		item[tableschema.AttrExpiresAt] = num(s.cfg.Now().Add(s.cfg.RollupRetention).Unix())
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.cfg.Table, Item: item,
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": tableschema.AttrCode},
		})
		switch {
		case isConditionFailed(err):
			skipped++
		case err != nil:
			return written, skipped, size, dynamo.Wrap("write segment", err)
		default:
			written++
		}
	}
	return written, skipped, size, nil
}

// mergeGroup adds the segments of group g on days to the group's day
// items, up to generation gen. Without fold, each bucket-day the segments
// touch gets a new item in its chain, holding the segments past the
// chain's top (an item already reaching gen, written by an earlier
// attempt of this run, leaves nothing to add). With fold, every
// bucket-day of the group with codes in the segments becomes one item
// from 0 to gen holding its chain and the segments past it, and the
// chain's other items are deleted. Once every item is written, it records
// the merge in the group's segment partition (see mergedUpTo). It returns
// what it wrote and deleted.
func (s *Store) mergeGroup(ctx context.Context, g int, days []int64, gen int64, fold bool) (merged, error) {
	level := LevelChain
	if fold {
		level = LevelFold
	}
	ctx = withLevel(ctx, level)
	byKey, read, err := s.groupSegments(ctx, g, days, gen, fold)
	if err != nil {
		return merged{}, err
	}
	// The bucket-days with codes in the segments: every chain item was
	// made from segments (kept RollupRetention, past any fold), so a fold
	// needs no others either.
	keys := slices.Collect(maps.Keys(byKey))
	slices.SortFunc(keys, func(a, b itemKey) int {
		if a.day != b.day {
			return int(a.day - b.day)
		}
		return a.bucket - b.bucket
	})
	var (
		mu  sync.Mutex
		out merged
	)
	err = each(ctx, keys, 8, func(ctx context.Context, k itemKey) error {
		n, err := s.mergeDayItem(ctx, k, byKey[k], gen, fold)
		mu.Lock()
		defer mu.Unlock()
		out.items, out.bytes, out.largest, out.deleted = out.items+n.items, out.bytes+n.bytes, max(out.largest, n.largest), out.deleted+n.deleted
		return err
	})
	if err != nil {
		return out, err
	}
	for _, day := range read {
		if err := s.markMerged(ctx, g, day, gen); err != nil {
			return out, err
		}
	}
	return out, nil
}

// A group's merges read only the segments past its last merge of the
// day: after a merge (chain or fold) of group g and day d up to
// generation M has written every bucket-day item, a marker in g's segment
// partition (mergedSK, outside every day's segment keys) records M, and
// the next chain merge of g and d reads the segments from M+1 on
// (segSK's zero-padded generation sorts numerically), all of them when
// there is no marker. Why that counts every click once, crashes included:
//
//   - Once the marker says M, every segment of g and d up to M is in the
//     chain of every bucket-day it touches (the chain's top is at least
//     its generation): the merge at M took each bucket-day's segments past
//     the marker it read into its chain, those up to that marker were in
//     the chain already (the same argument, one merge earlier; none when
//     there was no marker and it read the whole day), and a chain's top
//     only rises (a fold keeps one item from 0 up). So a chain merge
//     misses nothing reading past M: a bucket-day's segments past its
//     chain's top are all past M.
//   - A run that dies after some bucket-day items and before the marker
//     leaves the old marker: the next merge of the group (the resumed run
//     or a later one) reads from there, a superset, and adds to each
//     bucket-day only the segments past its chain's top, so an item that
//     already reaches the dead run's generation gets nothing twice.
//   - A marker is only ever written after the items it vouches for, and
//     never lowered (a late runner of an older generation leaves it): a
//     lower one would only make a merge read more.
//   - A fold reads the whole day (once a day, and again only for late
//     clicks): it rewrites every bucket-day the group's segments touch,
//     so it must know them all.
//
// Readers never see a marker: a read's and a merge's Query stays within
// the day's segment keys, and Counts' scan skips it.
func mergedSK(day int64) string { return daySK(day) + mergedSuffix }

// mergedSuffix ends a marker's sort key: '!' sorts before the '#' that
// follows the day in every segment key.
const mergedSuffix = "!merged"

// mergedUpTo reads the generation group g's segments of day were last
// merged up to; 0 when they never were (or the marker expired: its TTL is
// a segment's, and each merge renews it).
func (s *Store) mergedUpTo(ctx context.Context, g int, day int64) (int64, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.cfg.Table, Key: key(segPK(g), mergedSK(day)), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, dynamo.Wrap("read merge marker", err)
	}
	gen, _ := dynamo.OptionalN(out.Item, attrGen)
	return gen, nil
}

// markMerged records that group g's segments of day up to gen are merged,
// unless the marker already says as much.
func (s *Store) markMerged(ctx context.Context, g int, day, gen int64) error {
	item := key(segPK(g), mergedSK(day))
	item[attrGen] = num(gen)
	item[tableschema.AttrExpiresAt] = num(s.cfg.Now().Add(s.cfg.RollupRetention).Unix())
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.Table, Item: item,
		ConditionExpression:       aws.String("attribute_not_exists(#gen) OR #gen < :gen"),
		ExpressionAttributeNames:  map[string]string{"#gen": attrGen},
		ExpressionAttributeValues: map[string]types.AttributeValue{":gen": num(gen)},
	})
	if isConditionFailed(err) {
		return nil
	}
	return dynamo.Wrap("write merge marker", err)
}

// groupSegments reads group g's segments of days up to generation gen,
// past each day's merge marker unless it folds, and sorts their counts per
// bucket-day and generation. It also returns the days it read segments of
// (whose marker the merge then moves to gen).
func (s *Store) groupSegments(ctx context.Context, g int, days []int64, gen int64, fold bool) (map[itemKey]map[int64]segment, []int64, error) {
	segs := map[segID]*segSet{}
	var read []int64
	for _, day := range days {
		from := daySK(day) + "#"
		if !fold {
			m, err := s.mergedUpTo(ctx, g, day)
			if err != nil {
				return nil, nil, err
			}
			if m > 0 {
				from = segSK(day, m+1, 0)
			}
		}
		n := len(segs)
		err := s.query(ctx, segPK(g), from, daySK(day)+"#~", func(item map[string]types.AttributeValue) error {
			return addSegPart(segs, item)
		})
		if err != nil {
			return nil, nil, dynamo.Wrap("read segments to merge", err)
		}
		if len(segs) > n {
			read = append(read, day)
		}
	}
	byKey := map[itemKey]map[int64]segment{}
	for id, ss := range segs {
		if id.gen > gen {
			continue
		}
		if !ss.complete() {
			return nil, nil, fmt.Errorf("%w: segment %d/%s/%d has %d of %d parts", errCorrupt, g, daySK(id.day), id.gen, len(ss.parts), ss.of)
		}
		for _, p := range ss.parts {
			seg, err := decodeSegment(p, "")
			if err != nil {
				return nil, nil, fmt.Errorf("segment %d/%s/%d: %w", g, daySK(id.day), id.gen, err)
			}
			for d, codes := range seg {
				for code, c := range codes {
					k := itemKey{bucket: s.bucketOf(code), day: d}
					if byKey[k] == nil {
						byKey[k] = map[int64]segment{}
					}
					if byKey[k][id.gen] == nil {
						byKey[k][id.gen] = segment{}
					}
					byKey[k][id.gen].get(d, code).add(c)
				}
			}
		}
	}
	return byKey, read, nil
}

// mergeDayItem merges one bucket-day's segments of generations (byGen)
// into its day items at generation gen: a new item of its chain with the
// counts no item holds yet, or, to fold, one item with the whole chain's
// counts and the rest deleted.
func (s *Store) mergeDayItem(ctx context.Context, k itemKey, byGen map[int64]segment, gen int64, fold bool) (merged, error) {
	var out merged
	var (
		items, chain []dayItem
		hi           int64
		err          error
	)
	if fold {
		items, chain, hi, err = s.dayChain(ctx, k)
	} else {
		hi, err = s.chainTop(ctx, k)
	}
	if err != nil {
		return out, err
	}
	delta := segment{}
	for sgen, seg := range byGen {
		if sgen > hi {
			delta.merge(seg)
		}
	}
	keep := ""
	switch {
	case !fold:
		if len(delta) == 0 {
			return out, nil
		}
		keep = dayItemSK(k.day, hi, gen)
	case len(chain) == 1 && chain[0].lo == 0 && len(delta) == 0:
		keep = chain[0].sk // folded already
	default:
		for _, it := range chain {
			seg, err := decodeSegment(it.data, "")
			if err != nil {
				return out, fmt.Errorf("day item %d/%s: %w", k.bucket, it.sk, err)
			}
			delta.merge(seg)
		}
		if len(delta) == 0 {
			return out, nil
		}
		keep = dayItemSK(k.day, 0, gen)
	}
	if len(delta) > 0 {
		size, err := s.putDayItem(ctx, k, keep, delta)
		if err != nil {
			return out, err
		}
		out.items, out.bytes, out.largest = 1, size, size
	}
	if fold {
		for _, it := range items {
			if it.sk == keep {
				continue
			}
			_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.cfg.Table, Key: key(dayPK(k.bucket), it.sk)})
			if err != nil {
				return out, dynamo.Wrap("delete a folded day item", err)
			}
			out.deleted++
		}
	}
	return out, nil
}

// dayChain reads every day item of bucket-day k, the chain that counts
// and its top generation.
func (s *Store) dayChain(ctx context.Context, k itemKey) (items, chain []dayItem, hi int64, err error) {
	err = s.query(ctx, dayPK(k.bucket), daySK(k.day)+"#", daySK(k.day)+"#~", func(item map[string]types.AttributeValue) error {
		_, it, err := s.parseDayItem(item)
		items = append(items, it)
		return err
	})
	if err != nil {
		return nil, nil, 0, dynamo.Wrap("read day items to merge", err)
	}
	chain, hi, err = cover(items)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("bucket %d day %s: %w", k.bucket, daySK(k.day), err)
	}
	return items, chain, hi, nil
}

// chainTop reads the top generation of bucket-day k's chain (cover's hi)
// from its item with the highest, the last in key order (dayItemSK puts
// hi first): a chain extension needs nothing else, and reading the whole
// chain would make each merge read more than the last as the day fills.
func (s *Store) chainTop(ctx context.Context, k itemKey) (int64, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                &s.cfg.Table,
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": tableschema.AttrCode, "#sk": tableschema.AttrBucket},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(dayPK(k.bucket)), ":lo": str(daySK(k.day) + "#"), ":hi": str(daySK(k.day) + "#~"),
		},
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(1), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, dynamo.Wrap("read the top of a chain", err)
	}
	if len(out.Items) == 0 {
		return 0, nil
	}
	_, it, err := s.parseDayItem(out.Items[0])
	return it.hi, err
}

// merged is what a mergeGroup wrote: day items, their encoded bytes and
// the largest's, and the chain items a fold deleted.
type merged struct {
	items, bytes, largest, deleted int
}

// putDayItem writes a day item once (one already there was written by an
// earlier attempt of the same run, from the same segments) and returns its
// encoded size.
func (s *Store) putDayItem(ctx context.Context, k itemKey, sk string, seg segment) (int, error) {
	data, err := seg.encode()
	if err != nil {
		return 0, err
	}
	if len(data) > maxItemBytes {
		return 0, fmt.Errorf("day item %d/%s would hold %d bytes: too many codes a bucket; the table needs more buckets", k.bucket, sk, len(data))
	}
	item := key(dayPK(k.bucket), sk)
	item[attrData] = &types.AttributeValueMemberB{Value: data}
	item[tableschema.AttrExpiresAt] = num(k.day + int64(s.cfg.DayRetention.Seconds()))
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.Table, Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": tableschema.AttrCode},
	})
	if isConditionFailed(err) {
		return len(data), nil
	}
	return len(data), dynamo.Wrap("write day item", err)
}

// foldable says whether an open day is to be folded: closed for
// Config.MergeAfter, and no segment of it written for as long (late clicks
// after an outage go to the chains until they stop, so that a backlog of
// a closed day is not folded again run after run).
func (s *Store) foldable(now time.Time, day, touched int64) bool {
	return !now.Before(time.Unix(day, 0).Add(24*time.Hour+s.cfg.MergeAfter)) &&
		!now.Before(time.Unix(touched, 0).Add(s.cfg.MergeAfter))
}

// mergeDue says whether an open day is to be folded.
func (s *Store) mergeDue(m meta, now time.Time) bool {
	for d := range m.open {
		t, err := time.Parse(dayLayout, d)
		if err == nil && s.foldable(now, t.Unix(), m.touched[d]) {
			return true
		}
	}
	return false
}

// claimable lists the rollups the next compaction takes, in shard and
// sequence order, within Config.CompactBytes, and the last sequence number
// it takes per shard.
func (s *Store) claimable(ctx context.Context, m meta) (map[string]string, []rollup, error) {
	cps, err := s.shards(ctx)
	if err != nil {
		return nil, nil, err
	}
	run := map[string]string{}
	var out []rollup
	budget := s.cfg.CompactBytes
	for _, k := range slices.Sorted(maps.Keys(cps)) {
		if budget <= 0 {
			break
		}
		if wm := m.wm[k]; wm != "" && clickstore.CompareSequence(cps[k], wm) <= 0 {
			continue
		}
		rs, err := s.rollups(ctx, k, m.wm[k], "", budget)
		if err != nil {
			return nil, nil, dynamo.Wrap("list rollups", err)
		}
		if len(rs) == 0 {
			continue
		}
		for _, r := range rs {
			budget -= r.size()
		}
		run[k] = rs[len(rs)-1].last
		out = append(out, rs...)
	}
	return run, out, nil
}

// runRollups reads back the rollups of m's running compaction.
func (s *Store) runRollups(ctx context.Context, m meta) ([]rollup, error) {
	var out []rollup
	for _, k := range slices.Sorted(maps.Keys(m.run)) {
		rs, err := s.rollups(ctx, k, m.wm[k], m.run[k], 0)
		if err != nil {
			return nil, dynamo.Wrap("read rollups of a running compaction", err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

// writeMeta moves the state from m to generation gen, running, taking the
// ranges run, on the condition that it is still m.
func (s *Store) writeMeta(ctx context.Context, m meta, gen int64, running bool, run map[string]string, now time.Time) error {
	item := key(metaPK, metaSK)
	item[attrGen] = num(gen)
	item[attrRunning] = &types.AttributeValueMemberBOOL{Value: running}
	item[attrStarted] = num(now.UnixMilli())
	item[attrWM] = seqMap(m.wm)
	item[attrRun] = seqMap(run)
	item[attrOpen] = openMap(m.open)
	item[attrPend] = pendMap(m.pend)
	item[attrTouched] = touchedMap(m.touched)
	in := &dynamodb.PutItemInput{TableName: &s.cfg.Table, Item: item}
	if m.exists {
		in.ConditionExpression = aws.String("#gen = :gen AND #running = :running AND #started = :started")
		in.ExpressionAttributeNames = map[string]string{"#gen": attrGen, "#running": attrRunning, "#started": attrStarted}
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":gen": num(m.gen), ":running": &types.AttributeValueMemberBOOL{Value: m.running}, ":started": num(m.started),
		}
	} else {
		in.ConditionExpression = aws.String("attribute_not_exists(#pk)")
		in.ExpressionAttributeNames = map[string]string{"#pk": tableschema.AttrCode}
	}
	_, err := s.db.PutItem(ctx, in)
	return dynamo.Wrap("write compaction state", err)
}

// finishMeta marks generation m.gen done with watermarks wm, on the
// condition that it is still running it (a resumer that took the lease
// over finishes it instead, writing the same).
func (s *Store) finishMeta(ctx context.Context, m meta, wm map[string]string, open map[string]int, pend map[int]int, touched map[string]int64) error {
	item := key(metaPK, metaSK)
	item[attrGen] = num(m.gen)
	item[attrRunning] = &types.AttributeValueMemberBOOL{Value: false}
	item[attrStarted] = num(0)
	item[attrWM] = seqMap(wm)
	item[attrRun] = seqMap(nil)
	item[attrOpen] = openMap(open)
	item[attrPend] = pendMap(pend)
	item[attrTouched] = touchedMap(touched)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.Table, Item: item,
		ConditionExpression:      aws.String("#gen = :gen AND #running = :running"),
		ExpressionAttributeNames: map[string]string{"#gen": attrGen, "#running": attrRunning},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":gen": num(m.gen), ":running": &types.AttributeValueMemberBOOL{Value: true},
		},
	})
	if isConditionFailed(err) {
		return nil // another runner of this generation finished it
	}
	return dynamo.Wrap("finish compaction", err)
}

func isConditionFailed(err error) bool {
	_, failed := dynamo.ConditionFailed(err)
	return failed
}
