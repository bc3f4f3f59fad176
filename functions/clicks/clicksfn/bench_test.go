package clicksfn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
)

// benchRecords are n Kinesis records of realistic log lines: 500 links,
// browsers, link previews, HEADs and some 404s, over two hours.
func benchRecords(n int) []events.KinesisEventRecord {
	agents := []string{
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	}
	referrers := []string{"", "https://news.ycombinator.com/item?id=42", "", "https://t.co/", "", "https://www.google.com/"}
	countries := []string{"DE", "US", "FR", "GB", "JP", "BR", "IN", ""}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	records := make([]events.KinesisEventRecord, n)
	for i := range records {
		r := clicklog.Record{
			Time:       start.Add(time.Duration(i) * 7200 * time.Second / time.Duration(n)),
			Status:     302,
			Method:     "GET",
			Host:       "sho.rt",
			URI:        fmt.Sprintf("/c%06d", i*7919%500),
			RequestID:  fmt.Sprintf("kXh0Zq8c2sJ3tqFzZ7Hn0bQ1yW9d4e5f6g7h8i9j0kLmNoPq%06d==", i),
			UserAgent:  agents[i%len(agents)],
			Referer:    referrers[i%len(referrers)],
			ResultType: "Hit",
			Country:    countries[i%len(countries)],
		}
		switch {
		case i%13 == 0:
			r.Method = "HEAD"
		case i%17 == 0:
			r.Status, r.URI, r.ResultType = 404, "/zzzzzzz", "Error"
		}
		seq := fmt.Sprintf("4965689012345678901234567890123456789012345678901%07d", i)
		records[i] = events.KinesisEventRecord{
			EventID: "shardId-000000000000:" + seq, EventSourceArn: streamARN,
			Kinesis: events.KinesisRecord{SequenceNumber: seq, Data: clicklog.Format(r)},
		}
	}
	return records
}

var sink int

// BenchmarkPipeline measures, in the same run, a bare bytes.Split of the
// records into fields and the handler's own work on them: parse, classify,
// dedupe and aggregate into transaction-sized chunks (no DynamoDB). Run it
// on one core:
//
//	go test -run '^$' -bench Pipeline -cpu 1 ./functions/clicks/clicksfn/
//
// ratio is the pipeline's speed over the bare split's.
func BenchmarkPipeline(b *testing.B) {
	records := benchRecords(10_000)
	h := New(Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx := context.Background()
	tab := []byte{'\t'}
	var split, pipeline time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		for i := range records {
			sink += len(bytes.Split(records[i].Kinesis.Data, tab))
		}
		t1 := time.Now()
		bt := h.reduce(ctx, records)
		for i := 0; i < len(bt.entries); {
			var c clickstore.Chunk
			c, i = bt.chunk(i, clickstore.MaxItems)
			sink += len(c.Items)
		}
		t2 := time.Now()
		split += t1.Sub(t0)
		pipeline += t2.Sub(t1)
		n += len(records)
	}
	b.ReportMetric(float64(n)/split.Seconds(), "split-records/s")
	b.ReportMetric(float64(n)/pipeline.Seconds(), "records/s")
	b.ReportMetric(split.Seconds()/pipeline.Seconds(), "ratio")
}

// BenchmarkSplit and BenchmarkParseClassifyAggregate are the two halves of
// BenchmarkPipeline on their own, for profiling.
func BenchmarkSplit(b *testing.B) {
	records := benchRecords(10_000)
	tab := []byte{'\t'}
	n := 0
	for b.Loop() {
		for i := range records {
			sink += len(bytes.Split(records[i].Kinesis.Data, tab))
		}
		n += len(records)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkParseClassifyAggregate(b *testing.B) {
	records := benchRecords(10_000)
	h := New(Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx := context.Background()
	n := 0
	for b.Loop() {
		bt := h.reduce(ctx, records)
		for i := 0; i < len(bt.entries); {
			var c clickstore.Chunk
			c, i = bt.chunk(i, clickstore.MaxItems)
			sink += len(c.Items)
		}
		n += len(records)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkClickBatch is the work the link.clicked path adds to a batch
// of 10,000 records: the per-code click times handed to the publisher,
// and their JSON, the size of an outbox item when they are kept.
func BenchmarkClickBatch(b *testing.B) {
	records := benchRecords(10_000)
	h := New(Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	bt := h.reduce(context.Background(), records)
	var size int
	n := 0
	for b.Loop() {
		cb := bt.clickBatch(len(bt.entries))
		body, err := json.Marshal(cb)
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
		n += len(records)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(size), "outbox-bytes/batch")
}
