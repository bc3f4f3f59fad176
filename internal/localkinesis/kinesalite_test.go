package localkinesis

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// stream creates a stream of its own on the shared kinesalite.
func stream(t *testing.T, shards int) (*kinesis.Client, string, string) {
	t.Helper()
	client := testenv.KinesisClient(t)
	name := testenv.UniqueName(t, "clicks")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	arn, err := EnsureStream(ctx, client, name, shards)
	require.NoError(t, err)
	return client, name, arn
}

// collector is a handler that keeps every record it is given, per shard,
// and every invocation's first sequence number.
type collector struct {
	mu      sync.Mutex
	byShard map[string][]events.KinesisEventRecord
	batches [][]string // sequence numbers of each invocation
	// respond, when set, decides each invocation's answer.
	respond func(call int, ev events.KinesisEvent) (events.KinesisEventResponse, error)
}

func newCollector() *collector { return &collector{byShard: map[string][]events.KinesisEventRecord{}} }

func (c *collector) handle(_ context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var seqs []string
	for _, r := range ev.Records {
		shard, _, _ := strings.Cut(r.EventID, ":")
		c.byShard[shard] = append(c.byShard[shard], r)
		seqs = append(seqs, r.Kinesis.SequenceNumber)
	}
	c.batches = append(c.batches, seqs)
	if c.respond != nil {
		return c.respond(len(c.batches), ev)
	}
	return events.KinesisEventResponse{}, nil
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, rs := range c.byShard {
		n += len(rs)
	}
	return n
}

func (c *collector) all() map[string][]events.KinesisEventRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]events.KinesisEventRecord{}
	for k, v := range c.byShard {
		out[k] = append([]events.KinesisEventRecord(nil), v...)
	}
	return out
}

func (c *collector) invocations() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.batches...)
}

// run starts a poller until the test ends.
func run(t *testing.T, api ReadAPI, o Options) {
	t.Helper()
	if o.Log == nil {
		o.Log = quiet
	}
	p, err := NewPoller(api, o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("the poller did not stop")
		}
	})
}

func record(i int) clicklog.Record {
	return clicklog.Record{
		Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond), Status: 302,
		Method: "GET", Host: "sho.rt", URI: fmt.Sprintf("/c%06d", i), RequestID: fmt.Sprintf("req-%06d", i),
		UserAgent: "Mozilla/5.0 (X11)", ResultType: "Hit", Country: "DE",
	}
}

func seqLess(a, b string) bool {
	x, okx := new(big.Int).SetString(a, 10)
	y, oky := new(big.Int).SetString(b, 10)
	if !okx || !oky {
		panic("sequence numbers are decimal: " + a + ", " + b)
	}
	return x.Cmp(y) < 0
}

// TestEnsureStream: the stream is created once, with its shards, and a
// second call finds it.
func TestEnsureStream(t *testing.T) {
	client, name, arn := stream(t, 2)
	assert.Regexp(t, `^arn:aws:kinesis:us-east-1:\d{12}:stream/`+regexp.QuoteMeta(name)+`$`, arn)
	again, err := EnsureStream(context.Background(), client, name, 5)
	require.NoError(t, err)
	assert.Equal(t, arn, again)
	out, err := client.ListShards(context.Background(), &kinesis.ListShardsInput{StreamName: &name})
	require.NoError(t, err)
	assert.Len(t, out.Shards, 2, "an existing stream is used as it is")
}

// TestWriterToHandler: records written by the Writer reach the handler in
// AWS's shape, every one, in sequence order per shard, spread over both
// shards.
func TestWriterToHandler(t *testing.T) {
	client, name, arn := stream(t, 2)
	w, err := NewWriter(NewSender(client), WriterOptions{Stream: name, Log: quiet})
	require.NoError(t, err)
	c := newCollector()
	before := time.Now().Add(-time.Second)
	run(t, client, Options{Stream: name, Handler: c.handle, BatchSize: 250, Log: quiet})

	const n = 1203 // three PutRecords at least
	written := map[string]clicklog.Record{}
	for i := range n {
		r := record(i)
		written[r.RequestID] = r
		w.Write(context.Background(), r)
	}
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, WriterStats{Sent: n, Calls: w.Stats().Calls}, w.Stats())
	assert.GreaterOrEqual(t, w.Stats().Calls, int64(3))

	require.Eventually(t, func() bool { return c.count() >= n }, 20*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // nothing more may come
	got := c.all()
	require.Len(t, got, 2, "records spread over both shards")
	shardID := regexp.MustCompile(`^shardId-\d{12}$`)
	seen := map[string]bool{}
	for shard, recs := range got {
		require.Regexp(t, shardID, shard)
		for i, r := range recs {
			if i > 0 {
				assert.True(t, seqLess(recs[i-1].Kinesis.SequenceNumber, r.Kinesis.SequenceNumber), "in order on %s at %d", shard, i)
			}
			assert.Equal(t, shard+":"+r.Kinesis.SequenceNumber, r.EventID)
			assert.Equal(t, "aws:kinesis", r.EventSource)
			assert.Equal(t, "1.0", r.EventVersion)
			assert.Equal(t, "aws:kinesis:record", r.EventName)
			assert.Equal(t, "us-east-1", r.AwsRegion)
			assert.Equal(t, arn, r.EventSourceArn)
			assert.Regexp(t, `^arn:aws:iam::\d{12}:role/`+DefaultRoleName+`$`, r.InvokeIdentityArn)
			assert.Equal(t, "1.0", r.Kinesis.KinesisSchemaVersion)
			at := r.Kinesis.ApproximateArrivalTimestamp.Time
			assert.True(t, at.After(before) && at.Before(time.Now()), "arrival %s", at)

			parsed, err := clicklog.Parse(r.Kinesis.Data)
			require.NoError(t, err)
			assert.True(t, strings.HasSuffix(string(r.Kinesis.Data), "\n"), "one newline-terminated line per record")
			assert.Equal(t, written[parsed.RequestID], parsed)
			assert.Equal(t, parsed.RequestID, r.Kinesis.PartitionKey)
			assert.False(t, seen[parsed.RequestID], "delivered once")
			seen[parsed.RequestID] = true
		}
	}
	assert.Len(t, seen, n)
	for _, b := range c.invocations() {
		assert.LessOrEqual(t, len(b), 250, "BatchSize bounds an invocation")
	}

	// The same fields at every level as the fixture the clicks function is
	// tested with (captured from the shape Lambda documents).
	var fixture events.KinesisEvent
	raw, err := os.ReadFile(filepath.Join("..", "..", "functions", "clicks", "clicksfn", "testdata", "kinesis-clicks.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &fixture))
	for _, recs := range got {
		assert.Equal(t, shape(t, fixture.Records[0]), shape(t, recs[0]))
	}
	assert.Equal(t, rawShape(t, raw), shape(t, got["shardId-000000000000"][0]), "the fixture's own JSON, not only what aws-lambda-go decodes of it")
}

// shape lists the JSON field paths of r.
func shape(t *testing.T, r events.KinesisEventRecord) []string {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return paths(m)
}

// rawShape lists the field paths of the first record of a JSON event.
func rawShape(t *testing.T, raw []byte) []string {
	t.Helper()
	var ev struct {
		Records []map[string]any `json:"Records"`
	}
	require.NoError(t, json.Unmarshal(raw, &ev))
	return paths(ev.Records[0])
}

func paths(m map[string]any) []string {
	var out []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			out = append(out, prefix)
			return
		}
		for k, x := range obj {
			walk(prefix+"."+k, x)
		}
	}
	walk("", m)
	sort.Strings(out)
	return out
}

// TestRedelivery: how a failed batch comes back, on a stream of one shard
// holding ten records before the poller starts (one batch).
func TestRedelivery(t *testing.T) {
	const n = 10
	fail := func(idx ...int) func(events.KinesisEvent) events.KinesisEventResponse {
		return func(ev events.KinesisEvent) events.KinesisEventResponse {
			var resp events.KinesisEventResponse
			for _, i := range idx {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: ev.Records[i].Kinesis.SequenceNumber})
			}
			return resp
		}
	}
	tests := []struct {
		name string
		// first answers the first invocation; later ones succeed.
		first      func(events.KinesisEvent) (events.KinesisEventResponse, error)
		wantSecond []int // record indexes of the second invocation; nil: none
	}{
		{name: "success", first: func(events.KinesisEvent) (events.KinesisEventResponse, error) {
			return events.KinesisEventResponse{}, nil
		}},
		{name: "item 4 failed: again from 4", first: func(ev events.KinesisEvent) (events.KinesisEventResponse, error) {
			return fail(4)(ev), nil
		}, wantSecond: []int{4, 5, 6, 7, 8, 9}},
		{name: "items 7 and 3 failed: again from the lowest", first: func(ev events.KinesisEvent) (events.KinesisEventResponse, error) {
			return fail(7, 3)(ev), nil
		}, wantSecond: []int{3, 4, 5, 6, 7, 8, 9}},
		{name: "the last item failed", first: func(ev events.KinesisEvent) (events.KinesisEventResponse, error) {
			return fail(9)(ev), nil
		}, wantSecond: []int{9}},
		{name: "a function error: the whole batch", first: func(events.KinesisEvent) (events.KinesisEventResponse, error) {
			return events.KinesisEventResponse{}, fmt.Errorf("boom")
		}, wantSecond: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "a panic: the whole batch", first: func(events.KinesisEvent) (events.KinesisEventResponse, error) {
			panic("boom")
		}, wantSecond: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "an empty identifier: the whole batch", first: func(events.KinesisEvent) (events.KinesisEventResponse, error) {
			return events.KinesisEventResponse{BatchItemFailures: []events.KinesisBatchItemFailure{{ItemIdentifier: ""}}}, nil
		}, wantSecond: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "an unknown identifier: the whole batch", first: func(events.KinesisEvent) (events.KinesisEventResponse, error) {
			return events.KinesisEventResponse{BatchItemFailures: []events.KinesisBatchItemFailure{{ItemIdentifier: "12345"}}}, nil
		}, wantSecond: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, name, _ := stream(t, 1)
			seqs := putAll(t, client, name, n)
			c := newCollector()
			c.respond = func(call int, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
				if call == 1 {
					return tt.first(ev)
				}
				return events.KinesisEventResponse{}, nil
			}
			run(t, client, Options{Stream: name, Handler: c.handle, RetryDelay: 10 * time.Millisecond, Log: quiet})
			want := [][]string{seqs}
			if tt.wantSecond != nil {
				var second []string
				for _, i := range tt.wantSecond {
					second = append(second, seqs[i])
				}
				want = append(want, second)
			}
			require.Eventually(t, func() bool { return len(c.invocations()) >= len(want) }, 10*time.Second, 20*time.Millisecond)
			time.Sleep(500 * time.Millisecond) // no third invocation
			assert.Equal(t, want, c.invocations())
		})
	}
}

// putAll writes n records with one PutRecords and returns their sequence
// numbers.
func putAll(t *testing.T, client *kinesis.Client, name string, n int) []string {
	t.Helper()
	in := &kinesis.PutRecordsInput{StreamName: &name}
	for i := range n {
		r := record(i)
		in.Records = append(in.Records, types.PutRecordsRequestEntry{Data: clicklog.Format(r), PartitionKey: aws.String(r.RequestID)})
	}
	out, err := client.PutRecords(context.Background(), in)
	require.NoError(t, err)
	require.Zero(t, aws.ToInt32(out.FailedRecordCount))
	seqs := make([]string, n)
	for i, r := range out.Records {
		seqs[i] = aws.ToString(r.SequenceNumber)
	}
	return seqs
}

// TestGivingUp: a record that always fails is retried MaxRetries times,
// then its batch goes to OnFailure and the shard moves on.
func TestGivingUp(t *testing.T) {
	client, name, arn := stream(t, 1)
	seqs := putAll(t, client, name, 5)
	c := newCollector()
	c.respond = func(_ int, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
		var resp events.KinesisEventResponse
		for _, r := range ev.Records {
			if r.Kinesis.SequenceNumber == seqs[2] {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: r.Kinesis.SequenceNumber})
			}
		}
		return resp, nil
	}
	failures := make(chan Failure, 4)
	run(t, client, Options{Stream: name, Handler: c.handle, MaxRetries: 2, RetryDelay: 10 * time.Millisecond, Log: quiet,
		OnFailure: func(_ context.Context, f Failure) { failures <- f }})

	var f Failure
	select {
	case f = <-failures:
	case <-time.After(10 * time.Second):
		t.Fatal("the batch was never given up")
	}
	assert.Equal(t, arn, f.StreamARN)
	assert.Equal(t, "shardId-000000000000", f.ShardID)
	assert.Equal(t, seqs[2], f.StartSequenceNumber)
	assert.Equal(t, seqs[4], f.EndSequenceNumber)
	assert.Equal(t, 3, f.BatchSize)
	assert.Equal(t, []string{seqs[2]}, f.Failed)
	assert.Equal(t, 3, f.Attempts, "the first try and two retries")
	assert.False(t, f.ApproximateArrivalOfFirstRecord.IsZero())

	// The shard moves on: a record written after is delivered once.
	later := putAll(t, client, name, 1)
	require.Eventually(t, func() bool {
		inv := c.invocations()
		return len(inv) == 4 && assert.ObjectsAreEqual([]string{later[0]}, inv[3])
	}, 10*time.Second, 20*time.Millisecond)
}

// TestReshardingKeepsOrder: after a shard is split, records of one key
// still reach the handler in the order they were written, the parent's
// before the children's.
func TestReshardingKeepsOrder(t *testing.T) {
	client, name, _ := stream(t, 1)
	c := newCollector()
	put := func(from, to int) {
		for i := from; i < to; i++ {
			_, err := client.PutRecord(context.Background(), &kinesis.PutRecordInput{StreamName: &name,
				PartitionKey: aws.String("one-key"), Data: clicklog.Format(record(i))})
			require.NoError(t, err)
		}
	}
	put(0, 20)
	_, err := client.SplitShard(context.Background(), &kinesis.SplitShardInput{StreamName: &name,
		ShardToSplit: aws.String("shardId-000000000000"), NewStartingHashKey: aws.String("170141183460469231731687303715884105728")})
	require.NoError(t, err)
	_, err = EnsureStream(context.Background(), client, name, 1) // waits while UPDATING
	require.NoError(t, err)
	put(20, 40)
	run(t, client, Options{Stream: name, Handler: c.handle, BatchSize: 7, Log: quiet})

	require.Eventually(t, func() bool { return c.count() >= 40 }, 20*time.Second, 50*time.Millisecond)
	all := c.all()
	assert.Len(t, all["shardId-000000000000"], 20, "the parent holds the first twenty")
	var order []string
	for _, b := range c.invocations() {
		order = append(order, b...)
	}
	// Map each delivered sequence number back to its record's index.
	index := map[string]int{}
	for _, recs := range all {
		for _, r := range recs {
			p, err := clicklog.Parse(r.Kinesis.Data)
			require.NoError(t, err)
			var i int
			_, err = fmt.Sscanf(p.URI, "/c%06d", &i)
			require.NoError(t, err)
			index[r.Kinesis.SequenceNumber] = i
		}
	}
	var got []int
	for _, s := range order {
		got = append(got, index[s])
	}
	want := make([]int, 40)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, got)
}

func TestEmulatorRegion(t *testing.T) {
	// The local run's clients sign for emulator.Region, and kinesalite puts
	// it in the ARN: the records' awsRegion follows.
	_, _, arn := stream(t, 1)
	region, account := arnParts(arn)
	assert.Equal(t, emulator.Region, region)
	assert.Regexp(t, `^\d{12}$`, account)
}
