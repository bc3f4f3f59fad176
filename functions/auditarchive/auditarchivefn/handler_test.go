package auditarchivefn_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/locals3"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

const bucket = "shortener-audit-archive"

func load(t *testing.T, name string) events.DynamoDBEvent {
	t.Helper()
	return eventtest.Load[events.DynamoDBEvent](t, filepath.Join("testdata", name))
}

// archive is the function as its Lambda builds it (Build), its S3 client
// the SDK's, sent to the S3 stand-in's bucket with Object Lock and a
// COMPLIANCE default retention.
type archive struct {
	h       *auditarchivefn.Handler
	s3      *locals3.Server
	metrics *bytes.Buffer
	log     *bytes.Buffer
}

func newArchive(t *testing.T, bucketName string) archive {
	t.Helper()
	srv := locals3.New(locals3.Options{Buckets: []locals3.Bucket{
		{Name: bucket, ObjectLock: true, DefaultRetention: &locals3.Retention{Mode: locals3.Compliance, Days: 1}}}})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	a := archive{s3: srv, metrics: &bytes.Buffer{}, log: &bytes.Buffer{}}
	cfg, err := config.Load(func(k string) string { return map[string]string{"AUDIT_ARCHIVE_BUCKET": bucketName}[k] })
	require.NoError(t, err)
	a.h, err = auditarchivefn.Build(cfg, fnclients.Clients{
		AWS: aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
			Retryer: func() aws.Retryer { return aws.NopRetryer{} }},
		S3Endpoint: hs.URL, Log: slog.New(slog.NewJSONHandler(a.log, nil)), Metrics: a.metrics,
	})
	require.NoError(t, err)
	return a
}

func failures(resp events.DynamoDBEventResponse) []string {
	out := []string{}
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// metric is the value of name in the EMF lines written.
func metric(t *testing.T, emf *bytes.Buffer, name string) float64 {
	t.Helper()
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(emf.Bytes()))
	for sc.Scan() {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		if v, ok := rec[name].(float64); ok {
			sum += v
		}
	}
	return sum
}

func lines(t *testing.T, body []byte) []auditarchivefn.Line {
	t.Helper()
	var out []auditarchivefn.Line
	for _, l := range strings.SplitAfter(string(body), "\n") {
		if l == "" {
			continue
		}
		require.True(t, strings.HasSuffix(l, "\n"), "every line ends with a newline")
		var line auditarchivefn.Line
		require.NoError(t, json.Unmarshal([]byte(l), &line))
		out = append(out, line)
	}
	return out
}

func TestArchivesABatchsInsertsAsOneObject(t *testing.T) {
	a := newArchive(t, bucket)
	resp, err := a.h.Handle(context.Background(), load(t, "batch.json"))
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)

	vs, err := a.s3.Versions(bucket)
	require.NoError(t, err)
	require.Len(t, vs, 1, "one object for the batch")
	v := vs[0]
	assert.Equal(t, "audit/2026/12/01/4421584500000000017450439101-4421584500000000017450439105.jsonl", v.Key)
	assert.Equal(t, auditarchivefn.ContentType, v.ContentType)
	// The checksum the function sent, which the stand-in verified and S3
	// keeps: the SHA-256 of the object's bytes.
	sum := sha256.Sum256(v.Body)
	assert.Equal(t, "SHA256", v.ChecksumAlgorithm)
	assert.Equal(t, base64.StdEncoding.EncodeToString(sum[:]), v.Checksum)
	assert.Equal(t, locals3.Compliance, v.Mode, "the bucket's default retention locks it")
	assert.Equal(t, map[string]string{"entries": "3", "first-sequence-number": "4421584500000000017450439101",
		"last-sequence-number": "4421584500000000017450439105"}, v.Metadata)

	// The INSERTs, in order; the TTL REMOVE and the MODIFY are not archived.
	got := lines(t, v.Body)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"2026-12-01T01:53:20.123Z#0a1b2c3d4e5f6071", "2026-12-01T01:53:21.456Z#8899aabbccddeeff",
		"2026-12-01T01:53:22.000Z#0011223344556677"}, []string{got[0].ID, got[1].ID, got[2].ID})
	first := strings.SplitN(string(v.Body), "\n", 2)[0]
	assert.JSONEq(t, `{"workspace":"p6r4ocs3d1","id":"2026-12-01T01:53:20.123Z#0a1b2c3d4e5f6071","at":"2026-12-01T01:53:20.123Z",
		"actor":{"id":"key:1a2b3c4d"},"source":"api","action":"create","target":{"type":"link","id":"summer-sale"},
		"after":{"code":"summer-sale","url":"https://example.com/summer","password":"[redacted]","status":"active","version":1}}`, first)
	assert.Equal(t, "ana", got[1].Actor.Username)
	assert.Equal(t, "w0rksp4c3b", got[2].Workspace)
	assert.Nil(t, got[2].After, "a webhook's delete has no after")

	assert.Equal(t, 3.0, metric(t, a.metrics, auditarchivefn.MetricArchived))
	assert.Equal(t, 1.0, metric(t, a.metrics, auditarchivefn.MetricObjects))
	assert.Equal(t, 0.0, metric(t, a.metrics, auditarchivefn.MetricFailures))
	assert.Equal(t, 2.0, metric(t, a.metrics, auditarchivefn.MetricIgnored))
}

func TestSecretsNeverReachTheObjectOrTheLog(t *testing.T) {
	// batch.json's second entry was written by a writer that did not yet
	// count "token" as a secret: the copy is held to today's list, as
	// GET /v1/audit is.
	a := newArchive(t, bucket)
	_, err := a.h.Handle(context.Background(), load(t, "batch.json"))
	require.NoError(t, err)
	vs, _ := a.s3.Versions(bucket)
	require.Len(t, vs, 1)
	assert.NotContains(t, string(vs[0].Body), "tok_live_51HxSecret")
	assert.Contains(t, string(vs[0].Body), `"token":"[redacted]"`)
	// A failed batch logs positions and errors, never entries.
	b := newArchive(t, "no-such-bucket")
	_, err = b.h.Handle(context.Background(), load(t, "batch.json"))
	require.NoError(t, err)
	assert.Contains(t, b.log.String(), "NoSuchBucket")
	assert.NotContains(t, b.log.String(), "tok_live_51HxSecret")
	assert.NotContains(t, b.log.String(), "example.com")
}

func TestARetriedBatchWritesTheSameKeyAgain(t *testing.T) {
	a := newArchive(t, bucket)
	for range 2 {
		resp, err := a.h.Handle(context.Background(), load(t, "batch.json"))
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
	}
	vs, _ := a.s3.Versions(bucket)
	require.Len(t, vs, 2, "the retry is a second version of the key; the first stays")
	assert.Equal(t, vs[0].Key, vs[1].Key)
	assert.NotEqual(t, vs[0].VersionID, vs[1].VersionID)
	assert.Equal(t, vs[0].Body, vs[1].Body, "the same lines, byte for byte")
}

func TestARecordThatIsNoEntryStopsTheObjectBeforeIt(t *testing.T) {
	a := newArchive(t, bucket)
	resp, err := a.h.Handle(context.Background(), load(t, "poison.json"))
	require.NoError(t, err)
	// The record with no actor and the INSERT after it; not the REMOVE.
	assert.Equal(t, []string{"4421584500000000017450439202", "4421584500000000017450439204"}, failures(resp))
	vs, _ := a.s3.Versions(bucket)
	require.Len(t, vs, 1)
	assert.Equal(t, "audit/2026/12/01/4421584500000000017450439201-4421584500000000017450439201.jsonl", vs[0].Key)
	assert.Len(t, lines(t, vs[0].Body), 1)
	assert.Equal(t, 2.0, metric(t, a.metrics, auditarchivefn.MetricFailures))
	assert.Contains(t, a.log.String(), "attribute actor: missing")
}

// failingS3 refuses every upload.
type failingS3 struct{ calls int }

func (f *failingS3) PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	f.calls++
	return nil, errors.New("s3 unavailable")
}

func TestAFailedUploadReportsEveryInsert(t *testing.T) {
	fake := &failingS3{}
	h := auditarchivefn.New(auditarchivefn.Options{S3: fake, Bucket: bucket, Log: slog.New(slog.DiscardHandler)})
	resp, err := h.Handle(context.Background(), load(t, "batch.json"))
	require.NoError(t, err, "never the whole invocation: the failures are reported")
	assert.Equal(t, 1, fake.calls)
	assert.Equal(t, []string{"4421584500000000017450439101", "4421584500000000017450439103", "4421584500000000017450439105"}, failures(resp))

	// The same against S3's answer for a bucket that is not there.
	a := newArchive(t, "no-such-bucket")
	resp, err = a.h.Handle(context.Background(), load(t, "poison.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{"4421584500000000017450439201", "4421584500000000017450439202", "4421584500000000017450439204"}, failures(resp))
	assert.Equal(t, 3.0, metric(t, a.metrics, auditarchivefn.MetricFailures))
	assert.Equal(t, 0.0, metric(t, a.metrics, auditarchivefn.MetricArchived))
}

func TestABatchWithoutInsertsWritesNothing(t *testing.T) {
	fake := &failingS3{}
	h := auditarchivefn.New(auditarchivefn.Options{S3: fake, Bucket: bucket})
	resp, err := h.Handle(context.Background(), load(t, "no-inserts.json"))
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Zero(t, fake.calls, "TTL removes and changes are never archived")
}

func TestKeyIsTheRecordsOwn(t *testing.T) {
	ev := load(t, "batch.json")
	recs := []*events.DynamoDBEventRecord{&ev.Records[0], &ev.Records[2]}
	assert.Equal(t, "audit/2026/12/01/4421584500000000017450439101-4421584500000000017450439103.jsonl", auditarchivefn.Key(recs))
	again := load(t, "batch.json")
	assert.Equal(t, auditarchivefn.Key(recs), auditarchivefn.Key([]*events.DynamoDBEventRecord{&again.Records[0], &again.Records[2]}))
	// The day is the first record's stream time, in UTC.
	ev.Records[0].Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: time.Date(2027, 1, 1, 0, 30, 0, 0, time.FixedZone("x", 3600))}
	assert.True(t, strings.HasPrefix(auditarchivefn.Key(recs), "audit/2026/12/31/"))
}

func TestEntryOfRefusesWhatIsNoEntry(t *testing.T) {
	ev := load(t, "batch.json")
	img := ev.Records[0].Change.NewImage
	_, err := auditarchivefn.EntryOf(img)
	require.NoError(t, err)
	for _, attr := range []string{"owner_id", "sk", "at", "actor", "source", "action", "target_type", "target_id"} {
		t.Run("without "+attr, func(t *testing.T) {
			cp := map[string]events.DynamoDBAttributeValue{}
			for k, v := range img {
				if k != attr {
					cp[k] = v
				}
			}
			_, err := auditarchivefn.EntryOf(cp)
			assert.ErrorContains(t, err, "attribute "+attr)
		})
	}
	cp := map[string]events.DynamoDBAttributeValue{}
	for k, v := range img {
		cp[k] = v
	}
	cp["at"] = events.NewStringAttribute("yesterday")
	_, err = auditarchivefn.EntryOf(cp)
	assert.ErrorContains(t, err, "attribute at")
	_, err = auditarchivefn.EntryOf(nil)
	assert.ErrorContains(t, err, "NEW_IMAGE")
}
