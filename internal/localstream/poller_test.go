package localstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const fakeARN = "arn:aws:dynamodb:ddblocal:000000000000:table/links/stream/2026-11-30T00:00:00.000"

// fakeStream is a stream of shards held in memory. Iterators are
// "shard|position"; a closed shard ends its reads with no next iterator.
type fakeStream struct {
	mu     sync.Mutex
	shards []*fakeShard
	reads  []string // shard IDs in the order GetRecords read records from them
}

type fakeShard struct {
	id, parent string
	records    []types.Record
	closed     bool
}

func (f *fakeStream) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return &dynamodb.DescribeTableOutput{Table: &ddbtypes.TableDescription{TableName: in.TableName, LatestStreamArn: aws.String(fakeARN)}}, nil
}

func (f *fakeStream) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &ddbtypes.TimeToLiveDescription{TimeToLiveStatus: ddbtypes.TimeToLiveStatusDisabled}}, nil
}

func (f *fakeStream) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	panic("no sweeping without TTL")
}

func (f *fakeStream) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	panic("no sweeping without TTL")
}

func (f *fakeStream) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// One shard per page, to exercise paging.
	i := 0
	if in.ExclusiveStartShardId != nil {
		for i < len(f.shards) && f.shards[i].id != *in.ExclusiveStartShardId {
			i++
		}
		i++
	}
	desc := &types.StreamDescription{StreamArn: in.StreamArn}
	if i < len(f.shards) {
		s := f.shards[i]
		sh := types.Shard{ShardId: aws.String(s.id), SequenceNumberRange: &types.SequenceNumberRange{StartingSequenceNumber: aws.String("1")}}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		if s.closed {
			sh.SequenceNumberRange.EndingSequenceNumber = aws.String("999")
		}
		desc.Shards = []types.Shard{sh}
		if i+1 < len(f.shards) {
			desc.LastEvaluatedShardId = aws.String(s.id)
		}
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: desc}, nil
}

func (f *fakeStream) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.shard(*in.ShardId)
	pos := 0
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeLatest:
		pos = len(s.records)
	case types.ShardIteratorTypeAfterSequenceNumber:
		for pos < len(s.records) && *s.records[pos].Dynamodb.SequenceNumber != *in.SequenceNumber {
			pos++
		}
		pos++
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(fmt.Sprintf("%s|%d", s.id, pos))}, nil
}

func (f *fakeStream) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, p, _ := strings.Cut(*in.ShardIterator, "|")
	pos, _ := strconv.Atoi(p)
	s := f.shard(id)
	end := min(len(s.records), pos+int(*in.Limit))
	out := &dynamodbstreams.GetRecordsOutput{Records: s.records[pos:end]}
	if len(out.Records) > 0 {
		f.reads = append(f.reads, id)
	}
	if end < len(s.records) || !s.closed {
		out.NextShardIterator = aws.String(fmt.Sprintf("%s|%d", id, end))
	}
	return out, nil
}

func (f *fakeStream) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.id == id {
			return s
		}
	}
	panic("no shard " + id)
}

func (f *fakeStream) add(s *fakeShard) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shards = append(f.shards, s)
}

func insert(seq int, code string) types.Record {
	return types.Record{
		AwsRegion: aws.String("ddblocal"), EventID: aws.String(fmt.Sprintf("id-%d", seq)), EventName: types.OperationTypeInsert,
		EventSource: aws.String("aws:dynamodb"), EventVersion: aws.String("1.1"),
		Dynamodb: &types.StreamRecord{
			ApproximateCreationDateTime: aws.Time(time.Unix(1796003580, 0)),
			Keys:                        map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: code}},
			NewImage:                    map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: code}},
			SequenceNumber:              aws.String(fmt.Sprintf("%021d", seq)),
			SizeBytes:                   aws.Int64(20),
			StreamViewType:              types.StreamViewTypeNewAndOldImages,
		},
	}
}

// collector is a handler that records what it got and answers from a script.
type collector struct {
	mu      sync.Mutex
	batches [][]string // sequence numbers per invocation
	codes   []string
	answer  func(call int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
}

func (c *collector) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var seqs []string
	for _, r := range ev.Records {
		seqs = append(seqs, r.Change.SequenceNumber)
		c.codes = append(c.codes, r.Change.Keys["code"].String())
	}
	c.batches = append(c.batches, seqs)
	if c.answer == nil {
		return events.DynamoDBEventResponse{}, nil
	}
	return c.answer(len(c.batches)-1, ev)
}

func (c *collector) seen() ([][]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]string(nil), c.batches...), append([]string(nil), c.codes...)
}

// runUntil runs p until cond holds or 5 s pass.
func runUntil(t *testing.T, p *Poller, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	require.Eventually(t, cond, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}

func seqs(ns ...int) []string {
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprintf("%021d", n))
	}
	return s
}

func TestParentShardsBeforeChildren(t *testing.T) {
	f := &fakeStream{}
	// Listed child first: the poller must still read the parent first.
	f.add(&fakeShard{id: "child", parent: "parent", records: []types.Record{insert(10, "c1"), insert(11, "c2")}})
	f.add(&fakeShard{id: "parent", closed: true, records: []types.Record{insert(1, "p1"), insert(2, "p2"), insert(3, "p3")}})
	c := &collector{}
	p, err := New(f, f, Options{Table: "links", Handler: c.handle, BatchSize: 2, PollInterval: time.Millisecond, Log: quiet})
	require.NoError(t, err)
	runUntil(t, p, func() bool { _, codes := c.seen(); return len(codes) == 5 })
	batches, codes := c.seen()
	assert.Equal(t, []string{"p1", "p2", "p3", "c1", "c2"}, codes)
	assert.Equal(t, [][]string{seqs(1, 2), seqs(3), seqs(10, 11)}, batches, "batches of at most BatchSize")
}

func TestChildrenFoundAfterASplit(t *testing.T) {
	f := &fakeStream{}
	parent := &fakeShard{id: "parent", records: []types.Record{insert(1, "p1")}}
	f.add(parent)
	c := &collector{}
	p, err := New(f, f, Options{Table: "links", Handler: c.handle, PollInterval: time.Millisecond, Log: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	require.Eventually(t, func() bool { _, codes := c.seen(); return len(codes) == 1 }, 5*time.Second, time.Millisecond)
	// The shard splits: the parent closes, a child appears.
	f.mu.Lock()
	parent.records = append(parent.records, insert(2, "p2"))
	parent.closed = true
	f.mu.Unlock()
	f.add(&fakeShard{id: "child", parent: "parent", records: []types.Record{insert(5, "c1")}})
	require.Eventually(t, func() bool { _, codes := c.seen(); return len(codes) == 3 }, 5*time.Second, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	_, codes := c.seen()
	assert.Equal(t, []string{"p1", "p2", "c1"}, codes)
}

func TestLatestSkipsWhatIsThere(t *testing.T) {
	f := &fakeStream{}
	f.add(&fakeShard{id: "old", closed: true, records: []types.Record{insert(1, "old")}})
	open := &fakeShard{id: "open", parent: "old", records: []types.Record{insert(5, "before")}}
	f.add(open)
	c := &collector{}
	p, err := New(f, f, Options{Table: "links", Handler: c.handle, StartingPosition: types.ShardIteratorTypeLatest, PollInterval: time.Millisecond, Log: quiet})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	time.Sleep(50 * time.Millisecond) // let it take its LATEST iterators
	f.mu.Lock()
	open.records = append(open.records, insert(6, "after"))
	f.mu.Unlock()
	require.Eventually(t, func() bool { _, codes := c.seen(); return len(codes) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	_, codes := c.seen()
	assert.Equal(t, []string{"after"}, codes)
}

func TestRetriesLikeAnEventSourceMapping(t *testing.T) {
	fail := func(seq ...int) events.DynamoDBEventResponse {
		var r events.DynamoDBEventResponse
		for _, s := range seqs(seq...) {
			r.BatchItemFailures = append(r.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: s})
		}
		return r
	}
	tests := []struct {
		name    string
		answer  func(call int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
		batches [][]string
		failure *Failure
	}{
		{
			name: "success is one invocation",
			answer: func(int, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4)},
		},
		{
			name: "retried from the lowest failed record until it succeeds",
			answer: func(call int, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				switch call {
				case 0:
					return fail(4, 2), nil
				case 1:
					return fail(4), nil
				}
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4), seqs(2, 3, 4), seqs(4)},
		},
		{
			name: "a handler error retries the whole batch",
			answer: func(call int, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if call == 0 {
					return events.DynamoDBEventResponse{}, errors.New("boom")
				}
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4), seqs(1, 2, 3, 4)},
		},
		{
			name: "an identifier naming no record fails the whole batch",
			answer: func(call int, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if call == 0 {
					return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: "eventID-not-seq"}}}, nil
				}
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4), seqs(1, 2, 3, 4)},
		},
		{
			name: "a record failing every time is given up after the retries",
			answer: func(_ int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if ev.Records[0].Change.SequenceNumber <= seqs(3)[0] {
					return fail(3), nil
				}
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4), seqs(3, 4), seqs(3, 4)},
			failure: &Failure{StreamARN: fakeARN, ShardID: "s1", StartSequenceNumber: seqs(3)[0], EndSequenceNumber: seqs(4)[0],
				Failed: seqs(3), Attempts: 3},
		},
		{
			name: "a panic is a function error",
			answer: func(call int, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				if call == 0 {
					panic("nil map")
				}
				return events.DynamoDBEventResponse{}, nil
			},
			batches: [][]string{seqs(1, 2, 3, 4), seqs(1, 2, 3, 4)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeStream{}
			f.add(&fakeShard{id: "s1", records: []types.Record{insert(1, "a"), insert(2, "b"), insert(3, "c"), insert(4, "d")}})
			// A record after the batch proves the poller moves on.
			c := &collector{answer: tt.answer}
			var mu sync.Mutex
			var failures []Failure
			p, err := New(f, f, Options{Table: "links", Handler: c.handle, BatchSize: 4, MaxRetries: 2,
				RetryDelay: time.Millisecond, PollInterval: time.Millisecond, Log: quiet,
				OnFailure: func(_ context.Context, fl Failure) { mu.Lock(); failures = append(failures, fl); mu.Unlock() }})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx) }()
			require.Eventually(t, func() bool { b, _ := c.seen(); return len(b) >= len(tt.batches) }, 5*time.Second, time.Millisecond)
			f.mu.Lock()
			f.shards[0].records = append(f.shards[0].records, insert(9, "next"))
			f.mu.Unlock()
			require.Eventually(t, func() bool { _, codes := c.seen(); return codes[len(codes)-1] == "next" }, 5*time.Second, time.Millisecond)
			cancel()
			require.NoError(t, <-done)

			batches, _ := c.seen()
			assert.Equal(t, append(tt.batches, seqs(9)), batches)
			mu.Lock()
			defer mu.Unlock()
			if tt.failure == nil {
				assert.Empty(t, failures)
				return
			}
			require.Len(t, failures, 1)
			assert.Equal(t, *tt.failure, failures[0])
		})
	}
}

func TestEventRecordIsAWSShaped(t *testing.T) {
	at := aws.Time(time.Unix(1796003580, 0))
	image := map[string]types.AttributeValue{
		"code":       &types.AttributeValueMemberS{Value: "ttl1"},
		"expires_at": &types.AttributeValueMemberN{Value: "1796003581"},
		"flag":       &types.AttributeValueMemberBOOL{Value: true},
		"blob":       &types.AttributeValueMemberB{Value: []byte{0, 1, 42, 65}},
		"nothing":    &types.AttributeValueMemberNULL{Value: true},
		"tags":       &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"nums":       &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
		"blobs":      &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
		"list":       &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		"map":        &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberN{Value: "7"}}},
	}
	const imageJSON = `{"code":{"S":"ttl1"},"expires_at":{"N":"1796003581"},"flag":{"BOOL":true},"blob":{"B":"AAEqQQ=="},
		"nothing":{"NULL":true},"tags":{"SS":["a","b"]},"nums":{"NS":["1","2"]},"blobs":{"BS":["AQ==","Ag=="]},
		"list":{"L":[{"S":"x"}]},"map":{"M":{"k":{"N":"7"}}}}`
	record := func(name types.OperationType, identity *types.Identity, newImage, oldImage map[string]types.AttributeValue) types.Record {
		return types.Record{
			AwsRegion: aws.String("ddblocal"), EventID: aws.String("d384bf4d-85e9-4309-a055-ca55d928f106"), EventName: name,
			EventSource: aws.String("aws:dynamodb"), EventVersion: aws.String("1.1"), UserIdentity: identity,
			Dynamodb: &types.StreamRecord{
				ApproximateCreationDateTime: at, Keys: map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: "ttl1"}},
				NewImage: newImage, OldImage: oldImage, SequenceNumber: aws.String("000000000000000000006"),
				SizeBytes: aws.Int64(42), StreamViewType: types.StreamViewTypeNewAndOldImages,
			},
		}
	}
	wrap := func(name, identity, images string) string {
		return `{"eventID":"d384bf4d-85e9-4309-a055-ca55d928f106","eventName":"` + name + `","eventVersion":"1.1",
			"eventSource":"aws:dynamodb","awsRegion":"us-east-1",` + identity + `
			"dynamodb":{"ApproximateCreationDateTime":1796003580,"Keys":{"code":{"S":"ttl1"}},` + images + `
			"SequenceNumber":"000000000000000000006","SizeBytes":42,"StreamViewType":"NEW_AND_OLD_IMAGES"},
			"eventSourceARN":"` + fakeARN + `"}`
	}
	ttlIdentity := `"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},`
	tests := []struct {
		name string
		in   types.Record
		want string
	}{
		{name: "DynamoDB Local's TTL deletion becomes AWS's",
			in:   record("UNKNOWN_TO_SDK_VERSION", nil, nil, image),
			want: wrap("REMOVE", ttlIdentity, `"OldImage":`+imageJSON+`,`)},
		{name: "a user delete stays a plain REMOVE",
			in:   record(types.OperationTypeRemove, nil, nil, image),
			want: wrap("REMOVE", "", `"OldImage":`+imageJSON+`,`)},
		{name: "an insert passes through",
			in:   record(types.OperationTypeInsert, nil, image, nil),
			want: wrap("INSERT", "", `"NewImage":`+imageJSON+`,`)},
		{name: "a modify passes through",
			in:   record(types.OperationTypeModify, nil, image, image),
			want: wrap("MODIFY", "", `"NewImage":`+imageJSON+`,"OldImage":`+imageJSON+`,`)},
		{name: "a TTL deletion already in AWS's shape passes through",
			in: record(types.OperationTypeRemove, &types.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")},
				nil, image),
			want: wrap("REMOVE", ttlIdentity, `"OldImage":`+imageJSON+`,`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(eventRecord(tt.in, fakeARN, "us-east-1"))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestNewChecksOptions(t *testing.T) {
	h := func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{}, nil
	}
	tests := []struct {
		name string
		opts Options
		ok   bool
	}{
		{name: "table and handler", opts: Options{Table: "t", Handler: h}, ok: true},
		{name: "no table", opts: Options{Handler: h}},
		{name: "no handler", opts: Options{Table: "t"}},
		{name: "AT_SEQUENCE_NUMBER is not a starting position", opts: Options{Table: "t", Handler: h, StartingPosition: types.ShardIteratorTypeAtSequenceNumber}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&fakeStream{}, &fakeStream{}, tt.opts)
			assert.Equal(t, tt.ok, err == nil, err)
		})
	}
}

func TestSweeperClaimsOnlyItsOwnDeletions(t *testing.T) {
	key := map[string]events.DynamoDBAttributeValue{"code": events.NewStringAttribute("gone001")}
	removal := func(ttl string, identity *events.DynamoDBUserIdentity) *events.DynamoDBEventRecord {
		return &events.DynamoDBEventRecord{EventName: "REMOVE", UserIdentity: identity, Change: events.DynamoDBStreamRecord{
			Keys: key, OldImage: map[string]events.DynamoDBAttributeValue{"code": key["code"], "expires_at": events.NewNumberAttribute(ttl)}}}
	}
	tests := []struct {
		name string
		rec  *events.DynamoDBEventRecord
		want bool
	}{
		{name: "its deletion", rec: removal("1796003581", nil), want: true},
		{name: "the same key with another expiry", rec: removal("1796009999", nil)},
		{name: "another key", rec: &events.DynamoDBEventRecord{EventName: "REMOVE", Change: events.DynamoDBStreamRecord{
			Keys: map[string]events.DynamoDBAttributeValue{"code": events.NewStringAttribute("other01")}}}},
		{name: "a record with an identity already", rec: removal("1796003581", &events.DynamoDBUserIdentity{Type: "Service"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sweeper{attr: "expires_at", deletions: map[string]string{
				keyID(map[string]ddbtypes.AttributeValue{"code": &ddbtypes.AttributeValueMemberS{Value: "gone001"}}): "1796003581",
			}}
			assert.Equal(t, tt.want, s.claim(tt.rec))
			if tt.want {
				assert.False(t, s.claim(tt.rec), "a deletion is claimed once")
			}
		})
	}
	var none *sweeper
	assert.False(t, none.claim(removal("1796003581", nil)), "no sweeper, no claim")
}
