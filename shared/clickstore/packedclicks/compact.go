package packedclicks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamoerr"
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
	// Lag is how long the oldest rollup it took waited: the metric to
	// alarm on, far below Config.RollupRetention.
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
	var res Compaction
	m, err := s.readMeta(ctx)
	if err != nil {
		return res, err
	}
	now := s.cfg.Now()
	var rolls []rollup
	if m.running {
		if now.UnixMilli()-m.started < s.cfg.Lease.Milliseconds() {
			return Compaction{Gen: m.gen, Busy: true}, nil
		}
		res.Resumed = true
		if rolls, err = s.runRollups(ctx, m); err != nil {
			return res, err
		}
		// Take the lease over, so that two late runners do not both resume.
		if err := s.writeMeta(ctx, m, m.gen, true, m.run, now); err != nil {
			if isConditionFailed(err) {
				return Compaction{Gen: m.gen, Busy: true}, nil
			}
			return res, err
		}
	} else {
		run, rs, err := s.claimable(ctx, m)
		if err != nil {
			return res, err
		}
		if len(rs) == 0 && !s.mergeDue(m, now) {
			return res, nil
		}
		rolls = rs
		if err := s.writeMeta(ctx, m, m.gen+1, true, run, now); err != nil {
			if isConditionFailed(err) {
				return Compaction{Gen: m.gen + 1, Busy: true}, nil
			}
			return res, err
		}
		m.gen, m.running, m.run = m.gen+1, true, run
	}
	res.Gen, res.Rollups = m.gen, len(rolls)

	// One segment per group and day: the run's counts, written once.
	segs := map[segID]segment{}
	for _, r := range rolls {
		seg, err := decodeSegment(r.data, "")
		if err != nil {
			return res, fmt.Errorf("rollup %s of shard %s: %w", r.first, r.shard, err)
		}
		if r.expires > 0 {
			res.Lag = max(res.Lag, now.Sub(time.Unix(r.expires, 0).Add(-s.cfg.RollupRetention)))
		}
		for day, codes := range seg {
			for code, c := range codes {
				id := segID{group: s.groupOf(s.bucketOf(code)), day: day, gen: m.gen}
				d := segs[id]
				if d == nil {
					d = segment{}
					segs[id] = d
				}
				d.get(day, code).add(c)
			}
		}
	}
	ids := slices.SortedFunc(maps.Keys(segs), func(a, b segID) int {
		if a.day != b.day {
			return int(a.day - b.day)
		}
		return a.group - b.group
	})
	var (
		mu      sync.Mutex
		written int
	)
	err = each(ctx, ids, 8, func(ctx context.Context, id segID) error {
		n, skipped, size, err := s.writeSegment(ctx, id, segs[id])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			return err
		}
		res.Skipped += skipped
		res.Items += n
		res.SegmentBytes += size
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
	if err != nil {
		return res, err
	}

	// The days the run wrote segments of are open (again) from their
	// lowest such group; closed open days are merged, a few groups a run.
	open := maps.Clone(m.open)
	for _, id := range ids {
		d := daySK(id.day)
		if next, ok := open[d]; !ok || id.group < next {
			open[d] = id.group
		}
	}
	budget := s.cfg.MergeGroups
	for _, d := range slices.Sorted(maps.Keys(open)) {
		t, err := time.Parse(dayLayout, d)
		if err != nil {
			return res, fmt.Errorf("compaction state: open day %q: %w", d, err)
		}
		if now.Before(t.Add(24*time.Hour + s.cfg.MergeAfter)) {
			continue
		}
		for ; budget > 0 && open[d] < s.cfg.Groups; open[d]++ {
			budget--
			n, err := s.mergeGroup(ctx, open[d], t.Unix(), m.gen)
			if err != nil {
				return res, err
			}
			res.Merged += n
		}
		if open[d] >= s.cfg.Groups {
			delete(open, d)
		}
	}

	cps, err := s.shards(ctx)
	if err != nil {
		return res, err
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
	if err := s.finishMeta(ctx, m, wm, open); err != nil {
		return res, err
	}
	return res, nil
}

// writeSegment writes seg as segment id, in parts of at most maxSegPart
// bytes, each once: a part already there (written by an earlier attempt
// of the same run, from the same rollups, so the same bytes) is skipped.
func (s *Store) writeSegment(ctx context.Context, id segID, seg segment) (written, skipped, size int, err error) {
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
			return written, skipped, size, dynamoerr.Wrap("write segment", err)
		default:
			written++
		}
	}
	return written, skipped, size, nil
}

// mergeGroup folds the segments of group g on day into the group's day
// items, stamping each it changes with gen: a day item takes the segments
// past its generation, so an item already merged by an earlier attempt of
// this run is skipped. It returns the day items written.
func (s *Store) mergeGroup(ctx context.Context, g int, day, gen int64) (int, error) {
	segs := map[segID]*segSet{}
	err := s.query(ctx, segPK(g), daySK(day)+"#", daySK(day)+"#~", func(item map[string]types.AttributeValue) error {
		return addSegPart(segs, item)
	})
	if err != nil {
		return 0, dynamoerr.Wrap("read segments to merge", err)
	}
	if len(segs) == 0 {
		return 0, nil
	}
	// Per bucket, its codes per segment generation.
	byBucket := map[int]map[int64]segment{}
	for id, ss := range segs {
		if id.gen > gen {
			continue
		}
		if !ss.complete() {
			return 0, fmt.Errorf("%w: segment %d/%s/%d has %d of %d parts", errCorrupt, g, daySK(day), id.gen, len(ss.parts), ss.of)
		}
		for _, p := range ss.parts {
			seg, err := decodeSegment(p, "")
			if err != nil {
				return 0, fmt.Errorf("segment %d/%s/%d: %w", g, daySK(day), id.gen, err)
			}
			for d, codes := range seg {
				for code, c := range codes {
					b := s.bucketOf(code)
					if byBucket[b] == nil {
						byBucket[b] = map[int64]segment{}
					}
					if byBucket[b][id.gen] == nil {
						byBucket[b][id.gen] = segment{}
					}
					byBucket[b][id.gen].get(d, code).add(c)
				}
			}
		}
	}
	keys := make([]itemKey, 0, len(byBucket))
	for b := range byBucket {
		keys = append(keys, itemKey{bucket: b, day: day})
	}
	slices.SortFunc(keys, func(a, b itemKey) int { return a.bucket - b.bucket })
	current, err := s.getDayItems(ctx, keys)
	if err != nil {
		return 0, err
	}
	var (
		mu      sync.Mutex
		written int
	)
	err = each(ctx, keys, 8, func(ctx context.Context, k itemKey) error {
		cur := current[k]
		delta := segment{}
		for sgen, seg := range byBucket[k.bucket] {
			if sgen > cur.gen {
				delta.merge(seg)
			}
		}
		if len(delta) == 0 {
			return nil
		}
		skipped, err := s.writeDayItem(ctx, k, cur, delta, gen)
		if err != nil || skipped {
			return err
		}
		mu.Lock()
		written++
		mu.Unlock()
		return nil
	})
	return written, err
}

// mergeDue says whether a day with segments to merge has closed.
func (s *Store) mergeDue(m meta, now time.Time) bool {
	day, ok := m.minOpen()
	return ok && !now.Before(time.Unix(day, 0).Add(24*time.Hour+s.cfg.MergeAfter))
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
			return nil, nil, dynamoerr.Wrap("list rollups", err)
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
			return nil, dynamoerr.Wrap("read rollups of a running compaction", err)
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
	return dynamoerr.Wrap("write compaction state", err)
}

// finishMeta marks generation m.gen done with watermarks wm, on the
// condition that it is still running it (a resumer that took the lease
// over finishes it instead, writing the same).
func (s *Store) finishMeta(ctx context.Context, m meta, wm map[string]string, open map[string]int) error {
	item := key(metaPK, metaSK)
	item[attrGen] = num(m.gen)
	item[attrRunning] = &types.AttributeValueMemberBOOL{Value: false}
	item[attrStarted] = num(0)
	item[attrWM] = seqMap(wm)
	item[attrRun] = seqMap(nil)
	item[attrOpen] = openMap(open)
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
	return dynamoerr.Wrap("finish compaction", err)
}

// getDayItems reads the day items keys name, strongly consistent.
func (s *Store) getDayItems(ctx context.Context, keys []itemKey) (map[itemKey]dayItem, error) {
	out := map[itemKey]dayItem{}
	var mu sync.Mutex
	var groups [][]itemKey
	for i := 0; i < len(keys); i += 100 {
		groups = append(groups, keys[i:min(i+100, len(keys))])
	}
	err := each(ctx, groups, 4, func(ctx context.Context, group []itemKey) error {
		ks := make([]map[string]types.AttributeValue, len(group))
		for i, k := range group {
			ks[i] = key(dayPK(k.bucket), daySK(k.day))
		}
		req := map[string]types.KeysAndAttributes{s.cfg.Table: {Keys: ks, ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt == 10 {
				return fmt.Errorf("read day items: unprocessed keys after %d attempts", attempt)
			}
			res, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return dynamoerr.Wrap("read day items", err)
			}
			for _, item := range res.Responses[s.cfg.Table] {
				k, it, err := s.parseDayItem(item)
				if err != nil {
					return err
				}
				mu.Lock()
				out[k] = it
				mu.Unlock()
			}
			req = res.UnprocessedKeys
		}
		return nil
	})
	return out, err
}

// writeDayItem adds delta to the day item k, read as cur, and stamps it
// with gen, unless it already has gen (skipped).
func (s *Store) writeDayItem(ctx context.Context, k itemKey, cur dayItem, delta segment, gen int64) (skipped bool, err error) {
	for attempt := 0; ; attempt++ {
		if cur.gen >= gen {
			return true, nil
		}
		seg := segment{}
		if cur.data != nil {
			if seg, err = decodeSegment(cur.data, ""); err != nil {
				return false, fmt.Errorf("day item %d/%s: %w", k.bucket, daySK(k.day), err)
			}
		}
		seg.merge(delta)
		data, err := seg.encode()
		if err != nil {
			return false, err
		}
		if len(data) > maxItemBytes {
			return false, fmt.Errorf("day item %d/%s would hold %d bytes: too many codes a bucket; the table needs more buckets", k.bucket, daySK(k.day), len(data))
		}
		item := key(dayPK(k.bucket), daySK(k.day))
		item[attrData] = &types.AttributeValueMemberB{Value: data}
		item[attrGen] = num(gen)
		item[tableschema.AttrExpiresAt] = num(k.day + int64(s.cfg.DayRetention.Seconds()))
		in := &dynamodb.PutItemInput{TableName: &s.cfg.Table, Item: item,
			ExpressionAttributeNames: map[string]string{"#gen": attrGen}}
		if cur.data == nil {
			in.ConditionExpression = aws.String("attribute_not_exists(#gen)")
		} else {
			in.ConditionExpression = aws.String("#gen = :gen")
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":gen": num(cur.gen)}
		}
		_, err = s.db.PutItem(ctx, in)
		if err == nil {
			return false, nil
		}
		if !isConditionFailed(err) || attempt == 3 {
			return false, dynamoerr.Wrap("write day item", err)
		}
		// Another runner of this generation wrote it: read it again.
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.cfg.Table, Key: key(dayPK(k.bucket), daySK(k.day)), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return false, dynamoerr.Wrap("read day item", err)
		}
		cur = dayItem{}
		if out.Item != nil {
			if _, cur, err = s.parseDayItem(out.Item); err != nil {
				return false, err
			}
		}
	}
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}
