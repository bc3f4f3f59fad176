// Package clicksfn counts clicks: it consumes CloudFront real-time log
// records from Kinesis (events.KinesisEvent, with partial batch failures
// reported), keeps the redirects answered for short codes, classifies
// bots, aggregates per code and bucket in memory and writes the increments
// to the analytics table exactly once. The Lambda in functions/clicks and
// the local gateway's Kinesis poller run this same handler.
//
// # One batch
//
// Every Kinesis record holds one log line, as CloudFront writes them. It is
// parsed (clicklog.Parser) and classified (clicklog.Classify); records that
// are not clicks are dropped, and a request logged twice in the batch (same
// x-edge-request-id, compared by 64-bit hash) counts once. The batch is
// then cut, in order, into chunks of at most the store's
// clickstore.MaxChunkItems counter items, and each chunk is applied as one
// TransactWriteItems that also advances the shard's checkpoint
// (clickstore.Store.Apply). With dynamo.ClickStore (SHORTENER_CLICK_STORE=items,
// one item per counter) a chunk is at most 99 items; with packedclicks
// (the default layout) it is a whole shard batch: one
// transaction of a compact rollup and the checkpoint. A click touches at most eight items
// (hour, day, country, referrer, destination, agent, campaign, visitor); a
// chunk closes when eight more could overflow it, which spares a lookup per
// click.
//
// # Breakdowns and visitors
//
// Each click also counts under its agent (device, OS and browser together,
// clicklog.ClassifyAgent) and, when its request carried utm_ parameters,
// its campaign (clicklog.ParseCampaign). A human click with an address
// adds a visitor observation: a HyperLogLog register of HMAC(the day's
// salt, IP + User-Agent) (package visitors). The address is read from the
// record and forgotten; only the register, a few bits, is stored. A
// redelivered batch computes the same observations under the same salt,
// and they are a set, so visitors stay counted once too.
//
// After the batch, every CompactEvery applied chunks (and after the first
// batch an instance applies, so that a quiet stream's rollups are
// compacted even if Lambda recycles instances sooner), the handler runs the
// store's compaction (packedclicks.Store.Compact), which folds the rollups
// of every shard into the items the stats API reads, exactly once; a
// compaction that fails is logged and left to the next.
//
// # Exactly once
//
// The shard's checkpoint is the highest sequence number applied, written
// in the same transaction as the counts, on the condition that it is below
// the chunk's first sequence number. A redelivered chunk fails that
// condition; the handler then reads the checkpoint and skips every record
// at or below it, which also handles a retry cut at other boundaries than
// the first attempt. We did not pick a dedup item per request (one more
// write per click, doubling the cost at 10 B clicks a month) nor per batch
// (a retried batch need not have the same records). The edge request id
// dedupes only within a batch: a duplicate CloudFront delivers to another
// batch counts twice, which real-time logs, best effort by AWS's own
// account, make no worse. It needs ParallelizationFactor 1 on the event
// source mapping, so one invocation at a time works on a shard.
//
// A chunk that fails for another reason (throttling past the SDK's
// retries, DynamoDB down, the invocation running out of time) stops the
// batch: its first record's sequence number is reported as the batch item
// failure, so Lambda retries from there; earlier chunks are committed and
// will be skipped by the checkpoint if they come back. A chunk that lost a
// transaction conflict (a hot link counted from several shards at once) is
// retried a few times first.
//
// # link.clicked events
//
// Once a batch is counted, the clicks of the records it counted (all of
// them, or those before the chunk it failed on) go to Events as one
// webhook.ClickBatch named by their shard and sequence range, and become
// link.clicked events on the delivery queue. Counting goes first and never
// waits on them: whatever the queue, the owners' links or the webhooks
// table do, the shard moves on. Events that cannot be queued within
// PublishTimeout are kept in the Outbox (dynamo.Outbox: a partition of the
// analytics table) and queued later by retryPending: by any handler at
// most every RetryEvery while batches come, and by every invocation with
// no records, which a schedule sends so that a quiet stream's outbox
// empties too. A kept batch is claimed before it is tried, so one try at a
// time has it, and tried again after a backoff (5 s doubling to 5 min)
// while the queue fails. So the delay of an event is bounded by the
// outage, plus the backoff, plus the next look (RetryEvery, or the
// schedule's period); ClickEventsPendingAge, the wait of the oldest event
// due, is what to alarm on. Only when the outbox cannot keep them either
// (DynamoDB failing too) is the batch reported failed from its first
// record: the checkpoint skips what was counted, and the events go again
// under the same IDs.
//
// # Poison records
//
// A record that does not parse is counted in the PoisonRecords metric,
// logged (the first few per batch, with shard and sequence number, so a
// format drift cannot flood the logs) and skipped; it never blocks the
// shard. Reporting it as a failure would not park it anywhere useful: for
// Kinesis, an SQS or SNS on-failure destination receives only the batch's
// metadata (shard and sequence number range), not the data, and would get
// it only after the retries run out, having held back every good record
// behind it and then discarding them with it. The log line is where a
// poison record can be read; the on-failure destination stays for batches
// that fail on DynamoDB, whose ranges can be replayed from the stream
// within its retention. An alarm on PoisonRecords catches a format drift
// between the real-time log configuration and this parser.
package clicksfn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

// Compactor folds applied chunks into a store's compacted form, exactly
// once; *packedclicks.Store satisfies it.
type Compactor interface {
	Compact(ctx context.Context) (packedclicks.Compaction, error)
}

var _ Compactor = (*packedclicks.Store)(nil)

// compact runs the compactor after the first batch this handler applied
// chunks of, then once applied chunks add up to CompactEvery: at low
// traffic Lambda may recycle an instance before it applies CompactEvery
// chunks, and rollups never compacted expire
// (packedclicks.DefaultRollupRetention) with no CompactionLag to alarm on.
func (h *Handler) compact(ctx context.Context, applied int) {
	if h.Compactor == nil || applied == 0 {
		return
	}
	every := h.CompactEvery
	if every <= 0 {
		every = DefaultCompactEvery
	}
	if h.sinceCompact.Add(int64(applied)) < int64(every) && h.compacted.Load() {
		return
	}
	h.runCompaction(ctx)
}

// DefaultScheduledCompactEvery bounds how often invocations with no
// records (the retry rule's, every minute) compact.
const DefaultScheduledCompactEvery = time.Hour

// compactScheduled compacts on an invocation with no records, at most
// once per DefaultScheduledCompactEvery per instance: the alarm on
// compactions missing counts the function's invocations, and on a quiet
// stream the retry rule's invocations would otherwise be many with none.
func (h *Handler) compactScheduled(ctx context.Context) {
	if h.Compactor == nil {
		return
	}
	if last := h.lastCompact.Load(); last != 0 && h.now().Sub(time.Unix(0, last)) < DefaultScheduledCompactEvery {
		return
	}
	h.runCompaction(ctx)
}

func (h *Handler) runCompaction(ctx context.Context) {
	h.compacted.Store(true)
	h.sinceCompact.Store(0)
	h.lastCompact.Store(h.now().UnixNano())
	res, err := h.Compactor.Compact(ctx)
	if err != nil {
		h.Metrics.Add("CompactionFailures", metrics.Count, 1)
		h.Log.WarnContext(ctx, "compaction failed; the next one resumes it", "error", err.Error())
		return
	}
	if res.Busy {
		h.Metrics.Add("CompactionsBusy", metrics.Count, 1)
		return
	}
	h.Metrics.Add("Compactions", metrics.Count, 1)
	h.Metrics.Add("CompactedRollups", metrics.Count, float64(res.Rollups))
	h.Metrics.Add("CompactedItems", metrics.Count, float64(res.Items))
	h.Metrics.Add("MergedDayItems", metrics.Count, float64(res.Merged))
	// How long the oldest rollup it took waited: alarm far below
	// packedclicks.DefaultRollupRetention (30 days), e.g. at a day.
	h.Metrics.Observe("CompactionLag", metrics.Milliseconds, float64(res.Lag.Milliseconds()))
}

// Store applies chunks exactly once; every clickstore.Store satisfies it.
type Store interface {
	Apply(ctx context.Context, c clickstore.Chunk) error
	Checkpoint(ctx context.Context, shard string) (string, error)
}

var _ Store = clickstore.Store(nil)

// Defaults of Handler.
const (
	DefaultAttempts = 3
	// DefaultCompactEvery: with 1,000-record batches a compaction takes
	// about 16,000 clicks' rollups, which keeps what a stats read sums from
	// rollups small while each day item it rewrites gains many clicks.
	DefaultCompactEvery = 16
	DefaultBackoff      = 20 * time.Millisecond
	// maxLoggedPoison bounds the poison records logged per batch.
	maxLoggedPoison = 5
	// maxLoggedBytes bounds how much of a poison record is logged.
	maxLoggedBytes = 1024
	// itemsPerClick is the most counter items one click touches: hour,
	// day, country, referrer, a decided link's destination, its agent
	// (device, OS and browser), its campaign and its visitor observation.
	itemsPerClick = 8
)

// Options are what New builds a Handler from: the store the counts go
// to, its compaction, the retries of a conflicted chunk and the
// link.clicked events.
type Options struct {
	Store Store
	// MaxItems caps the counter items of one chunk; the store's
	// (clickstore.MaxChunkItems) when zero or larger.
	MaxItems int
	// Compactor, when set, folds the applied chunks into the store's
	// compacted form after the first batch this handler applied and then
	// after every CompactEvery chunks it applied
	// (packedclicks). Its failure does not fail the batch: the counts are
	// committed and read as they are, and the next run compacts them.
	Compactor Compactor
	// CompactEvery is how many applied chunks trigger a compaction;
	// DefaultCompactEvery when zero.
	CompactEvery int
	// Attempts bounds the tries of a chunk that lost a transaction
	// conflict; DefaultAttempts when zero.
	Attempts int
	// Backoff is the base wait before retrying a conflicted chunk, doubled
	// each time and jittered; DefaultBackoff when zero.
	Backoff time.Duration
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Events, when set, hears of each batch's clicks per code once they
	// are counted (link.clicked webhooks, events.go).
	Events ClickEvents
	// Outbox, when set, keeps the events Events could not queue, for
	// retryPending; without it such a batch is retried (not recounted).
	Outbox Outbox
	// PublishTimeout bounds one try to queue a batch's events;
	// DefaultPublishTimeout when zero.
	PublishTimeout time.Duration
	// RetryEvery is how often the handler looks at the outbox while
	// batches come; DefaultRetryEvery when zero.
	RetryEvery time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Salts, when set, hands out the day's visitor salt (cache it:
	// visitors.Cache), and each human click with an address adds its
	// visitor observation (visitors.Observe); without it no click does.
	Salts visitors.Salts
}

// Handler counts clicks from CloudFront real-time log records.
type Handler struct {
	Options
	sinceCompact atomic.Int64
	compacted    atomic.Bool  // this handler has run a compaction
	lastCompact  atomic.Int64 // unix nanoseconds of its last compaction
	lastLook     atomic.Int64 // unix nanoseconds of the last look at the outbox; 0: look at the next batch
}

// New builds a handler from o.
func New(o Options) *Handler { return &Handler{Options: o} }

func (h *Handler) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// Handle counts the clicks of one Kinesis batch, then publishes them as
// link.clicked events (events.go). An event with no records, which the
// schedule sends, only queues the outbox's pending events.
func (h *Handler) Handle(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
	b := h.reduce(ctx, ev.Records)
	resp, end := h.apply(ctx, b)
	if err := h.publish(ctx, b, end); err != nil {
		// Neither queued nor kept: the batch comes again from its first
		// record, whose counted clicks the checkpoint skips.
		h.Metrics.Add("ClickEventsFailures", metrics.Count, 1)
		h.Log.ErrorContext(ctx, "queue or keep link.clicked events; the batch is retried", "error", err.Error())
		resp = events.KinesisEventResponse{BatchItemFailures: []events.KinesisBatchItemFailure{
			{ItemIdentifier: ev.Records[0].Kinesis.SequenceNumber}}}
	}
	h.compact(ctx, b.applied)
	if len(ev.Records) == 0 {
		h.compactScheduled(ctx)
	}
	h.retryPending(ctx, len(ev.Records) == 0)
	if err := h.Metrics.Flush(); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

// batch is a Kinesis batch reduced to clicks, in record order, packed
// small: a batch holds up to 10,000 records.
type batch struct {
	records []events.KinesisEventRecord
	// shards are the checkpoint names of the batch, in order of appearance:
	// one, from Lambda.
	shards  []string
	entries []entry // one per record
	clicks  []click
	agg     aggregator
	applied int // chunks applied
}

// entry is one Kinesis record reduced: its shard, and its click if it is
// one.
type entry struct {
	shard int32 // into batch.shards
	click int32 // into batch.clicks; -1 when the record is no click
}

// click is a clicklog.Click packed for the batch.
type click struct {
	code, referrer string
	// agent is its clickstore.AgentDim, campaign its clicklog.Campaign.Key
	// ("" when it had none), visitor its visitors.Register.Dim ("" when
	// none: a bot, no address, no salt).
	agent, campaign, visitor string
	// destination is a decided link's (clicklog.Click.Destination).
	destination string
	ms          int64 // epoch milliseconds
	country     [2]byte
	bot         bool
}

func (b *batch) seq(i int) string   { return b.records[i].Kinesis.SequenceNumber }
func (b *batch) shard(i int) string { return b.shards[b.entries[i].shard] }

// reduce parses, classifies and dedupes the batch's records.
func (h *Handler) reduce(ctx context.Context, records []events.KinesisEventRecord) *batch {
	b := &batch{records: records, entries: make([]entry, len(records)), clicks: make([]click, 0, len(records))}
	seen := newIDSet(len(records))
	var parser clicklog.Parser // the batch's records share its memory
	var poison, ignored, dupes, bots int
	var arn, id string                    // of the current shard
	agents := map[clicklog.Agent]string{} // a few names, many clicks
	var noSalt int
	for i := range records {
		rec := &records[i]
		// Lambda puts the shard ID before the colon of the event ID.
		recID, _, _ := strings.Cut(rec.EventID, ":")
		if len(b.shards) == 0 || rec.EventSourceArn != arn || recID != id {
			arn, id = rec.EventSourceArn, recID
			b.shards = append(b.shards, arn+"/"+id)
		}
		b.entries[i] = entry{shard: int32(len(b.shards) - 1), click: -1}
		// CloudFront writes one log line per Kinesis record; a record of
		// two lines has too many fields and is poison like any other.
		r, err := parser.Parse(rec.Kinesis.Data)
		if err != nil {
			poison++
			if poison <= maxLoggedPoison {
				h.Log.WarnContext(ctx, "skipped unparseable log record", "error", err.Error(),
					"shard", b.shard(i), "sequence_number", b.seq(i), "record", truncate(rec.Kinesis.Data))
			}
			continue
		}
		c, ok := clicklog.Classify(&r)
		if !ok {
			ignored++
			continue
		}
		if r.RequestID != "" && !seen.add(r.RequestID) {
			dupes++
			continue
		}
		if c.Bot {
			bots++
		}
		pc := click{code: c.Code, referrer: c.Referrer, destination: c.Destination, ms: c.Time.UnixMilli(), bot: c.Bot}
		copy(pc.country[:], c.Country)
		ad, ok := agents[c.Agent]
		if !ok {
			ad = clickstore.AgentDim(c.Agent.Device, c.Agent.OS, c.Agent.Browser)
			agents[c.Agent] = ad
		}
		pc.agent = ad
		if !c.Campaign.IsZero() {
			pc.campaign = c.Campaign.Key()
		}
		if h.Salts != nil && !c.Bot && r.ClientIP != "" {
			salt, ok, err := h.Salts.Salt(ctx, pc.ms/msPerDay*86400)
			switch {
			case err != nil:
				// Counting goes on without the visitor: a salt that
				// cannot be read must not hold the shard back.
				noSalt++
				if noSalt == 1 {
					h.Log.WarnContext(ctx, "visitor salt unavailable; clicks counted without visitors", "error", err.Error())
				}
			case ok:
				pc.visitor = visitors.Observe(salt, r.ClientIP, r.UserAgent).Dim()
			}
		}
		b.entries[i].click = int32(len(b.clicks))
		b.clicks = append(b.clicks, pc)
	}
	h.Metrics.Add("Records", metrics.Count, float64(len(records)))
	h.Metrics.Add("Clicks", metrics.Count, float64(len(b.clicks)))
	h.Metrics.Add("BotClicks", metrics.Count, float64(bots))
	h.Metrics.Add("PoisonRecords", metrics.Count, float64(poison))
	h.Metrics.Add("IgnoredRecords", metrics.Count, float64(ignored))
	h.Metrics.Add("DuplicateRecords", metrics.Count, float64(dupes))
	if noSalt > 0 {
		h.Metrics.Add("VisitorSaltFailures", metrics.Count, float64(noSalt))
	}
	return b
}

// idSet remembers the edge request ids of a batch by their 64-bit hashes,
// in an open-addressing table: a fraction of a map's size and faster to
// probe, and request ids are 56 bytes. Two distinct ids of a batch of
// 10,000 share a hash with odds of about 1 in 10^11; the loser would go
// uncounted.
type idSet struct {
	seed  maphash.Seed
	slots []uint64 // 0 is empty
}

func newIDSet(n int) *idSet {
	size := 16
	for size < n+n/2 {
		size *= 2
	}
	return &idSet{seed: maphash.MakeSeed(), slots: make([]uint64, size)}
}

// add adds id and reports whether it was new.
func (s *idSet) add(id string) bool {
	h := maphash.String(s.seed, id) | 1 // never 0, the empty mark
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			return true
		}
	}
}

func truncate(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if len(line) > maxLoggedBytes {
		return string(line[:maxLoggedBytes]) + "..."
	}
	return string(line)
}

func (h *Handler) maxItems() int {
	limit := clickstore.MaxChunkItems(h.Store)
	if h.MaxItems <= 0 || h.MaxItems > limit {
		return limit
	}
	return max(h.MaxItems, itemsPerClick)
}

// chunk aggregates the records from i on into one chunk: same shard, at
// most maxItems counter items. It returns the chunk and the index of the
// first record left out. A chunk may have no items when its records held
// no clicks. The chunk's items are valid until the next call: apply is done
// with a chunk before it cuts the next.
func (b *batch) chunk(i, maxItems int) (clickstore.Chunk, int) {
	a := &b.agg
	a.reset(maxItems)
	shard := b.entries[i].shard
	j := i
	for ; j < len(b.entries); j++ {
		e := b.entries[j]
		if e.shard != shard {
			break
		}
		if e.click < 0 {
			continue
		}
		// Counting five new items per click overestimates, and costs at
		// most four slots of a transaction, but needs no lookups.
		if j > i && len(a.items)+itemsPerClick > maxItems {
			break
		}
		a.add(&b.clicks[e.click])
	}
	return clickstore.Chunk{Shard: b.shards[shard], First: b.seq(i), Last: b.seq(j - 1), Items: a.items}, j
}

// aggregator sums clicks into the counter items of one chunk, in a slice,
// found through an open-addressing table by a hash of the item's key: a
// click's code and referrer are hashed once, and finding each of its items
// is a probe and a comparison.
type aggregator struct {
	seed  maphash.Seed
	slots []uint32 // 1 + position in items; 0 is empty
	shift uint     // 64 - log2(len(slots)): the hash's high bits pick the slot
	items []clickstore.Item
}

func (a *aggregator) reset(maxItems int) {
	if a.items == nil || cap(a.items) < maxItems {
		a.seed = maphash.MakeSeed()
		a.items = make([]clickstore.Item, 0, maxItems)
		// More than twice the items, so probes stay short.
		size, bits := 256, uint(8)
		for size < 2*maxItems+1 {
			size, bits = size*2, bits+1
		}
		a.slots, a.shift = make([]uint32, size), 64-bits
	}
	clear(a.slots)
	a.items = a.items[:0]
}

const (
	msPerHour = 60 * 60 * 1000
	msPerDay  = 24 * msPerHour
)

func (a *aggregator) add(c *click) {
	code := maphash.String(a.seed, c.code)
	hours, days := c.ms/msPerHour, c.ms/msPerDay // clicks are never before 1970
	day := clickstore.Key{Code: c.code, Kind: clickstore.Day, Start: days * 86400}
	a.bump(code^spread(clickstore.Hour, hours, 0), clickstore.Key{Code: c.code, Kind: clickstore.Hour, Start: hours * 3600}, c.bot)
	a.bump(code^spread(clickstore.Day, days, 0), day, c.bot)
	if c.country != [2]byte{} {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Country, Start: day.Start, Dim: string(c.country[:])}
		a.bump(code^spread(clickstore.Country, days, uint64(c.country[0])<<8|uint64(c.country[1])), k, c.bot)
	}
	if c.referrer != "" {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Referrer, Start: day.Start, Dim: c.referrer}
		a.bump(code^spread(clickstore.Referrer, days, 0)^maphash.String(a.seed, c.referrer), k, c.bot)
	}
	if c.destination != "" {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Destination, Start: day.Start, Dim: c.destination}
		a.bump(code^spread(clickstore.Destination, days, 0)^maphash.String(a.seed, c.destination), k, c.bot)
	}
	if c.agent != "" {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Agent, Start: day.Start, Dim: c.agent}
		a.bump(code^spread(clickstore.Agent, days, 0)^maphash.String(a.seed, c.agent), k, c.bot)
	}
	if c.campaign != "" {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Campaign, Start: day.Start, Dim: c.campaign}
		a.bump(code^spread(clickstore.Campaign, days, 0)^maphash.String(a.seed, c.campaign), k, c.bot)
	}
	if c.visitor != "" {
		k := clickstore.Key{Code: c.code, Kind: clickstore.Visitor, Start: day.Start, Dim: c.visitor}
		a.bump(code^spread(clickstore.Visitor, days, 0)^maphash.String(a.seed, c.visitor), k, c.bot)
	}
}

// spread mixes an item's kind, bucket and small dimension into the high
// bits, which pick the slot.
func spread(kind clickstore.Kind, bucket int64, dim uint64) uint64 {
	return (uint64(kind)<<60 ^ uint64(bucket)<<16 ^ dim) * 0x9E3779B97F4A7C15
}

func (a *aggregator) bump(h uint64, k clickstore.Key, bot bool) {
	mask := uint64(len(a.slots) - 1)
	for i := h >> a.shift; ; i = (i + 1) & mask {
		s := a.slots[i]
		if s == 0 {
			it := clickstore.Item{Key: k}
			it.AddClick(bot)
			a.items = append(a.items, it)
			a.slots[i] = uint32(len(a.items))
			return
		}
		if it := &a.items[s-1]; it.Key == k {
			it.AddClick(bot)
			return
		}
	}
}

// apply writes the batch chunk by chunk and reports the first record of
// the first chunk that failed, and how many records, from the first, are
// counted (applied now or before).
func (h *Handler) apply(ctx context.Context, b *batch) (events.KinesisEventResponse, int) {
	maxItems := h.maxItems()
	for i := 0; i < len(b.entries); {
		c, next := b.chunk(i, maxItems)
		if len(c.Items) == 0 {
			i = next // nothing to count, nothing to write
			continue
		}
		if err := ctx.Err(); err != nil {
			return h.fail(ctx, b, i, fmt.Errorf("stopped before chunk %s..%s: %w", c.First, c.Last, err)), i
		}
		err := h.applyChunk(ctx, c)
		switch {
		case err == nil:
			h.Metrics.Add("ChunksApplied", metrics.Count, 1)
			b.applied++
			i = next
		case errors.Is(err, clickstore.ErrApplied):
			// Applied before, in full or in part: skip what the
			// checkpoint covers and go on from the first record past it.
			cp, cerr := h.Store.Checkpoint(ctx, c.Shard)
			if cerr != nil {
				return h.fail(ctx, b, i, cerr), i
			}
			j := i
			for j < len(b.entries) && b.entries[j].shard == b.entries[i].shard && clickstore.CompareSequence(b.seq(j), cp) <= 0 {
				j++
			}
			if j == i {
				return h.fail(ctx, b, i, fmt.Errorf("chunk %s..%s failed its condition, yet the checkpoint is %s", c.First, c.Last, cp)), i
			}
			h.Metrics.Add("RecordsAlreadyApplied", metrics.Count, float64(j-i))
			i = j
		default:
			return h.fail(ctx, b, i, err), i
		}
	}
	return events.KinesisEventResponse{}, len(b.entries)
}

// applyChunk applies c, retrying a few times when it lost a transaction
// conflict.
func (h *Handler) applyChunk(ctx context.Context, c clickstore.Chunk) error {
	attempts := h.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	backoff := h.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	for attempt := 1; ; attempt++ {
		err := h.Store.Apply(ctx, c)
		if !errors.Is(err, clickstore.ErrContended) || attempt >= attempts {
			return err
		}
		h.Metrics.Add("ChunksContended", metrics.Count, 1)
		wait := backoff<<(attempt-1)/2 + rand.N(backoff<<(attempt-1))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// fail reports record i and everything after it for a retry. Lambda
// checkpoints below the reported sequence number, so earlier chunks stay
// committed.
func (h *Handler) fail(ctx context.Context, b *batch, i int, err error) events.KinesisEventResponse {
	h.Metrics.Add("BatchFailures", metrics.Count, 1)
	h.Log.ErrorContext(ctx, "click batch failed; retrying from a record", "error", err.Error(),
		"shard", b.shard(i), "sequence_number", b.seq(i))
	return events.KinesisEventResponse{BatchItemFailures: []events.KinesisBatchItemFailure{{ItemIdentifier: b.seq(i)}}}
}
