package faulttest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/internal/localkinesis"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// kinesisDelivery is one invocation of the clicks function.
type kinesisDelivery struct {
	records  int
	failedAt int // index of the reported failure in the batch; -1 for none
}

func TestClicksBatchFailingHalfwayCountsEveryClickOnce(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	kc := testenv.KinesisClient(t)
	stream := testenv.UniqueName(t, "clicks")
	_, err := localkinesis.EnsureStream(ctx, kc, stream, 1)
	require.NoError(t, err)
	analytics := testenv.UniqueName(t, "analytics")
	require.NoError(t, localtable.Create(ctx, r.plain, analytics, tableschema.Analytics()))

	// 40 clicks on four links, humans and bots, with a poison record in
	// the middle, written as CloudFront writes real-time log lines.
	codes := []string{"Clk0001", "Clk0002", "Clk0003", "Clk0004"}
	firstClick := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)
	want := map[string]clickstore.Counts{}
	var entries []types.PutRecordsRequestEntry
	const poisonAt = 20
	for i := range 40 {
		if i == poisonAt {
			entries = append(entries, types.PutRecordsRequestEntry{
				Data: []byte("this is not a CloudFront real-time log line\n"), PartitionKey: aws.String("poison")})
		}
		code := codes[i%len(codes)]
		agent := "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
		if i%3 == 0 {
			agent = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
		}
		rec := clicklog.Record{
			Time: firstClick.Add(time.Duration(i) * time.Millisecond), Status: 302, Method: "GET", Host: "sho.rt",
			URI: "/" + code, RequestID: fmt.Sprintf("fault-req-%04d", i), UserAgent: agent,
			Referer: []string{"", "https://t.co/"}[i%2], ResultType: "Hit", Country: []string{"DE", "US", "FR"}[i%3],
		}
		c := want[code]
		c.AddClick(i%3 == 0)
		want[code] = c
		entries = append(entries, types.PutRecordsRequestEntry{Data: clicklog.Format(rec), PartitionKey: aws.String(rec.RequestID)})
	}
	put, err := kc.PutRecords(ctx, &kinesis.PutRecordsInput{StreamName: &stream, Records: entries})
	require.NoError(t, err)
	require.Zero(t, aws.ToInt32(put.FailedRecordCount))
	poisonSeq := aws.ToString(put.Records[poisonAt].SequenceNumber)

	// The second chunk's transaction is throttled past the SDK's retries;
	// the fourth commits and its answer is lost.
	throttled := r.inj.Add(faults.Rule{Op: "TransactWriteItems", Table: analytics, Skip: 1, Times: 1, Err: faults.Throttled()})
	lost := r.inj.Add(faults.Rule{Op: "TransactWriteItems", Table: analytics, Skip: 3, Times: 1, After: true, Err: faults.ConnectionLost()})

	var logs, emf syncBuffer
	// Built as functions/clicks/main.go builds it, over the faulty client;
	// small chunks, so one batch makes several transactions.
	h := clicksfn.New(clicksfn.Options{
		Store:    dynamo.NewClickStore(r.faulty, dynamo.ClickConfig{Table: analytics}),
		MaxItems: 8,
		Log:      jsonLogger(&logs),
		Metrics:  metrics.New(&emf, "Shortener", "clicks"),
	})
	var mu sync.Mutex
	var deliveries []kinesisDelivery
	var parked []localkinesis.Failure
	p, err := localkinesis.NewPoller(kc, localkinesis.Options{
		Stream: stream,
		Handler: func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
			resp, err := h.Handle(ctx, ev)
			d := kinesisDelivery{records: len(ev.Records), failedAt: -1}
			for _, f := range resp.BatchItemFailures {
				d.failedAt = slices.IndexFunc(ev.Records, func(r events.KinesisEventRecord) bool {
					return r.Kinesis.SequenceNumber == f.ItemIdentifier
				})
			}
			mu.Lock()
			deliveries = append(deliveries, d)
			mu.Unlock()
			return resp, err
		},
		MaxRetries:   3,
		RetryDelay:   20 * time.Millisecond,
		PollInterval: 50 * time.Millisecond,
		OnFailure: func(_ context.Context, f localkinesis.Failure) {
			mu.Lock()
			defer mu.Unlock()
			parked = append(parked, f)
		},
		Log: jsonLogger(&logs),
	})
	require.NoError(t, err)
	pctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(pctx) }()
	defer stop()

	store := dynamo.NewClickStore(r.plain, dynamo.ClickConfig{Table: analytics})
	day := firstClick.Truncate(24 * time.Hour)
	counts := func() map[string]clickstore.Counts {
		got := map[string]clickstore.Counts{}
		for _, code := range codes {
			points, err := store.Series(ctx, code, clickstore.Day, day, day.Add(48*time.Hour))
			require.NoError(t, err)
			for _, pt := range points {
				c := got[code]
				c.Add(pt.Counts)
				got[code] = c
			}
		}
		return got
	}
	eventually(t, "every click is counted and the last delivery succeeded", func() bool {
		mu.Lock()
		last := len(deliveries) > 0 && deliveries[len(deliveries)-1].failedAt < 0
		mu.Unlock()
		return last && len(counts()) == len(codes) && assert.ObjectsAreEqual(want, counts())
	})
	// Stop the mapping, then look again: nothing was counted twice since.
	stop()
	require.NoError(t, <-done)
	assert.Equal(t, want, counts())

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, throttled.Fired())
	assert.Equal(t, 1, lost.Fired())
	require.GreaterOrEqual(t, len(deliveries), 3, "the batch, and one retry per failure")
	assert.Equal(t, len(entries), deliveries[0].records, "one batch")
	assert.Positive(t, deliveries[0].failedAt, "it failed halfway: the first chunk stayed committed")
	assert.Empty(t, parked, "nothing given up")
	assert.Equal(t, 2.0, emf.metric(t, "BatchFailures"))
	assert.Positive(t, emf.metric(t, "RecordsAlreadyApplied"), "the lost commit was recognised by the checkpoint")
	// The poison record was skipped in place, logged with its position,
	// and never held the shard back: every click behind it is counted.
	assert.Positive(t, emf.metric(t, "PoisonRecords"))
	var logged []any
	for _, l := range logs.Records(t, "skipped unparseable log record") {
		logged = append(logged, l["sequence_number"])
	}
	assert.Contains(t, logged, poisonSeq)
}
