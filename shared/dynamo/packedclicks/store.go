package packedclicks

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Config names the table and sets the layout, retention and timeouts.
type Config struct {
	Table string
	// Timeout bounds each call, retries included; 5 s when zero.
	Timeout time.Duration
	// Buckets is how many buckets the codes are hashed into: a compacted
	// item holds one bucket's codes for one day. It is part of the layout:
	// readers and the compaction must agree on it, so it changes only with
	// a new table. DefaultBuckets when zero.
	Buckets int
	// Groups is how many segment groups the buckets fall in (bucket
	// modulo Groups): a compaction writes one immutable segment per group
	// and day it touches, and a read of a day not merged yet reads its
	// group's segments. Part of the layout, like Buckets; DefaultGroups
	// when zero, at most Buckets.
	Groups int
	// MergeAfter is how long after a UTC day ends its segments are merged
	// into its day items; DefaultMergeAfter when zero.
	MergeAfter time.Duration
	// MergeGroups bounds the groups one compaction merges;
	// DefaultMergeGroups when zero.
	MergeGroups int
	// MergeBytes is how many bytes of segments of open days a group
	// gathers before they are merged into its day items' chains, which
	// bounds what a read of a recent day reads of segments;
	// DefaultMergeBytes when zero.
	MergeBytes int
	// DayRetention is how long a day's counts (hours and breakdowns
	// included) are kept; DefaultDayRetention when zero.
	DayRetention time.Duration
	// RollupRetention is how long a rollup, and a segment, outlives its
	// write, compacted or not (DynamoDB's TTL deletes it for free);
	// DefaultRollupRetention when zero. A rollup not compacted within it,
	// or a segment not merged within it, is lost: Compaction.Lag is the
	// metric to alarm on, far below it (see the package doc).
	RollupRetention time.Duration
	// CheckpointRetention is how long a shard's checkpoint outlives its
	// last write; DefaultCheckpointRetention when zero. It must exceed the
	// event source mapping's MaximumRecordAgeInSeconds and
	// RollupRetention: a shard whose checkpoint expired is dropped from
	// the compaction's watermarks, and its rollups must be gone by then.
	CheckpointRetention time.Duration
	// MaxBreakdownItems bounds the entries (day and value) one Breakdown
	// sums; clickstore.DefaultMaxBreakdownItems when zero.
	MaxBreakdownItems int
	// CompactBytes bounds the encoded rollups one compaction takes;
	// DefaultCompactBytes when zero.
	CompactBytes int
	// Lease is how long a started compaction is left to its runner before
	// the next one resumes it; DefaultLease when zero.
	Lease time.Duration
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
}

// Defaults of Config.
const (
	DefaultBuckets             = 8192
	DefaultGroups              = 128
	DefaultMergeAfter          = time.Hour
	DefaultMergeGroups         = 16
	DefaultMergeBytes          = 256 << 10
	DefaultDayRetention        = 3 * 366 * 24 * time.Hour
	DefaultRollupRetention     = 30 * 24 * time.Hour
	DefaultCheckpointRetention = 31 * 24 * time.Hour // past RollupRetention and MaximumRecordAgeInSeconds (at most 7 days)
	DefaultCompactBytes        = 4 << 20
	DefaultLease               = 2 * time.Minute
	// MaxChunkItems is how many counter items one Apply takes: a batch of
	// 1,000 records touches at most 4,000, and a rollup item of one chunk
	// is split into parts of at most maxPart bytes.
	MaxChunkItems = 16_384
)

// maxPart bounds one rollup part's encoded size, maxSegPart one segment
// part's, maxItemBytes a day item's: DynamoDB items are at most 400 KB,
// key and attribute names included.
const (
	maxPart      = 300_000
	maxSegPart   = 64_000
	maxItemBytes = 390_000
)

// Store keeps click counts as rollups and compacted bucket-day items.
type Store struct {
	db  dynamo.API
	cfg Config
}

var (
	_ clickstore.Store      = (*Store)(nil)
	_ clickstore.ChunkSizer = (*Store)(nil)
)

// New returns a store over db.
func New(db dynamo.API, cfg Config) *Store {
	dynamo.SetDefault(&cfg.Timeout, 5*time.Second)
	dynamo.SetDefault(&cfg.Buckets, DefaultBuckets)
	dynamo.SetDefault(&cfg.Groups, DefaultGroups)
	cfg.Groups = min(cfg.Groups, cfg.Buckets)
	dynamo.SetDefault(&cfg.MergeAfter, DefaultMergeAfter)
	dynamo.SetDefault(&cfg.MergeBytes, DefaultMergeBytes)
	dynamo.SetDefault(&cfg.MergeGroups, DefaultMergeGroups)
	dynamo.SetDefault(&cfg.DayRetention, DefaultDayRetention)
	dynamo.SetDefault(&cfg.RollupRetention, DefaultRollupRetention)
	dynamo.SetDefault(&cfg.CheckpointRetention, DefaultCheckpointRetention)
	dynamo.SetDefault(&cfg.MaxBreakdownItems, clickstore.DefaultMaxBreakdownItems)
	dynamo.SetDefault(&cfg.CompactBytes, DefaultCompactBytes)
	dynamo.SetDefault(&cfg.Lease, DefaultLease)
	dynamo.SetDefaultNow(&cfg.Now)
	return &Store{db: db, cfg: cfg}
}

// MaxChunkItems implements clickstore.ChunkSizer.
func (s *Store) MaxChunkItems() int { return MaxChunkItems }

// Partition keys. Codes never contain '#', so none of them is a code.
const (
	checkpointsPK = "#cp"
	rollupPrefix  = "#r#"
	dayPrefix     = "#d#"
	segPrefix     = "#s#"
	metaPK        = "#meta"
	metaSK        = "compaction"
)

// Attribute names besides the table's keys and expires_at.
const (
	attrData    = "data"
	attrLast    = "last"
	attrGen     = "gen"
	attrRunning = "running"
	attrStarted = "started"
	attrWM      = "wm"
	attrRun     = "run"
	attrOpen    = "open"
	attrPend    = "pend"
	attrTouched = "touched"
	attrOf      = "of"
)

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrCode: str(pk), tableschema.AttrBucket: str(sk)}
}

// shardKey names a shard in rollup keys and the compaction's watermarks:
// 64 bits of FNV-1a of its checkpoint name (stream ARN and shard ID).
func shardKey(shard string) string {
	h := fnv.New64a()
	h.Write([]byte(shard))
	return fmt.Sprintf("%016x", h.Sum64())
}

// bucketOf is the bucket of code.
func (s *Store) bucketOf(code string) int {
	h := fnv.New32a()
	h.Write([]byte(code))
	return int(h.Sum32() % uint32(s.cfg.Buckets))
}

func dayPK(bucket int) string { return dayPrefix + strconv.Itoa(bucket) }

func segPK(group int) string { return segPrefix + strconv.Itoa(group) }

// groupOf is the segment group of bucket.
func (s *Store) groupOf(bucket int) int { return bucket % s.cfg.Groups }

// segSK is a segment part's sort key: its day, its generation (12 digits,
// so that string order is numeric order) and its part.
func segSK(day, gen int64, part int) string {
	return fmt.Sprintf("%s#%012d#%02d", daySK(day), gen, part)
}

const dayLayout = "20060102"

func daySK(day int64) string { return time.Unix(day, 0).UTC().Format(dayLayout) }

// seqKey orders sequence numbers as strings: the digit count, then the
// digits.
func seqKey(seq string) string {
	seq = clickstore.TrimSequence(seq)
	return fmt.Sprintf("%03d%s", len(seq), seq)
}

// afterSeq is the lowest sort key of a rollup whose first record is past
// seq: a rollup's key is seqKey(first) + "#" + part, and '$' follows '#'.
func afterSeq(seq string) string {
	if seq == "" {
		return "000"
	}
	return seqKey(seq) + "$"
}

// Apply implements clickstore.Store: the chunk's counts become one rollup
// item (split in parts when large), written in one TransactWriteItems with
// the shard's checkpoint. A transaction that lost to a concurrent one
// matches clickstore.ErrContended and link.ErrUnavailable.
func (s *Store) Apply(ctx context.Context, c clickstore.Chunk) error {
	if err := c.ValidateMax(MaxChunkItems); err != nil {
		return fmt.Errorf("apply chunk: %w", err)
	}
	seg := segment{}
	for _, it := range c.Items {
		seg.addItem(it)
	}
	parts, err := encodeParts(seg)
	if err != nil {
		return fmt.Errorf("apply chunk: %w", err)
	}
	if len(parts) > 99 {
		return fmt.Errorf("apply chunk: %d rollup parts, at most 99 fit a transaction", len(parts))
	}
	now := s.cfg.Now()
	items := make([]types.TransactWriteItem, 0, len(parts)+1)
	items = append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:                &s.cfg.Table,
		Key:                      key(checkpointsPK, c.Shard),
		UpdateExpression:         aws.String("SET #seq = :last, #exp = :exp"),
		ConditionExpression:      aws.String("attribute_not_exists(#seq) OR #seq < :first"),
		ExpressionAttributeNames: map[string]string{"#seq": tableschema.AttrSequence, "#exp": tableschema.AttrExpiresAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":first": str(clickstore.PadSequence(clickstore.TrimSequence(c.First))),
			":last":  str(clickstore.PadSequence(clickstore.TrimSequence(c.Last))),
			":exp":   num(now.Add(s.cfg.CheckpointRetention).Unix()),
		},
	}})
	pk := rollupPrefix + shardKey(c.Shard)
	for i, p := range parts {
		item := key(pk, fmt.Sprintf("%s#%02d", seqKey(c.First), i))
		item[attrData] = &types.AttributeValueMemberB{Value: p}
		item[attrLast] = str(clickstore.TrimSequence(c.Last))
		item[tableschema.AttrExpiresAt] = num(now.Add(s.cfg.RollupRetention).Unix())
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.cfg.Table, Item: item}})
	}
	ctx, cancel := context.WithTimeout(withLevel(ctx, LevelRollup), s.cfg.Timeout)
	defer cancel()
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return dynamo.WrapApply(c, err)
}

// encodeParts encodes seg in as many parts as it takes to keep each under
// maxPart bytes, splitting by day and code.
func encodeParts(seg segment) ([][]byte, error) { return splitParts(seg, maxPart) }

// splitParts encodes seg in as many parts as it takes to keep each under
// limit bytes, splitting by day and code (in order, so the same counts
// split the same way).
func splitParts(seg segment, limit int) ([][]byte, error) {
	b, err := seg.encode()
	if err != nil || len(b) <= limit {
		return [][]byte{b}, err
	}
	type dc struct {
		day  int64
		code string
	}
	var all []dc
	for day, codes := range seg {
		for code := range codes {
			all = append(all, dc{day, code})
		}
	}
	if len(all) < 2 {
		return nil, fmt.Errorf("one code's day encodes to %d bytes, over %d", len(b), limit)
	}
	slices.SortFunc(all, func(a, b dc) int {
		if a.day != b.day {
			return int(a.day - b.day)
		}
		return strings.Compare(a.code, b.code)
	})
	halves := [2]segment{{}, {}}
	for i, k := range all {
		h := halves[min(i*2/len(all), 1)]
		h.get(k.day, k.code).add(seg[k.day][k.code])
	}
	var out [][]byte
	for _, h := range halves {
		p, err := splitParts(h, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}

// Checkpoint implements clickstore.Store. The read is strongly consistent:
// it follows a failed condition and must see the write that failed it.
func (s *Store) Checkpoint(ctx context.Context, shard string) (string, error) {
	ctx, cancel := context.WithTimeout(withLevel(ctx, LevelRollup), s.cfg.Timeout)
	defer cancel()
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.cfg.Table, Key: key(checkpointsPK, shard), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return "", dynamo.Wrap("read checkpoint of "+shard, err)
	}
	v, ok := out.Item[tableschema.AttrSequence].(*types.AttributeValueMemberS)
	if !ok {
		return "", nil
	}
	return clickstore.TrimSequence(v.Value), nil
}

// meta is the compaction's state: its generation, whether one is running,
// and per shard (shardKey) the last sequence number compacted (wm) and,
// while one runs, the last it takes (run).
type meta struct {
	exists  bool
	gen     int64
	running bool
	started int64 // epoch milliseconds
	wm, run map[string]string
	// open holds the days (daySK) with segments not merged yet, each with
	// the next group to merge.
	open map[string]int
	// pend holds, per group, the segment bytes of open days written since
	// the group's last merge.
	pend map[int]int
	// touched holds, per open day (daySK), when a compaction last wrote
	// segments of it (epoch seconds).
	touched map[string]int64
}

func (s *Store) readMeta(ctx context.Context) (meta, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.cfg.Table, Key: key(metaPK, metaSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return meta{}, dynamo.Wrap("read compaction state", err)
	}
	m := meta{wm: map[string]string{}, run: map[string]string{}, open: map[string]int{}, pend: map[int]int{}, touched: map[string]int64{}}
	if out.Item == nil {
		return m, nil
	}
	m.exists = true
	m.gen, _ = dynamo.OptionalN(out.Item, attrGen)
	m.started, _ = dynamo.OptionalN(out.Item, attrStarted)
	if v, ok := out.Item[attrRunning].(*types.AttributeValueMemberBOOL); ok {
		m.running = v.Value
	}
	for name, dst := range map[string]map[string]string{attrWM: m.wm, attrRun: m.run} {
		if mv, ok := out.Item[name].(*types.AttributeValueMemberM); ok {
			for k, v := range mv.Value {
				if sv, ok := v.(*types.AttributeValueMemberS); ok {
					dst[k] = sv.Value
				}
			}
		}
	}
	if mv, ok := out.Item[attrOpen].(*types.AttributeValueMemberM); ok {
		for k, v := range mv.Value {
			if nv, ok := v.(*types.AttributeValueMemberN); ok {
				n, err := strconv.Atoi(nv.Value)
				if err != nil {
					return meta{}, fmt.Errorf("compaction state: open day %s: %w", k, err)
				}
				m.open[k] = n
			}
		}
	}
	if mv, ok := out.Item[attrPend].(*types.AttributeValueMemberM); ok {
		for k, v := range mv.Value {
			g, err1 := strconv.Atoi(k)
			nv, ok := v.(*types.AttributeValueMemberN)
			if !ok || err1 != nil {
				return meta{}, fmt.Errorf("compaction state: pending bytes of group %q", k)
			}
			n, err := strconv.Atoi(nv.Value)
			if err != nil {
				return meta{}, fmt.Errorf("compaction state: pending bytes of group %s: %w", k, err)
			}
			m.pend[g] = n
		}
	}
	if mv, ok := out.Item[attrTouched].(*types.AttributeValueMemberM); ok {
		for k, v := range mv.Value {
			nv, ok := v.(*types.AttributeValueMemberN)
			if !ok {
				return meta{}, fmt.Errorf("compaction state: touched day %q", k)
			}
			n, err := strconv.ParseInt(nv.Value, 10, 64)
			if err != nil {
				return meta{}, fmt.Errorf("compaction state: touched day %s: %w", k, err)
			}
			m.touched[k] = n
		}
	}
	return m, nil
}

func touchedMap(m map[string]int64) types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = num(v)
	}
	return &types.AttributeValueMemberM{Value: out}
}

func pendMap(m map[int]int) types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[strconv.Itoa(k)] = num(int64(v))
	}
	return &types.AttributeValueMemberM{Value: out}
}

func openMap(m map[string]int) types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = num(int64(v))
	}
	return &types.AttributeValueMemberM{Value: out}
}

func seqMap(m map[string]string) types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = str(v)
	}
	return &types.AttributeValueMemberM{Value: out}
}

// rollup is one rollup part as read back.
type rollup struct {
	shard       string // shardKey
	first, last string
	data        []byte
	expires     int64 // epoch seconds, 0 when unknown
}

func (r rollup) size() int { return len(r.data) }

// shards lists the shards with checkpoints: shardKey → checkpoint.
func (s *Store) shards(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := s.query(ctx, checkpointsPK, "", "", func(item map[string]types.AttributeValue) error {
		sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
		seq, _ := item[tableschema.AttrSequence].(*types.AttributeValueMemberS)
		if sk == nil || seq == nil {
			return fmt.Errorf("checkpoint item without key or %s", tableschema.AttrSequence)
		}
		out[shardKey(sk.Value)] = clickstore.TrimSequence(seq.Value)
		return nil
	})
	return out, err
}

// rollups reads shard's rollups whose first record is after after and, if
// upTo is not empty, at or before upTo, in order. With budget > 0 it stops
// after the first whole rollup that brings the bytes read to budget.
func (s *Store) rollups(ctx context.Context, shard, after, upTo string, budget int) ([]rollup, error) {
	var out []rollup
	hi := ""
	if upTo != "" {
		hi = seqKey(upTo) + "$"
	}
	bytes := 0
	errFull := errors.New("full")
	err := s.query(ctx, rollupPrefix+shard, afterSeq(after), hi, func(item map[string]types.AttributeValue) error {
		sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
		data, _ := item[attrData].(*types.AttributeValueMemberB)
		last, _ := item[attrLast].(*types.AttributeValueMemberS)
		if sk == nil || data == nil || last == nil {
			return errors.New("rollup item without key, data or last")
		}
		k, _, _ := strings.Cut(sk.Value, "#")
		if len(k) < 4 {
			return fmt.Errorf("rollup key %q", sk.Value)
		}
		exp, _ := dynamo.OptionalN(item, tableschema.AttrExpiresAt)
		r := rollup{shard: shard, first: k[3:], last: last.Value, data: data.Value, expires: exp}
		if budget > 0 && bytes >= budget && len(out) > 0 && out[len(out)-1].first != r.first {
			return errFull
		}
		bytes += r.size()
		out = append(out, r)
		return nil
	})
	if errors.Is(err, errFull) {
		err = nil
	}
	return out, err
}

// pending reads every rollup not compacted before m's run: past each
// shard's watermark.
func (s *Store) pending(ctx context.Context, m meta) ([]rollup, error) {
	cps, err := s.shards(ctx)
	if err != nil {
		return nil, err
	}
	var (
		mu  sync.Mutex
		out []rollup
	)
	err = each(ctx, slices.Sorted(maps.Keys(cps)), 8, func(ctx context.Context, k string) error {
		if wm := m.wm[k]; wm != "" && clickstore.CompareSequence(cps[k], wm) <= 0 {
			return nil // nothing past the watermark
		}
		rs, err := s.rollups(ctx, k, m.wm[k], "", 0)
		mu.Lock()
		out = append(out, rs...)
		mu.Unlock()
		return err
	})
	return out, err
}

// dayItem is a compacted item: one bucket's codes for one day, from the
// segments of generations lo (exclusive) to hi (inclusive). A bucket-day
// has a chain of them, each starting where the one before ends, until the
// day's merge folds the chain into one item from 0.
type dayItem struct {
	lo, hi int64
	sk     string
	data   []byte
}

// dayItemSK is a day item's sort key: its day, hi and lo.
func dayItemSK(day, lo, hi int64) string {
	return fmt.Sprintf("%s#%012d#%012d", daySK(day), hi, lo)
}

// cover picks, from a bucket-day's day items, the chain that counts: from
// the highest hi down, at each step the item reaching lowest, to 0. Items
// it leaves out were folded into one it takes (and are being deleted).
// hi is the highest generation the chain holds, 0 without items.
func cover(items []dayItem) (chain []dayItem, hi int64, err error) {
	if len(items) == 0 {
		return nil, 0, nil
	}
	byHi := map[int64]dayItem{}
	for _, it := range items {
		if cur, ok := byHi[it.hi]; !ok || it.lo < cur.lo {
			byHi[it.hi] = it
		}
		hi = max(hi, it.hi)
	}
	for at := hi; at > 0; {
		it, ok := byHi[at]
		if !ok || it.lo >= it.hi {
			return nil, 0, fmt.Errorf("%w: day items do not chain down from %d", errCorrupt, at)
		}
		chain = append(chain, it)
		at = it.lo
	}
	return chain, hi, nil
}

// covers is cover of every bucket-day of items.
func covers(items map[itemKey][]dayItem) (chains map[itemKey][]dayItem, his map[itemKey]int64, err error) {
	chains, his = map[itemKey][]dayItem{}, map[itemKey]int64{}
	for k, its := range items {
		if chains[k], his[k], err = cover(its); err != nil {
			return nil, nil, fmt.Errorf("bucket %d day %s: %w", k.bucket, daySK(k.day), err)
		}
	}
	return chains, his, nil
}

type itemKey struct {
	bucket int
	day    int64
}

// segID names a segment: a compaction's counts of one group and day,
// written once in one or more parts.
type segID struct {
	group    int
	day, gen int64
}

// segSet is the parts of one segment read back.
type segSet struct {
	of    int
	parts map[int][]byte
}

func (ss *segSet) complete() bool { return ss != nil && ss.of > 0 && len(ss.parts) == ss.of }

// addSegPart adds a segment part item to segs.
func addSegPart(segs map[segID]*segSet, item map[string]types.AttributeValue) error {
	pk, _ := item[tableschema.AttrCode].(*types.AttributeValueMemberS)
	sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
	data, _ := item[attrData].(*types.AttributeValueMemberB)
	of, _ := dynamo.OptionalN(item, attrOf)
	if pk == nil || sk == nil || data == nil || of <= 0 {
		return errors.New("segment item without key, data or part count")
	}
	g, err := strconv.Atoi(strings.TrimPrefix(pk.Value, segPrefix))
	if err != nil {
		return fmt.Errorf("segment item %q: %w", pk.Value, err)
	}
	f := strings.Split(sk.Value, "#")
	if len(f) != 3 {
		return fmt.Errorf("segment key %q", sk.Value)
	}
	t, err := time.Parse(dayLayout, f[0])
	if err != nil {
		return fmt.Errorf("segment key %q: %w", sk.Value, err)
	}
	gen, err1 := strconv.ParseInt(f[1], 10, 64)
	part, err2 := strconv.Atoi(f[2])
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("segment key %q: %w", sk.Value, err)
	}
	id := segID{group: g, day: t.Unix(), gen: gen}
	ss := segs[id]
	if ss == nil {
		ss = &segSet{of: int(of), parts: map[int][]byte{}}
		segs[id] = ss
	}
	ss.parts[part] = data.Value
	return nil
}

// combine sums, for keep (every code when empty), the day items, the
// segments not merged into them (a generation past the item's), and the
// rollups m does not say are in either: those past the watermark, less
// those of a running compaction whose segment is complete or whose day
// item already has its generation.
func (s *Store) combine(m meta, rolls []rollup, items map[itemKey][]dayItem, segs map[segID]*segSet, keep string, from, to int64) (segment, error) {
	out := segment{}
	chains, his, err := covers(items)
	if err != nil {
		return nil, err
	}
	for k, chain := range chains {
		if k.day < from || k.day > to {
			continue
		}
		for _, it := range chain {
			seg, err := decodeSegment(it.data, keep)
			if err != nil {
				return nil, err
			}
			if keep == "" {
				for _, codes := range seg {
					for code := range codes {
						if s.bucketOf(code) != k.bucket {
							return nil, fmt.Errorf("%w: code %s in bucket %d", errCorrupt, code, k.bucket)
						}
					}
				}
			}
			out.merge(seg)
		}
	}
	for id, ss := range segs {
		if id.day < from || id.day > to || id.gen > m.gen {
			continue
		}
		if !ss.complete() {
			if m.running && id.gen == m.gen {
				continue // being written: its rollups are counted instead
			}
			return nil, fmt.Errorf("%w: segment %d/%s/%d has %d of %d parts", errCorrupt, id.group, daySK(id.day), id.gen, len(ss.parts), ss.of)
		}
		for _, part := range ss.parts {
			seg, err := decodeSegment(part, keep)
			if err != nil {
				return nil, err
			}
			for day, codes := range seg {
				for code, c := range codes {
					b := s.bucketOf(code)
					if s.groupOf(b) != id.group || day != id.day {
						return nil, fmt.Errorf("%w: code %s of %s in segment %d/%s", errCorrupt, code, daySK(day), id.group, daySK(id.day))
					}
					if id.gen <= his[itemKey{b, day}] {
						continue // merged into the day item
					}
					out.get(day, code).add(c)
				}
			}
		}
	}
	for _, r := range rolls {
		if wm := m.wm[r.shard]; wm != "" && clickstore.CompareSequence(r.first, wm) <= 0 {
			continue // compacted before
		}
		inRun := false
		if run := m.run[r.shard]; m.running && run != "" && clickstore.CompareSequence(r.first, run) <= 0 {
			inRun = true
		}
		seg, err := decodeSegment(r.data, keep)
		if err != nil {
			return nil, err
		}
		for day, codes := range seg {
			if day < from || day > to {
				continue
			}
			for code, c := range codes {
				if inRun {
					b := s.bucketOf(code)
					if his[itemKey{b, day}] >= m.gen || segs[segID{s.groupOf(b), day, m.gen}].complete() {
						continue // the running compaction already wrote it
					}
				}
				out.get(day, code).add(c)
			}
		}
	}
	return out, nil
}

// maxReadAttempts bounds how often a read starts over because a
// compaction started or finished while it read.
const maxReadAttempts = 8

// read returns code's counts on the days from to to (epoch seconds of
// their starts), as applied: the compacted items and the rollups not yet
// in them, read as one consistent snapshot. The compaction state is read
// before and after; if it moved, the read starts over, so a compaction
// cannot make a read count a rollup twice or not at all.
func (s *Store) read(ctx context.Context, code string, from, to int64) (segment, error) {
	ctx, cancel := context.WithTimeout(withLevel(ctx, LevelRead), s.cfg.Timeout)
	defer cancel()
	bucket := s.bucketOf(code)
	for range maxReadAttempts {
		m, err := s.readMeta(ctx)
		if err != nil {
			return nil, err
		}
		rolls, err := s.pending(ctx, m)
		if err != nil {
			return nil, dynamo.Wrap("read rollups", err)
		}
		items := map[itemKey][]dayItem{}
		err = s.query(ctx, dayPK(bucket), daySK(from)+"#", daySK(to)+"#~", func(item map[string]types.AttributeValue) error {
			k, it, err := s.parseDayItem(item)
			items[k] = append(items[k], it)
			return err
		})
		if err != nil {
			return nil, dynamo.Wrap("read day items", err)
		}
		// Segments: of the open days only (a day is closed once folded),
		// past the top of the bucket-day's chain (those below are in it).
		segs := map[segID]*segSet{}
		for d := range m.open {
			t, err := time.Parse(dayLayout, d)
			if err != nil || t.Unix() < from || t.Unix() > to {
				continue
			}
			_, hi, err := cover(items[itemKey{bucket, t.Unix()}])
			if err != nil {
				return nil, err
			}
			err = s.query(ctx, segPK(s.groupOf(bucket)), segSK(t.Unix(), hi+1, 0), daySK(t.Unix())+"#~", func(item map[string]types.AttributeValue) error {
				return addSegPart(segs, item)
			})
			if err != nil {
				return nil, dynamo.Wrap("read segments", err)
			}
		}
		after, err := s.readMeta(ctx)
		if err != nil {
			return nil, err
		}
		if after.gen != m.gen || after.running != m.running {
			continue
		}
		return s.combine(m, rolls, items, segs, code, from, to)
	}
	return nil, fmt.Errorf("read counts of %s: the compaction moved %d times: %w", code, maxReadAttempts, link.ErrUnavailable)
}

func (s *Store) parseDayItem(item map[string]types.AttributeValue) (itemKey, dayItem, error) {
	pk, _ := item[tableschema.AttrCode].(*types.AttributeValueMemberS)
	sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
	data, _ := item[attrData].(*types.AttributeValueMemberB)
	if pk == nil || sk == nil || data == nil {
		return itemKey{}, dayItem{}, errors.New("day item without key or data")
	}
	b, err := strconv.Atoi(strings.TrimPrefix(pk.Value, dayPrefix))
	if err != nil {
		return itemKey{}, dayItem{}, fmt.Errorf("day item %q: %w", pk.Value, err)
	}
	day, _, _ := strings.Cut(sk.Value, "#")
	t, err := time.Parse(dayLayout, day)
	if err != nil {
		return itemKey{}, dayItem{}, fmt.Errorf("day item %q: %w", sk.Value, err)
	}
	f := strings.Split(sk.Value, "#")
	if len(f) != 3 {
		return itemKey{}, dayItem{}, fmt.Errorf("day item key %q", sk.Value)
	}
	hi, err1 := strconv.ParseInt(f[1], 10, 64)
	lo, err2 := strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return itemKey{}, dayItem{}, fmt.Errorf("day item key %q: %w", sk.Value, err)
	}
	return itemKey{bucket: b, day: t.Unix()}, dayItem{lo: lo, hi: hi, sk: sk.Value, data: data.Value}, nil
}

// query reads every item of partition pk with a sort key in [lo, hi]
// (from lo on when hi is empty, all when both are), strongly consistent,
// page by page.
func (s *Store) query(ctx context.Context, pk, lo, hi string, each func(map[string]types.AttributeValue) error) error {
	names := map[string]string{"#pk": tableschema.AttrCode}
	values := map[string]types.AttributeValue{":pk": str(pk)}
	cond := "#pk = :pk"
	switch {
	case lo != "" && hi != "":
		cond += " AND #sk BETWEEN :lo AND :hi"
		names["#sk"], values[":lo"], values[":hi"] = tableschema.AttrBucket, str(lo), str(hi)
	case lo != "":
		cond += " AND #sk >= :lo"
		names["#sk"], values[":lo"] = tableschema.AttrBucket, str(lo)
	}
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName: &s.cfg.Table, KeyConditionExpression: &cond, ConsistentRead: aws.Bool(true),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, item := range out.Items {
			if err := each(item); err != nil {
				return err
			}
		}
	}
	return nil
}

// days are the starts of the UTC days holding the buckets of kind that
// start in [from, to).
func days(kind clickstore.Kind, from, to time.Time) (first, last int64, ok bool) {
	f, l, ok := clickstore.Starts(kind, from, to)
	return f - mod(f, secondsPerDay), l - mod(l, secondsPerDay), ok
}

// Series implements clickstore.Store.
func (s *Store) Series(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) ([]clickstore.Point, error) {
	if err := clickstore.CheckSeries(kind); err != nil {
		return nil, err
	}
	d0, d1, ok := days(kind, from, to)
	if !ok {
		return nil, nil
	}
	seg, err := s.read(ctx, code, d0, d1)
	if err != nil {
		return nil, fmt.Errorf("read %s series of %s: %w", kind, code, err)
	}
	return series(seg, code, kind, from, to), nil
}

func series(seg segment, code string, kind clickstore.Kind, from, to time.Time) []clickstore.Point {
	first, last, ok := clickstore.Starts(kind, from, to)
	if !ok {
		return nil
	}
	var points []clickstore.Point
	for _, day := range slices.Sorted(maps.Keys(seg)) {
		c := seg[day][code]
		if c == nil {
			continue
		}
		if kind == clickstore.Day {
			if c.day != (clickstore.Counts{}) && day >= first && day <= last {
				points = append(points, clickstore.Point{Start: time.Unix(day, 0).UTC(), Counts: c.day})
			}
			continue
		}
		for _, h := range slices.Sorted(maps.Keys(c.hours)) {
			if start := day + int64(h)*3600; start >= first && start <= last {
				points = append(points, clickstore.Point{Start: time.Unix(start, 0).UTC(), Counts: c.hours[h]})
			}
		}
	}
	return points
}

// Breakdown implements clickstore.Store: at most Config.MaxBreakdownItems
// entries (day and value) are summed, in day and then value order.
func (s *Store) Breakdown(ctx context.Context, code string, kind clickstore.Kind, from, to time.Time) (map[string]clickstore.Counts, bool, error) {
	if err := clickstore.CheckBreakdown(kind); err != nil {
		return nil, false, err
	}
	d0, d1, ok := days(kind, from, to)
	if !ok {
		return map[string]clickstore.Counts{}, true, nil
	}
	seg, err := s.read(ctx, code, d0, d1)
	if err != nil {
		return nil, false, fmt.Errorf("read %s breakdown of %s: %w", kind, code, err)
	}
	sums, complete := s.breakdown(seg, code, kind, d0, d1)
	return sums, complete, nil
}

func (s *Store) breakdown(seg segment, code string, kind clickstore.Kind, d0, d1 int64) (map[string]clickstore.Counts, bool) {
	sums := map[string]clickstore.Counts{}
	n := 0
	for _, day := range slices.Sorted(maps.Keys(seg)) {
		c := seg[day][code]
		if c == nil || day < d0 || day > d1 {
			continue
		}
		var dims []string
		entries := map[string]clickstore.Counts{}
		for k, n := range c.dims {
			if k.kind == kind {
				dims = append(dims, k.dim)
				entries[k.dim] = n
			}
		}
		if kind == clickstore.Campaign && len(dims) > clickstore.MaxCampaigns {
			// Rollups and segments not merged yet are not capped.
			clickstore.CapCampaigns(entries)
			dims = slices.Collect(maps.Keys(entries))
		}
		slices.Sort(dims)
		for _, d := range dims {
			if n == s.cfg.MaxBreakdownItems {
				return sums, false
			}
			if kind != clickstore.Visitor {
				// A day holds at most a register per index of visitor
				// observations: they need no bound of their own.
				n++
			}
			v := sums[d]
			v.Add(entries[d])
			sums[d] = v
		}
	}
	return sums, true
}

// View reads code's counts of the UTC days that [from, to) touches once,
// and answers Series and Breakdown within them from memory: a stats answer
// (a series and two breakdowns) is one read.
func (s *Store) View(ctx context.Context, code string, from, to time.Time) (*View, error) {
	v := &View{store: s, code: code, seg: segment{}}
	d0, d1, ok := days(clickstore.Day, from, to)
	if !ok {
		return v, nil
	}
	seg, err := s.read(ctx, code, d0, d1)
	if err != nil {
		return nil, fmt.Errorf("read counts of %s: %w", code, err)
	}
	v.seg, v.d0, v.d1, v.ok = seg, d0, d1, true
	return v, nil
}

// View is one code's counts over whole UTC days, as read by Store.View.
type View struct {
	store  *Store
	code   string
	seg    segment
	d0, d1 int64
	ok     bool
}

// covers refuses a request for another code or for days the view did not
// read.
func (v *View) covers(code string, kind clickstore.Kind, from, to time.Time) (d0, d1 int64, ok bool, err error) {
	d0, d1, ok = days(kind, from, to)
	if code != v.code {
		return 0, 0, false, fmt.Errorf("a view of %s asked for %s", v.code, code)
	}
	if ok && (!v.ok || d0 < v.d0 || d1 > v.d1) {
		return 0, 0, false, fmt.Errorf("a view of %s asked for days it did not read", code)
	}
	return d0, d1, ok, nil
}

// Series is Store.Series within the view.
func (v *View) Series(_ context.Context, code string, kind clickstore.Kind, from, to time.Time) ([]clickstore.Point, error) {
	if err := clickstore.CheckSeries(kind); err != nil {
		return nil, err
	}
	if _, _, _, err := v.covers(code, kind, from, to); err != nil {
		return nil, err
	}
	return series(v.seg, code, kind, from, to), nil
}

// Breakdown is Store.Breakdown within the view.
func (v *View) Breakdown(_ context.Context, code string, kind clickstore.Kind, from, to time.Time) (map[string]clickstore.Counts, bool, error) {
	if err := clickstore.CheckBreakdown(kind); err != nil {
		return nil, false, err
	}
	d0, d1, ok, err := v.covers(code, kind, from, to)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return map[string]clickstore.Counts{}, true, nil
	}
	sums, complete := v.store.breakdown(v.seg, code, kind, d0, d1)
	return sums, complete, nil
}

// Counts returns every counter the store holds, as counter items: the
// compacted items and the rollups not yet in them. It scans the table: for
// tests and tools, never for a request.
func (s *Store) Counts(ctx context.Context) (map[clickstore.Key]clickstore.Counts, error) {
	ctx = withLevel(ctx, LevelRead)
	for range maxReadAttempts {
		m, err := s.readMeta(ctx)
		if err != nil {
			return nil, err
		}
		var rolls []rollup
		items := map[itemKey][]dayItem{}
		segs := map[segID]*segSet{}
		p := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{TableName: &s.cfg.Table, ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				return nil, dynamo.Wrap("scan counts", err)
			}
			for _, item := range out.Items {
				pk, _ := item[tableschema.AttrCode].(*types.AttributeValueMemberS)
				if pk == nil {
					continue
				}
				switch {
				case strings.HasPrefix(pk.Value, dayPrefix):
					k, it, err := s.parseDayItem(item)
					if err != nil {
						return nil, err
					}
					items[k] = append(items[k], it)
				case strings.HasPrefix(pk.Value, segPrefix):
					if sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS); sk != nil && strings.HasSuffix(sk.Value, mergedSuffix) {
						continue // a merge marker, no segment
					}
					if err := addSegPart(segs, item); err != nil {
						return nil, err
					}
				case strings.HasPrefix(pk.Value, rollupPrefix):
					sk, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
					data, _ := item[attrData].(*types.AttributeValueMemberB)
					last, _ := item[attrLast].(*types.AttributeValueMemberS)
					if sk == nil || data == nil || last == nil || len(sk.Value) < 4 {
						return nil, errors.New("malformed rollup item")
					}
					first, _, _ := strings.Cut(sk.Value[3:], "#")
					rolls = append(rolls, rollup{shard: strings.TrimPrefix(pk.Value, rollupPrefix), first: first, last: last.Value, data: data.Value})
				}
			}
		}
		after, err := s.readMeta(ctx)
		if err != nil {
			return nil, err
		}
		if after.gen != m.gen || after.running != m.running {
			continue
		}
		seg, err := s.combine(m, rolls, items, segs, "", -1<<62, 1<<62)
		if err != nil {
			return nil, err
		}
		out := map[clickstore.Key]clickstore.Counts{}
		for _, it := range seg.items() {
			out[it.Key] = it.Counts
		}
		return out, nil
	}
	return nil, fmt.Errorf("scan counts: the compaction kept moving: %w", link.ErrUnavailable)
}

// each runs f on every item, n at a time, and returns the first error.
func each[T any](ctx context.Context, items []T, n int, f func(context.Context, T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan T)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(n, len(items)) {
		wg.Go(func() {
			for it := range work {
				if err := f(ctx, it); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
	return first
}
