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
	// Rollups and Items are the rollup parts it read and the day items it
	// wrote; Skipped the day items it found already written by its
	// generation (a resumed run's earlier attempt).
	Rollups, Items, Skipped int
}

// Hook, when set, is called by Compact after it wrote the nth day item
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
		if len(rs) == 0 {
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

	deltas := map[itemKey]segment{}
	for _, r := range rolls {
		seg, err := decodeSegment(r.data, "")
		if err != nil {
			return res, fmt.Errorf("rollup %s of shard %s: %w", r.first, r.shard, err)
		}
		for day, codes := range seg {
			for code, c := range codes {
				k := itemKey{bucket: s.bucketOf(code), day: day}
				d := deltas[k]
				if d == nil {
					d = segment{}
					deltas[k] = d
				}
				d.get(day, code).add(c)
			}
		}
	}
	keys := slices.SortedFunc(maps.Keys(deltas), func(a, b itemKey) int {
		if a.bucket != b.bucket {
			return a.bucket - b.bucket
		}
		return int(a.day - b.day)
	})
	current, err := s.getDayItems(ctx, keys)
	if err != nil {
		return res, err
	}
	var (
		mu      sync.Mutex
		written int
	)
	err = each(ctx, keys, 8, func(ctx context.Context, k itemKey) error {
		skipped, err := s.writeDayItem(ctx, k, current[k], deltas[k], m.gen)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			return err
		}
		if skipped {
			res.Skipped++
			return nil
		}
		res.Items++
		written++
		if hook != nil {
			return hook(written)
		}
		return nil
	})
	if err != nil {
		return res, err
	}

	wm := maps.Clone(m.wm)
	maps.Copy(wm, m.run)
	if err := s.finishMeta(ctx, m, wm); err != nil {
		return res, err
	}
	return res, nil
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
func (s *Store) finishMeta(ctx context.Context, m meta, wm map[string]string) error {
	item := key(metaPK, metaSK)
	item[attrGen] = num(m.gen)
	item[attrRunning] = &types.AttributeValueMemberBOOL{Value: false}
	item[attrStarted] = num(0)
	item[attrWM] = seqMap(wm)
	item[attrRun] = seqMap(nil)
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
