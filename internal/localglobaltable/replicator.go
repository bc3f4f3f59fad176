package localglobaltable

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/internal/localstream"
)

// DefaultDelay is how long a write takes to reach the other replicas:
// about a second, as MREC replication usually takes.
const DefaultDelay = time.Second

// DynamoDBAPI lists the calls the replicator and its stream pollers make.
type DynamoDBAPI interface {
	localstream.DynamoDBAPI
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// Replica is one Region's table of a global table.
type Replica struct {
	Region string
	Table  string
}

// Options configure a Replicator.
type Options struct {
	// Tables are the global tables, each as its replicas in Region order
	// (the order breaks ties between writes read at the same instant).
	Tables [][]Replica
	// VersionAttribute, when an item has it, guards the replicator's
	// write: the write happens only if the item still carries the value
	// last seen.
	VersionAttribute string
	// Delay is the replication lag (DefaultDelay; negative: none).
	Delay time.Duration
	// PollInterval is the stream pollers' (localstream's default when 0).
	PollInterval time.Duration
	// Log gets failures; slog.Default() when nil.
	Log *slog.Logger
}

// Stats count what the replicator did.
type Stats struct {
	// Applied are writes copied into a replica.
	Applied int64 `json:"applied"`
	// Superseded are copies dropped because the target held a later write:
	// the losers of last writer wins.
	Superseded int64 `json:"superseded"`
	// Failed are copies given up on after errors.
	Failed int64 `json:"failed"`
}

// Replicator copies every write of each replica to the others.
type Replicator struct {
	db      DynamoDBAPI
	streams localstream.StreamsAPI
	opts    Options
	log     *slog.Logger
	groups  []*group

	// mu serializes the replicator's reads of the streams' changes and its
	// copies, so what it knows of each replica stays in step with what it
	// writes there.
	mu      sync.Mutex
	pending sync.WaitGroup

	applied, superseded, failed atomic.Int64
}

// group is one global table.
type group struct {
	replicas []Replica
	// held is, per replica, what the replicator knows each item there to
	// be: by the item's key.
	held []map[string]held
	// seen is, per replica, the stream records already taken, by sequence
	// number (unique in a stream; DynamoDB Local may give a record read
	// twice a new event ID).
	seen []*recent
}

// recent is a bounded set of the last stream records' sequence numbers. A stream
// read again from its trim horizon (after TrimmedDataAccessException, or a
// restart) hands over records already copied; copied again, with the stamp
// of their second reading, they would win last writer wins over the later
// writes they precede. DynamoDB's global tables apply each write once
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
type recent struct {
	ids   map[string]struct{}
	order []string
	next  int
}

// recentRecords is how many sequence numbers a replica remembers: far more than
// a stream shard holds in the local run.
const recentRecords = 1 << 16

// add reports whether id is new, and remembers it.
func (r *recent) add(id string) bool {
	if id == "" {
		return true
	}
	if _, ok := r.ids[id]; ok {
		return false
	}
	if r.ids == nil {
		r.ids, r.order = map[string]struct{}{}, make([]string, recentRecords)
	}
	if old := r.order[r.next]; old != "" {
		delete(r.ids, old)
	}
	r.order[r.next], r.next = id, (r.next+1)%recentRecords
	r.ids[id] = struct{}{}
	return true
}

// held is an item's state in one replica as the replicator last knew it.
type held struct {
	stamp stamp
	// fp is the item's fingerprint; "" when there is no item.
	fp string
	// version is the item's VersionAttribute value, nil without one.
	version types.AttributeValue
	// echoes are the fingerprints of the copies the replicator wrote
	// there whose changes have not come back on that replica's stream yet,
	// oldest first: each one that comes back is an echo, not a write to
	// copy. Remembering only the last copy is not enough: two copies of
	// one item into one replica (from two others, or two writes of one)
	// before the first echo comes back made that echo look like a new
	// write, copied back out with a later stamp: an old version returned
	// to every replica, and copies of copies ping-ponged between three.
	echoes []string
}

// echo reports whether fp is one of h's pending echoes, and drops it and
// any before it (a stream keeps one item's changes in order).
func (h *held) echo(fp string) bool {
	for k, e := range h.echoes {
		if e == fp {
			h.echoes = h.echoes[k+1:]
			return true
		}
	}
	return false
}

// stamp orders writes: by when they were read, then by replica.
type stamp struct {
	at      time.Time
	replica int
}

func (s stamp) after(o stamp) bool {
	return s.at.After(o.at) || s.at.Equal(o.at) && s.replica > o.replica
}

// write is one change to copy.
type write struct {
	stamp   stamp
	keys    map[string]types.AttributeValue
	key     string
	item    map[string]types.AttributeValue // nil: a deletion
	fp      string
	version types.AttributeValue
}

// New returns a replicator; it does nothing until Run.
func New(db DynamoDBAPI, streams localstream.StreamsAPI, o Options) (*Replicator, error) {
	if len(o.Tables) == 0 {
		return nil, errors.New("localglobaltable: no tables")
	}
	r := &Replicator{db: db, streams: streams, opts: o, log: o.Log}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.opts.Delay == 0 {
		r.opts.Delay = DefaultDelay
	}
	for _, t := range o.Tables {
		if len(t) < 2 {
			return nil, fmt.Errorf("localglobaltable: %v: a global table needs two replicas or more", t)
		}
		g := &group{replicas: t}
		for range t {
			g.held = append(g.held, map[string]held{})
			g.seen = append(g.seen, &recent{})
		}
		r.groups = append(r.groups, g)
	}
	return r, nil
}

// Stats returns the counts so far.
func (r *Replicator) Stats() Stats {
	return Stats{Applied: r.applied.Load(), Superseded: r.superseded.Load(), Failed: r.failed.Load()}
}

// Run reads every replica's stream until ctx is done, then waits for the
// copies already started.
func (r *Replicator) Run(ctx context.Context) error {
	var pollers []*localstream.Poller
	for _, g := range r.groups {
		for i, rep := range g.replicas {
			p, err := localstream.New(r.db, r.streams, localstream.Options{
				Table: rep.Table, Handler: r.handler(ctx, g, i), Region: rep.Region,
				PollInterval: r.opts.PollInterval,
				// TTL deletions are the links table's stream consumer's to
				// play, in its own replica; they replicate from there.
				DisableTTLSweep: true,
				Log:             r.log.With("replica", rep.Table),
			})
			if err != nil {
				return err
			}
			pollers = append(pollers, p)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(pollers))
	for i, p := range pollers {
		wg.Go(func() { errs[i] = p.Run(ctx) })
	}
	wg.Wait()
	r.pending.Wait()
	return errors.Join(errs...)
}

// handler takes replica i's changes.
func (r *Replicator) handler(ctx context.Context, g *group, i int) localstream.Handler {
	return func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		now := time.Now()
		for _, rec := range ev.Records {
			if !g.seen[i].add(rec.Change.SequenceNumber) {
				continue // read again from the trim horizon: copied already
			}
			w := write{stamp: stamp{at: now, replica: i}, keys: attributeValues(rec.Change.Keys)}
			w.key = fingerprint(w.keys)
			if len(rec.Change.NewImage) > 0 {
				w.item = attributeValues(rec.Change.NewImage)
				w.fp = fingerprint(w.item)
				w.version = w.item[r.opts.VersionAttribute]
			}
			h := g.held[i][w.key]
			if h.echo(w.fp) {
				g.held[i][w.key] = h
				continue // the echo of a copy
			}
			g.held[i][w.key] = held{stamp: w.stamp, fp: w.fp, version: w.version, echoes: h.echoes}
			for j := range g.replicas {
				if j != i {
					r.later(ctx, g, j, w)
				}
			}
		}
		return events.DynamoDBEventResponse{}, nil
	}
}

// later copies w to replica j after the delay.
func (r *Replicator) later(ctx context.Context, g *group, j int, w write) {
	r.pending.Add(1)
	copyIt := func() {
		defer r.pending.Done()
		for attempt := 0; ; attempt++ {
			if ctx.Err() != nil {
				return
			}
			err := r.copy(ctx, g, j, w)
			if err == nil {
				return
			}
			if attempt == 3 {
				r.failed.Add(1)
				r.log.Error("replication failed", "table", g.replicas[j].Table, "key", w.key, "error", err.Error())
				return
			}
			time.Sleep(100 * time.Millisecond << attempt)
		}
	}
	if r.opts.Delay < 0 {
		go copyIt()
		return
	}
	time.AfterFunc(r.opts.Delay, copyIt)
}

// copy applies w to replica j unless j holds a later write.
func (r *Replicator) copy(ctx context.Context, g *group, j int, w write) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	table := aws.String(g.replicas[j].Table)
	known := g.held[j][w.key]
	if known.stamp.after(w.stamp) {
		r.superseded.Add(1)
		return nil
	}
	out, err := r.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: w.keys, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return err
	}
	if fingerprint(out.Item) != known.fp {
		// A local write not read from the stream yet: later than w.
		r.superseded.Add(1)
		return nil
	}
	echoes := known.echoes
	if w.fp != known.fp {
		cond, names, values := r.unchanged(w.keys, known)
		if w.item == nil {
			_, err = r.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: w.keys,
				ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		} else {
			_, err = r.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: w.item,
				ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		}
		if _, lost := errors.AsType[*types.ConditionalCheckFailedException](err); lost {
			r.superseded.Add(1)
			return nil
		}
		if err != nil {
			return err
		}
		echoes = append(slices.Clip(echoes), w.fp) // a write: its change will come back
	}
	g.held[j][w.key] = held{stamp: w.stamp, fp: w.fp, version: w.version, echoes: echoes}
	r.applied.Add(1)
	return nil
}

// unchanged is the condition that the item is still as known: absent, or
// carrying the version last seen; none for an item without a version.
func (r *Replicator) unchanged(keys map[string]types.AttributeValue, known held) (*string, map[string]string, map[string]types.AttributeValue) {
	if known.fp == "" {
		names := map[string]string{}
		var conds []string
		for i, k := range slices.Sorted(maps.Keys(keys)) {
			n := "#k" + strconv.Itoa(i)
			names[n] = k
			conds = append(conds, "attribute_not_exists("+n+")")
		}
		return aws.String(strings.Join(conds, " AND ")), names, nil
	}
	if known.version == nil {
		return nil, nil, nil
	}
	return aws.String("#v = :v"), map[string]string{"#v": r.opts.VersionAttribute},
		map[string]types.AttributeValue{":v": known.version}
}

// attributeValues converts a stream image to the SDK's attribute values.
func attributeValues(m map[string]events.DynamoDBAttributeValue) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = attributeValue(v)
	}
	return out
}

func attributeValue(v events.DynamoDBAttributeValue) types.AttributeValue {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}
	case events.DataTypeList:
		l := v.List()
		out := make([]types.AttributeValue, len(l))
		for i, e := range l {
			out[i] = attributeValue(e)
		}
		return &types.AttributeValueMemberL{Value: out}
	case events.DataTypeMap:
		return &types.AttributeValueMemberM{Value: attributeValues(v.Map())}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

// fingerprint is a canonical text of an item: equal items, equal texts
// (map keys and set members sorted). "" for no item.
func fingerprint(item map[string]types.AttributeValue) string {
	if len(item) == 0 {
		return ""
	}
	var b strings.Builder
	writeMap(&b, item)
	return b.String()
}

func writeMap(b *strings.Builder, m map[string]types.AttributeValue) {
	b.WriteByte('{')
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		writeValue(b, m[k])
		b.WriteByte(',')
	}
	b.WriteByte('}')
}

func writeValue(b *strings.Builder, v types.AttributeValue) {
	sorted := func(tag string, s []string) {
		s = slices.Sorted(slices.Values(s))
		b.WriteString(tag)
		for _, e := range s {
			b.WriteString(strconv.Quote(e))
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString("S" + strconv.Quote(v.Value))
	case *types.AttributeValueMemberN:
		b.WriteString("N" + v.Value)
	case *types.AttributeValueMemberB:
		b.WriteString("B" + base64.StdEncoding.EncodeToString(v.Value))
	case *types.AttributeValueMemberBOOL:
		b.WriteString("T" + strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString("0")
	case *types.AttributeValueMemberSS:
		sorted("SS(", v.Value)
	case *types.AttributeValueMemberNS:
		sorted("NS(", v.Value)
	case *types.AttributeValueMemberBS:
		enc := make([]string, len(v.Value))
		for i, e := range v.Value {
			enc[i] = base64.StdEncoding.EncodeToString(e)
		}
		sorted("BS(", enc)
	case *types.AttributeValueMemberL:
		b.WriteByte('[')
		for _, e := range v.Value {
			writeValue(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberM:
		writeMap(b, v.Value)
	}
}
