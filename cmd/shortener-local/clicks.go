package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/internal/localkinesis"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/internal/pace"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Defaults of the click pipeline.
const (
	defaultKinesisPort  = 4567 // kinesalite's own default
	defaultClicksStream = "shortener-clicks"
	// clickShards is the shard count of a stream the command creates: two,
	// so the per-shard checkpoints of the clicks function are exercised.
	clickShards = 2
	// The deployed mapping (infra/clickpipeline): batches of up to 1,000
	// records gathered for up to 5 s, 10 retries.
	clicksBatchSize   = 1000
	clicksBatchWindow = 5 * time.Second
	clicksMaxRetries  = 10
	// clickEventsRetry is the period of the schedule that invokes the
	// clicks function with no records, so that it queues the link.clicked
	// events it kept while the queue failed (clicksfn.Handler.Outbox) even
	// when no clicks come.
	clickEventsRetry = time.Minute
)

// clickSettings are the local run's settings for the click pipeline.
type clickSettings struct {
	// kinesisEndpoint is SHORTENER_KINESIS_ENDPOINT: a kinesalite to use;
	// when empty the command starts one on kinesisPort
	// (SHORTENER_KINESIS_PORT, 0 for any free port).
	kinesisEndpoint string
	kinesisPort     int
	stream          string // CLICKS_STREAM
	// batchWindow is SHORTENER_CLICKS_BATCH_WINDOW, the mapping's
	// MaximumBatchingWindow: 5s as deployed. Besides fidelity it keeps the
	// analytics writes, which cost DynamoDB Local about 150 ms a
	// transaction, from competing with a burst of redirects (whose lookups
	// time out after 500 ms) while it lasts. 0s counts clicks within a
	// second.
	batchWindow time.Duration
	// country is SHORTENER_EDGE_COUNTRY: the c-country the edge logs when
	// a request carries no CloudFront-Viewer-Country header.
	country string
	// eventsRetry is SHORTENER_CLICK_EVENTS_RETRY, the schedule's period
	// (clickEventsRetry), and how often the function looks at its kept
	// events while batches come.
	eventsRetry time.Duration
}

func loadClickSettings(getenv func(string) string) (clickSettings, error) {
	s := clickSettings{
		kinesisEndpoint: getenv("SHORTENER_KINESIS_ENDPOINT"),
		kinesisPort:     defaultKinesisPort,
		stream:          or(getenv("CLICKS_STREAM"), defaultClicksStream),
		batchWindow:     clicksBatchWindow,
		country:         getenv("SHORTENER_EDGE_COUNTRY"),
		eventsRetry:     clickEventsRetry,
	}
	if v := getenv("SHORTENER_CLICK_EVENTS_RETRY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > time.Hour {
			return clickSettings{}, fmt.Errorf("SHORTENER_CLICK_EVENTS_RETRY: %q is not a duration from 1s to 1h", v)
		}
		s.eventsRetry = d
	}
	if v := getenv("SHORTENER_KINESIS_PORT"); v != "" {
		port, err := strconv.Atoi(v)
		if err != nil || port < 0 || port > 65535 {
			return clickSettings{}, fmt.Errorf("SHORTENER_KINESIS_PORT: %q is not a port number (0 picks a free one)", v)
		}
		s.kinesisPort = port
	}
	if v := getenv("SHORTENER_CLICKS_BATCH_WINDOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 300*time.Second {
			return clickSettings{}, fmt.Errorf("SHORTENER_CLICKS_BATCH_WINDOW: %q is not a duration from 0s to 300s", v)
		}
		s.batchWindow = d
	}
	if c := s.country; c != "" && (len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z') {
		return clickSettings{}, fmt.Errorf("SHORTENER_EDGE_COUNTRY: %q is not a two-letter country code such as DE", c)
	}
	return s, nil
}

// clickPipeline is what AWS runs behind CloudFront's real-time log: the
// stream's writer (CloudFront's side) and the event source mapping that
// feeds the clicks function.
type clickPipeline struct {
	writer *localkinesis.Writer
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startClicks creates the stream and the analytics table, and starts
// writing edge records to the stream and polling it into the clicks
// function.
func startClicks(ctx context.Context, s clickSettings, cfg config.Config, c fnclients.Clients, db *dynamodb.Client, kc *kinesis.Client,
	log *slog.Logger) (*clickPipeline, error) {
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	if _, err := localkinesis.EnsureStream(tctx, kc, s.stream, clickShards); err != nil {
		return nil, err
	}
	if err := localtable.Create(tctx, db, cfg.AnalyticsTable, tableschema.Analytics()); err != nil {
		return nil, err
	}
	clicks, err := clicksfn.Build(cfg, c)
	if err != nil {
		return nil, err
	}
	writer, err := localkinesis.NewWriter(localkinesis.NewSender(kc), localkinesis.WriterOptions{Stream: s.stream, Log: log.With("component", "edge-log-writer")})
	if err != nil {
		return nil, err
	}
	poller, err := localkinesis.NewPoller(kc, localkinesis.Options{
		Stream: s.stream, Handler: clicks.Handle, BatchSize: clicksBatchSize, BatchWindow: s.batchWindow,
		MaxRetries: clicksMaxRetries, Log: log.With("component", "kinesis-poller"),
	})
	if err != nil {
		return nil, errors.Join(err, writer.Close(ctx))
	}
	// The poller outlives ctx: at shutdown it stops only after the edge's
	// last records have been flushed to the stream.
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	p := &clickPipeline{writer: writer, cancel: stop}
	p.wg.Go(func() {
		if err := poller.Run(pctx); err != nil {
			log.Error("kinesis poller stopped", "error", err.Error())
		}
	})
	if clicks.Outbox != nil {
		clicks.RetryEvery = s.eventsRetry
		// The schedule that invokes the clicks function with no records
		// every period: an EventBridge rule's input of {} is an
		// events.KinesisEvent with none. It logs its own failures.
		p.wg.Go(func() {
			pace.Every(pctx, s.eventsRetry, func(ctx context.Context) { _, _ = clicks.Handle(ctx, events.KinesisEvent{}) })
		})
	}
	return p, nil
}

// stop flushes the records still waiting for the stream, then stops the
// poller. ctx bounds the flush.
func (p *clickPipeline) stop(ctx context.Context) error {
	err := p.writer.Close(ctx)
	p.cancel()
	p.wg.Wait()
	return err
}

// lateSink hands the edge's records to the stream writer once the click
// pipeline runs; before that (the gateway answers 503 while starting) they
// are dropped.
type lateSink struct {
	w atomic.Pointer[localkinesis.Writer]
}

func (s *lateSink) set(w *localkinesis.Writer) { s.w.Store(w) }

func (s *lateSink) Write(ctx context.Context, r clicklog.Record) {
	if w := s.w.Load(); w != nil {
		w.Write(ctx, r)
	}
}
