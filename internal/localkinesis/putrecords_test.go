package localkinesis

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// bodyOf builds the PutRecords body the Writer would send for records.
func bodyOf(stream string, records ...clicklog.Record) []byte {
	w := newWriter(nil, WriterOptions{Stream: stream})
	var b batch
	for _, r := range records {
		b.add(clicklog.Format(r), r.RequestID)
	}
	return b.body(nil, w.head)
}

// TestSenderPutsOnKinesalite: what the sender puts is what GetRecords
// reads back, byte for byte, with its partition key; and a call Kinesis
// refuses whole is an error naming the reason.
func TestSenderPutsOnKinesalite(t *testing.T) {
	client, name, _ := stream(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := NewSender(client)
	codes, err := s.PutRecords(ctx, bodyOf(name, record(1), record(2)), 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"", ""}, codes)

	it, err := client.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: &name,
		ShardId: aws.String("shardId-000000000000"), ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
	require.NoError(t, err)
	out, err := client.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: it.ShardIterator})
	require.NoError(t, err)
	require.Len(t, out.Records, 2)
	for i, r := range out.Records {
		assert.Equal(t, clicklog.Format(record(i+1)), r.Data)
		assert.Equal(t, record(i+1).RequestID, aws.ToString(r.PartitionKey))
	}

	_, err = s.PutRecords(ctx, bodyOf(name+"-missing", record(1)), 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ResourceNotFoundException")
	assert.Contains(t, err.Error(), "HTTP 400")
}

// fakeKinesis answers every request with status and answer, and keeps the
// last request.
func fakeKinesis(t *testing.T, status int, answer string) (*HTTPSender, *http.Request) {
	t.Helper()
	var got http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return NewSender(emulator.NewKinesisClient(srv.URL)), &got
}

func TestSenderReadsTheAnswer(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		answer    string
		n         int
		wantCodes []string
		wantErr   string
	}{
		{
			name:      "all accepted",
			status:    200,
			answer:    `{"FailedRecordCount":0,"Records":[{"SequenceNumber":"1","ShardId":"shardId-000000000000"},{"SequenceNumber":"2","ShardId":"shardId-000000000000"}]}`,
			n:         2,
			wantCodes: []string{"", ""},
		},
		{
			name:   "some refused",
			status: 200,
			answer: `{"FailedRecordCount":2,"Records":[{"ErrorCode":"ProvisionedThroughputExceededException","ErrorMessage":"Rate exceeded"},` +
				`{"SequenceNumber":"2","ShardId":"shardId-000000000000"},{"ErrorCode":"InternalFailure","ErrorMessage":"x"}]}`,
			n:         3,
			wantCodes: []string{"ProvisionedThroughputExceededException", "", "InternalFailure"},
		},
		{
			name:      "refused ones, the count not first",
			status:    200,
			answer:    ` {"Records":[{"SequenceNumber":"1","ShardId":"shardId-000000000000"},{"ErrorCode":"InternalFailure","ErrorMessage":"x"}],"FailedRecordCount":1}`,
			n:         2,
			wantCodes: []string{"", "InternalFailure"},
		},
		{
			name:    "fewer results than records",
			status:  200,
			answer:  `{"Records":[{"SequenceNumber":"1","ShardId":"shardId-000000000000"}]}`,
			n:       2,
			wantErr: "1 results for 2 records",
		},
		{
			name:    "a refused answer that is not JSON",
			status:  200,
			answer:  `{"Records":[{"ErrorCode":`,
			n:       1,
			wantErr: "the answer",
		},
		{
			name:    "the call refused whole",
			status:  400,
			answer:  `{"__type":"com.amazonaws.kinesis.v20131202#ProvisionedThroughputExceededException","message":"Rate exceeded for stream s"}`,
			n:       1,
			wantErr: "PutRecords: HTTP 400: ProvisionedThroughputExceededException: Rate exceeded for stream s",
		},
		{
			name:    "a server error without JSON",
			status:  503,
			answer:  `Service Unavailable`,
			n:       1,
			wantErr: "PutRecords: HTTP 503: Service Unavailable",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := fakeKinesis(t, tt.status, tt.answer)
			codes, err := s.PutRecords(context.Background(), []byte(`{}`), tt.n)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantCodes, codes)
		})
	}
}

func TestSenderSignsItsCalls(t *testing.T) {
	s, got := fakeKinesis(t, 200, `{"FailedRecordCount":0,"Records":[]}`)
	_, err := s.PutRecords(context.Background(), []byte(`{"StreamName":"s","Records":[]}`), 0)
	require.NoError(t, err)
	assert.Equal(t, http.MethodPost, got.Method)
	assert.Equal(t, "Kinesis_20131202.PutRecords", got.Header.Get("X-Amz-Target"))
	assert.Equal(t, "application/x-amz-json-1.1", got.Header.Get("Content-Type"))
	auth := got.Header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="), auth)
	assert.Contains(t, auth, "/"+emulator.Region+"/kinesis/aws4_request")
	assert.NotEmpty(t, got.Header.Get("X-Amz-Date"))
}

func TestBatchBody(t *testing.T) {
	var b batch
	b.add([]byte("line one\n"), "k1")
	b.add([]byte("line two\n"), `k"2`)
	b.add([]byte("line three\n"), "k3")
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	head := []byte(`{"StreamName":"s","Records":[`)
	want := `{"StreamName":"s","Records":[{"Data":"` + enc("line one\n") + `","PartitionKey":"k1"},` +
		`{"Data":"` + enc("line two\n") + `","PartitionKey":"k\"2"},` +
		`{"Data":"` + enc("line three\n") + `","PartitionKey":"k3"}]}`
	assert.Equal(t, want, string(b.body(nil, head)))
	assert.Equal(t, 9+2+9+3+11+2, b.size)

	tail := b.slice(1, 3)
	assert.Equal(t, `{"StreamName":"s","Records":[{"Data":"`+enc("line two\n")+`","PartitionKey":"k\"2"},`+
		`{"Data":"`+enc("line three\n")+`","PartitionKey":"k3"}]}`, string(tail.body(nil, head)))
	assert.Equal(t, []int{9 + 3, 11 + 2}, tail.sizes)

	var again batch
	again.addObject(b.object(2), b.sizes[2])
	assert.Equal(t, `{"StreamName":"s","Records":[{"Data":"`+enc("line three\n")+`","PartitionKey":"k3"}]}`, string(again.body(nil, head)))

	var empty batch
	assert.Equal(t, `{"StreamName":"s","Records":[]}`, string(empty.body(nil, head)))
}

func TestFailedRecordCount(t *testing.T) {
	tests := []struct {
		answer string
		want   int
		ok     bool
	}{
		{`{"FailedRecordCount":0,"Records":[]}`, 0, true},
		{" {\n  \"FailedRecordCount\" : 12 ,\"Records\":[]}", 12, true},
		{`{"FailedRecordCount":3}`, 3, true},
		{`{"Records":[],"FailedRecordCount":0}`, 0, false}, // not first: decoded whole
		{`{"FailedRecordCount":-1}`, 0, false},
		{`{"FailedRecordCount":"0"}`, 0, false},
		{`{"FailedRecordCount":12345678901}`, 0, false}, // more digits than any count
		{`{"FailedRecordCount":`, 0, false},
		{`[]`, 0, false},
		{``, 0, false},
	}
	for _, tt := range tests {
		got, ok := failedRecordCount([]byte(tt.answer))
		assert.Equal(t, tt.ok, ok, tt.answer)
		assert.Equal(t, tt.want, got, tt.answer)
	}
}

// FuzzRecordResults: whatever the answer, reading it never panics, and
// what it returns has a code per record.
func FuzzRecordResults(f *testing.F) {
	f.Add([]byte(`{"FailedRecordCount":0,"Records":[{"SequenceNumber":"1","ShardId":"shardId-000000000000"}]}`), 1)
	f.Add([]byte(`{"FailedRecordCount":1,"Records":[{"ErrorCode":"InternalFailure","ErrorMessage":"x"}]}`), 1)
	f.Add([]byte(`{"Records":[{"ErrorCode":"X"},{"SequenceNumber":"2"}],"FailedRecordCount":1}`), 2)
	f.Add([]byte(`{"FailedRecordCount":0`), 3)
	f.Add([]byte(`not json`), 0)
	f.Fuzz(func(t *testing.T, answer []byte, n int) {
		if n < 0 || n > MaxRecordsPerCall {
			return
		}
		codes, err := recordResults(answer, n)
		if err == nil && len(codes) != n {
			t.Fatalf("%d codes for %d records", len(codes), n)
		}
	})
}
