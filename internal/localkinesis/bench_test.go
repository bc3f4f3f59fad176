package localkinesis

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// okKinesis answers every PutRecords with success for the records it
// counts, as cmd/loadgen's null Kinesis does.
func okKinesis(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n := bytes.Count(in, []byte(`"PartitionKey"`))
		out := []byte(`{"FailedRecordCount":0,"Records":[`)
		for i := range n {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, `{"SequenceNumber":"`...)
			out = strconv.AppendInt(out, int64(i), 10)
			out = append(out, `","ShardId":"shardId-000000000000"}`...)
		}
		out = append(out, "]}"...)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		_, _ = w.Write(out)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkWriterRecord is the local run's cost of one real-time log
// record, from Write to Kinesis's answer read, in 500-record calls to a
// server that accepts them all: the Writer and HTTPSender, next to the
// SDK's own PutRecords of the same records (sdk-putrecords), which the
// Writer used before. Per record: ns/op.
func BenchmarkWriterRecord(b *testing.B) {
	recs := make([]clicklog.Record, MaxRecordsPerCall)
	for i := range recs {
		recs[i] = record(i)
		recs[i].RequestID = testRequestID(i)
	}
	b.Run("writer", func(b *testing.B) {
		w := newWriter(NewSender(emulator.NewKinesisClient(okKinesis(b))), WriterOptions{Stream: "s", Log: quiet})
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			w.Write(context.Background(), recs[i%len(recs)])
			if i%len(recs) == len(recs)-1 {
				w.flush()
			}
		}
		w.flush()
		if w.Stats().Dropped > 0 {
			b.Fatalf("dropped: %+v", w.Stats())
		}
	})
	b.Run("sdk-putrecords", func(b *testing.B) {
		client := emulator.NewKinesisClient(okKinesis(b))
		var entries []types.PutRecordsRequestEntry
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r := recs[i%len(recs)]
			entries = append(entries, types.PutRecordsRequestEntry{Data: clicklog.Format(r), PartitionKey: aws.String(r.RequestID)})
			if len(entries) == len(recs) {
				if _, err := client.PutRecords(context.Background(), &kinesis.PutRecordsInput{StreamName: aws.String("s"), Records: entries}); err != nil {
					b.Fatal(err)
				}
				entries = nil
			}
		}
	})
}

// testRequestID is a 56-character id, the length of an edge request id.
func testRequestID(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 56 {
		s = "0" + s
	}
	return s
}
