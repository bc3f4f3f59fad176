package localstream

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// recorder is a handler that keeps every record by the code in its key.
type recorder struct {
	mu       sync.Mutex
	received map[string][]events.DynamoDBEventRecord
	arrived  map[string]time.Time // of the last REMOVE
}

func newRecorder() *recorder {
	return &recorder{received: map[string][]events.DynamoDBEventRecord{}, arrived: map[string]time.Time{}}
}

func (r *recorder) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range ev.Records {
		code := rec.Change.Keys[tableschema.AttrCode].String()
		r.received[code] = append(r.received[code], rec)
		if rec.EventName == "REMOVE" {
			r.arrived[code] = time.Now()
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

func (r *recorder) records(code string) []events.DynamoDBEventRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.DynamoDBEventRecord(nil), r.received[code]...)
}

// start runs a poller until the test ends.
func start(t *testing.T, db DynamoDBAPI, endpoint string, opts Options) {
	t.Helper()
	opts.Region, opts.Log = emulator.Region, quiet
	p, err := New(db, emulator.NewStreamsClient(endpoint), opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

var ttlIdentity = &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}

// TestLinksTableDeletions runs the poller on the links table in DynamoDB
// Local: an item removed by TTL reaches the handler as AWS's TTL REMOVE,
// a DeleteItem as a plain REMOVE, and both look like the fixtures the
// stream function is tested with.
func TestLinksTableDeletions(t *testing.T) {
	t.Parallel()
	endpoint := testenv.DynamoDBEndpoint(t)
	db := emulator.NewDynamoDBClient(endpoint)
	// PurgeDelay -1: TTL may remove a link at its expiry (the backstop
	// path; deployed, the reclaim run tombstones it a day before).
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), PurgeDelay: -1}
	ctx := context.Background()
	require.NoError(t, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, cfg)
	rec := newRecorder()
	start(t, db, endpoint, Options{Table: cfg.LinksTable, Handler: rec.handle})

	now := time.Now().UTC().Truncate(time.Second)
	expired := link.Link{Code: "gone001", URL: "https://example.com/old", Owner: "p6r4ocs3d1", CreatedAt: now.Add(-time.Hour),
		UpdatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	require.NoError(t, store.Create(ctx, expired, nil))
	kept := expired
	kept.Code, kept.ExpiresAt = "kept001", now.Add(time.Hour)
	require.NoError(t, store.Create(ctx, kept, nil))
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &cfg.LinksTable,
		Key: map[string]ddbtypes.AttributeValue{tableschema.AttrCode: &ddbtypes.AttributeValueMemberS{Value: kept.Code}}})
	require.NoError(t, err)

	require.Eventually(t, func() bool {
		return len(rec.records(expired.Code)) == 2 && len(rec.records(kept.Code)) == 2
	}, 20*time.Second, 50*time.Millisecond, "both deletions reach the handler")
	rec.mu.Lock()
	t.Logf("the TTL deletion reached the handler %.1f s after expires_at", rec.arrived[expired.Code].Sub(expired.ExpiresAt).Seconds())
	rec.mu.Unlock()

	ttl := rec.records(expired.Code)
	assert.Equal(t, "INSERT", ttl[0].EventName)
	assert.Equal(t, "REMOVE", ttl[1].EventName)
	assert.Equal(t, ttlIdentity, ttl[1].UserIdentity)
	assert.Equal(t, "p6r4ocs3d1", ttl[1].Change.OldImage[tableschema.AttrOwner].String())
	assert.Equal(t, emulator.Region, ttl[1].AWSRegion)

	user := rec.records(kept.Code)
	assert.Equal(t, "INSERT", user[0].EventName)
	assert.Equal(t, "REMOVE", user[1].EventName)
	assert.Nil(t, user[1].UserIdentity, "a user delete carries no identity")

	// Same shape as the fixtures: the same fields at every level, down to
	// the link item's attribute names.
	assert.Equal(t, shape(t, fixture(t, "ttl-remove.json")), shape(t, ttl[1]))
	assert.Equal(t, shape(t, fixture(t, "user-remove.json")), shape(t, user[1]))
	assert.Equal(t, shape(t, fixture(t, "insert.json")), shape(t, user[0]))
}

// TestDynamoDBLocalsOwnTTL leaves expiry to DynamoDB Local, on an instance
// of its own: one item its sweeper cannot delete aborts the whole sweep,
// across tables, so on the shared instance, where other tests leave
// expired links behind, which tables get swept is luck.
//
// In a table without secondary indexes DynamoDB Local deletes expired
// items (about every 10 s) and writes records with eventName
// UNKNOWN_TO_SDK_VERSION, which the poller turns into AWS's TTL REMOVE.
// An expired link in the links table, whose sparse index leaves every link
// out, it never deletes: the reason the poller sweeps by itself. If that
// last check fails, a newer DynamoDB Local has fixed it, and the sweeper
// may go.
func TestDynamoDBLocalsOwnTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proc, err := emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{})
	require.NoError(t, err, "DynamoDB Local is required: install a Java 17+ JDK and run `npm ci`")
	t.Cleanup(func() { assert.NoError(t, proc.Stop()) })
	endpoint := proc.Endpoint()
	db := emulator.NewDynamoDBClient(endpoint)

	plain := "plain"
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &plain,
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String(tableschema.AttrCode), AttributeType: ddbtypes.ScalarAttributeTypeS}},
		KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String(tableschema.AttrCode), KeyType: ddbtypes.KeyTypeHash}},
		StreamSpecification:  &ddbtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages},
	})
	require.NoError(t, err)
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: &plain,
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(tableschema.AttrExpiresAt), Enabled: aws.Bool(true)}})
	require.NoError(t, err)
	rec := newRecorder()
	start(t, db, endpoint, Options{Table: plain, Handler: rec.handle, DisableTTLSweep: true})

	expired := time.Now().Unix() - 1
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &plain, Item: map[string]ddbtypes.AttributeValue{
		tableschema.AttrCode:      &ddbtypes.AttributeValueMemberS{Value: "first01"},
		tableschema.AttrExpiresAt: &ddbtypes.AttributeValueMemberN{Value: fmt.Sprint(expired)},
	}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		r := rec.records("first01")
		return len(r) == 2 && r[1].EventName == "REMOVE"
	}, 30*time.Second, 100*time.Millisecond, "DynamoDB Local deletes expired items")
	rec.mu.Lock()
	t.Logf("DynamoDB Local's own TTL deletion reached the handler %.1f s after expires_at", rec.arrived["first01"].Sub(time.Unix(expired, 0)).Seconds())
	rec.mu.Unlock()
	assert.Equal(t, ttlIdentity, rec.records("first01")[1].UserIdentity, "UNKNOWN_TO_SDK_VERSION becomes AWS's TTL REMOVE")

	links := dynamo.LinkConfig{LinksTable: "links", IdempotencyTable: "idem", PurgeDelay: -1}
	require.NoError(t, localtable.Links(ctx, db, links.LinksTable, links.IdempotencyTable))
	store := dynamo.NewLinkStore(db, links)
	now := time.Now().UTC().Truncate(time.Second)
	require.NoError(t, store.Create(ctx, link.Link{Code: "stuck01", URL: "https://example.com/", Owner: "o",
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(-time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
	time.Sleep(22 * time.Second) // two of its sweeps
	_, err = store.Get(ctx, "stuck01")
	assert.NoError(t, err, "DynamoDB Local now deletes expired links beside a sparse index: the poller's sweeper may be unnecessary")
}

func fixture(t *testing.T, name string) events.DynamoDBEventRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "functions", "ttlstream", "ttlstreamfn", "testdata", name))
	require.NoError(t, err)
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(b, &ev))
	require.Len(t, ev.Records, 1)
	return ev.Records[0]
}

// shape lists the JSON field paths of r, down to the images' attribute
// names and types; values are left out.
func shape(t *testing.T, r events.DynamoDBEventRecord) []string {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var paths []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			paths = append(paths, prefix)
			return
		}
		for k, x := range obj {
			if prefix == ".dynamodb.OldImage" || prefix == ".dynamodb.NewImage" {
				// Optional link attributes (alias) differ between items.
				if k == tableschema.AttrAlias {
					continue
				}
			}
			walk(prefix+"."+k, x)
		}
	}
	walk("", m)
	sort.Strings(paths)
	return paths
}

// TestCreationTimeToTheSecond: a record's ApproximateCreationDateTime is
// its write time rounded down to the second, as AWS documents it
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html),
// not to the minute, as DynamoDB Local reports it. Writes are spread over
// a few seconds so that at least one falls past a minute's first second.
// Not parallel: its table's creation, beside the others', slows DynamoDB
// Local past TestLinksTableDeletions' first write's 2 s.
func TestCreationTimeToTheSecond(t *testing.T) {
	endpoint := testenv.DynamoDBEndpoint(t)
	db := emulator.NewDynamoDBClient(endpoint)
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Timeout: 10 * time.Second}
	ctx := context.Background()
	require.NoError(t, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, cfg)
	rec := newRecorder()
	start(t, db, endpoint, Options{Table: cfg.LinksTable, Handler: rec.handle})

	type write struct {
		code          string
		before, after time.Time
	}
	var writes []write
	for i := range 3 {
		now := time.Now().UTC()
		code := fmt.Sprintf("when%03d", i)
		before := now.Truncate(time.Second)
		require.NoError(t, store.Create(ctx, link.Link{Code: code, URL: "https://example.com/", Owner: "o",
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
		writes = append(writes, write{code: code, before: before, after: time.Now()})
		time.Sleep(1100 * time.Millisecond)
	}
	for _, w := range writes {
		require.Eventually(t, func() bool { return len(rec.records(w.code)) == 1 }, 20*time.Second, 50*time.Millisecond)
		got := rec.records(w.code)[0].Change.ApproximateCreationDateTime.Time
		assert.Equal(t, got.Truncate(time.Second), got, "%s: whole seconds", w.code)
		assert.False(t, got.Before(w.before), "%s: written at %s or later, stamped %s", w.code, w.before.Format(time.RFC3339), got.Format(time.RFC3339))
		// The poller reads a shard four times a second: a record is
		// stamped when it is first read, at most a poll after its write.
		assert.False(t, got.After(w.after.Add(2*time.Second)), "%s: written by %s, stamped %s", w.code, w.after.Format(time.RFC3339Nano), got.Format(time.RFC3339))
	}
}
