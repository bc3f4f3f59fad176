package localglobaltable

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// fixture is a global table of two or three replicas in DynamoDB Local
// with a running replicator.
type fixture struct {
	db     *dynamodb.Client
	tables []string
	r      *Replicator
}

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	db := testenv.DynamoDBClient(t)
	f := &fixture{db: db}
	var reps []Replica
	ctx := context.Background()
	for i := range n {
		name := testenv.UniqueName(t, "gt"+strconv.Itoa(i))
		def := tableschema.Table{PartitionKey: tableschema.Attribute{Name: "code", Type: tableschema.String}, Stream: tableschema.NewAndOldImages}
		require.NoError(t, localtable.Create(ctx, db, name, def))
		f.tables = append(f.tables, name)
		reps = append(reps, Replica{Region: []string{"us-east-1", "us-east-2", "us-west-2"}[i], Table: name})
	}
	r, err := New(db, testenv.StreamsClient(t), Options{Tables: [][]Replica{reps}, VersionAttribute: "version",
		Delay: 100 * time.Millisecond, PollInterval: 20 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	f.r = r
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	return f
}

func (f *fixture) put(t *testing.T, replica int, code, url string, version int) {
	t.Helper()
	_, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.tables[replica]), Item: map[string]types.AttributeValue{
		"code": &types.AttributeValueMemberS{Value: code}, "url": &types.AttributeValueMemberS{Value: url},
		"version": &types.AttributeValueMemberN{Value: strconv.Itoa(version)},
		"tags":    &types.AttributeValueMemberSS{Value: []string{"b", "a"}},
	}})
	require.NoError(t, err)
}

// url reads the item's url in a replica; "" when there is none.
func (f *fixture) url(t *testing.T, replica int, code string) string {
	t.Helper()
	out, err := f.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(f.tables[replica]),
		Key: map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: code}}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	if s, ok := out.Item["url"].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// eventually polls until ok holds, a minute at most (a state, not a
// speed, is checked).
func eventually(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWritesReachEveryReplica: a put and a delete made in one replica
// reach the others; each is copied once per other replica, and the
// copies' echoes are not copied back.
func TestWritesReachEveryReplica(t *testing.T) {
	f := newFixture(t, 3)
	f.put(t, 1, "abc", "https://example.com/1", 1)
	assert.Empty(t, f.url(t, 0, "abc"), "not before the delay")
	eventually(t, func() bool { return f.url(t, 0, "abc") != "" && f.url(t, 2, "abc") != "" }, "the put everywhere")

	f.put(t, 0, "abc", "https://example.com/2", 2)
	eventually(t, func() bool {
		return f.url(t, 1, "abc") == "https://example.com/2" && f.url(t, 2, "abc") == "https://example.com/2"
	}, "the update everywhere")

	_, err := f.db.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(f.tables[2]),
		Key: map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: "abc"}}})
	require.NoError(t, err)
	eventually(t, func() bool { return f.url(t, 0, "abc") == "" && f.url(t, 1, "abc") == "" }, "the delete everywhere")

	// A marker written after everything: once it has arrived, every echo
	// before it has been read too.
	f.put(t, 0, "marker", "https://example.com/m", 1)
	eventually(t, func() bool { return f.url(t, 1, "marker") != "" && f.url(t, 2, "marker") != "" }, "the marker")
	assert.Equal(t, Stats{Applied: 8}, f.r.Stats(), "4 writes, each to 2 other replicas, no echo copied back")
}

// TestConcurrentWritesLastWriterWins: the same item written in two
// replicas before either write replicates: both writes succeed where they
// are made (even conditional ones), and every replica ends with the same
// one.
func TestConcurrentWritesLastWriterWins(t *testing.T) {
	f := newFixture(t, 2)
	ctx := context.Background()
	for i, url := range []string{"https://example.com/east", "https://example.com/west"} {
		_, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.tables[i]), Item: map[string]types.AttributeValue{
			"code": &types.AttributeValueMemberS{Value: "both"}, "url": &types.AttributeValueMemberS{Value: url},
		}, ConditionExpression: aws.String("attribute_not_exists(code)")})
		require.NoError(t, err, "a conditional put sees its own replica only")
	}
	f.put(t, 0, "marker", "https://example.com/m", 1)
	eventually(t, func() bool { return f.url(t, 1, "marker") != "" }, "the marker")
	eventually(t, func() bool { return f.url(t, 0, "both") == f.url(t, 1, "both") }, "the replicas agree")
	assert.Contains(t, []string{"https://example.com/east", "https://example.com/west"}, f.url(t, 0, "both"))
	assert.Equal(t, int64(1), f.r.Stats().Superseded, "the losing write is dropped once")
}

// stoppedFixture is two replicas and a replicator that is not run: the
// test hands its handlers the stream records, and each copy is made at
// once (Delay -1) and waited for.
func stoppedFixture(t *testing.T) *fixture {
	t.Helper()
	db := testenv.DynamoDBClient(t)
	var reps []Replica
	for i := range 2 {
		name := testenv.UniqueName(t, "st"+strconv.Itoa(i))
		require.NoError(t, localtable.Create(context.Background(), db, name, tableschema.Table{PartitionKey: tableschema.Attribute{Name: "code", Type: tableschema.String}}))
		reps = append(reps, Replica{Region: []string{"us-east-1", "us-west-2"}[i], Table: name})
	}
	r, err := New(db, testenv.StreamsClient(t), Options{Tables: [][]Replica{reps}, VersionAttribute: "version", Delay: -1,
		Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return &fixture{db: db, tables: []string{reps[0].Table, reps[1].Table}, r: r}
}

// image is item "abc" at url and version.
func image(url string, version int) map[string]events.DynamoDBAttributeValue {
	return map[string]events.DynamoDBAttributeValue{"code": events.NewStringAttribute("abc"),
		"url": events.NewStringAttribute(url), "version": events.NewNumberAttribute(strconv.Itoa(version))}
}

// streamed is img as replica's stream hands it over under sequence number
// seq, to replica's handler, and the copies it starts, waited for.
func (f *fixture) streamed(t *testing.T, replica int, seq string, img map[string]events.DynamoDBAttributeValue) {
	t.Helper()
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventID: "read-" + seq, Change: events.DynamoDBStreamRecord{SequenceNumber: seq,
		Keys: map[string]events.DynamoDBAttributeValue{"code": events.NewStringAttribute("abc")}, NewImage: img}}}}
	_, err := f.r.handler(context.Background(), f.r.groups[0], replica)(context.Background(), ev)
	require.NoError(t, err)
	f.r.pending.Wait()
}

// TestRecordsReadAgainAreNotCopiedAgain: a stream read again from its
// trim horizon (the poller does so after TrimmedDataAccessException) hands
// over records already copied. Copied again they would carry a later stamp
// than the writes after them and put an old version back in the other
// replicas, which is what made two concurrent If-Match edits both answer
// 412 in the local run's TestIfMatchAcrossRegions.
func TestRecordsReadAgainAreNotCopiedAgain(t *testing.T) {
	f := stoppedFixture(t)
	v1, v2 := image("https://example.com/1", 1), image("https://example.com/2", 2)
	f.streamed(t, 0, "100", v1)
	f.streamed(t, 0, "200", v2)
	f.streamed(t, 0, "100", v1) // read again, with a new event ID
	assert.Equal(t, "https://example.com/2", f.url(t, 1, "abc"), "the later write stays")
	assert.Equal(t, Stats{Applied: 2}, f.r.Stats())
}

// TestEveryCopysEchoIsKnown: two writes of one item in one replica are
// copied into another before the first copy's change comes back on that
// replica's stream. Both changes that come back are echoes; taken for a
// new write, the first would be copied back out with a later stamp and
// put the old version back where the newer one was (and, with three
// replicas, ping-pong between them: the local run's
// TestIfMatchAcrossRegions saw both edits answer 412).
func TestEveryCopysEchoIsKnown(t *testing.T) {
	f := stoppedFixture(t)
	v1, v2 := image("https://example.com/1", 1), image("https://example.com/2", 2)
	// Replica 0 holds v2, written after v1; its stream hands over both.
	_, err := f.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(f.tables[0]), Item: attributeValues(v2)})
	require.NoError(t, err)
	f.streamed(t, 0, "100", v1)
	f.streamed(t, 0, "200", v2)
	require.Equal(t, "https://example.com/2", f.url(t, 1, "abc"))
	// Replica 1's stream now hands over the two copies' changes.
	f.streamed(t, 1, "10", v1)
	f.streamed(t, 1, "20", v2)
	assert.Equal(t, "https://example.com/2", f.url(t, 0, "abc"), "no echo copied back")
	assert.Equal(t, Stats{Applied: 2}, f.r.Stats())
}

func TestFingerprintIsCanonical(t *testing.T) {
	a := map[string]types.AttributeValue{
		"s": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"b": &types.AttributeValueMemberN{Value: "1"}, "a": &types.AttributeValueMemberNULL{Value: true}}},
	}
	b := map[string]types.AttributeValue{
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberNULL{Value: true}, "b": &types.AttributeValueMemberN{Value: "1"}}},
		"s": &types.AttributeValueMemberSS{Value: []string{"y", "x"}},
	}
	assert.Equal(t, fingerprint(a), fingerprint(b))
	b["s"] = &types.AttributeValueMemberSS{Value: []string{"y"}}
	assert.NotEqual(t, fingerprint(a), fingerprint(b))
	assert.Empty(t, fingerprint(nil))
}

func TestNewRejects(t *testing.T) {
	_, err := New(nil, nil, Options{})
	assert.Error(t, err)
	_, err = New(nil, nil, Options{Tables: [][]Replica{{{Region: "us-east-1", Table: "t"}}}})
	assert.Error(t, err)
}
