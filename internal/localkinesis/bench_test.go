package localkinesis

import (
	"context"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// nullOrigin starts a NullKinesis for the benchmark and returns its
// endpoint.
func nullOrigin(b *testing.B) string {
	null, err := StartNull()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(null.Close)
	return null.Origin
}

// BenchmarkWriterRecord is the local run's cost of one real-time log
// record, from Write to Kinesis's answer read, in 500-record calls to a
// NullKinesis, which accepts them all: the Writer and HTTPSender, next to the
// SDK's own PutRecords of the same records (sdk-putrecords), which the
// Writer used before. Per record: ns/op.
func BenchmarkWriterRecord(b *testing.B) {
	recs := make([]clicklog.Record, MaxRecordsPerCall)
	for i := range recs {
		recs[i] = record(i)
		recs[i].RequestID = testRequestID(i)
	}
	b.Run("writer", func(b *testing.B) {
		w := newWriter(NewSender(emulator.NewKinesisClient(nullOrigin(b))), WriterOptions{Stream: "s", Log: quiet})
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
		client := emulator.NewKinesisClient(nullOrigin(b))
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
