package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/internal/localsqs"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

// defaultWebhooksTable is the local run's name for the webhooks table.
const defaultWebhooksTable = "shortener-webhooks"

// webhookEnv are the local run's defaults for the webhook settings. Unlike
// a deployed stack, which never sets it, the local run lets receivers on
// loopback addresses be called (WEBHOOK_ALLOW_LOOPBACK=true), so a
// receiver on 127.0.0.1 can be tried and tested; WEBHOOK_ALLOW_LOOPBACK=false
// makes it refuse them as AWS does.
var webhookEnv = map[string]string{
	"WEBHOOKS_TABLE":         defaultWebhooksTable,
	"WEBHOOK_ALLOW_LOOPBACK": "true",
}

// webhookSettings reads the webhook settings with the local run's defaults.
func webhookSettings(getenv func(string) string) (webhook.Config, error) {
	return webhook.LoadConfig(func(name string) string { return or(getenv(name), webhookEnv[name]) })
}

// newWebhooksAPI builds the subscriptions API's handler as
// functions/webhooks/main.go does.
func newWebhooksAPI(wc webhook.Config, db *dynamodb.Client, owners apigw.Owners, log *slog.Logger,
	metricsOut io.Writer, timeout time.Duration) *webhooksfn.Handler {
	return webhooksfn.New(webhooksfn.Options{
		Store:   dynamowebhook.New(db, dynamowebhook.Config{Table: wc.Table, Timeout: timeout}),
		Owners:  owners,
		Guard:   webhook.Guard{AllowLoopback: wc.AllowLoopback},
		Log:     log.With("function", "webhooks"),
		Metrics: metrics.New(metricsOut, "Shortener", "webhooks"),
	})
}

// The delivery queue's settings, as infra/webhooks deploys it: a message
// received maxReceives times without being handled goes to the
// dead-letter queue, and the visibility timeout outlasts the function's.
const (
	webhookVisibility  = 2 * time.Minute
	webhookMaxReceives = 5
)

// webhookPipeline is what AWS runs for webhooks besides the API: the
// delivery queue with its dead-letter queue (the SQS twin, internal/localsqs)
// and the delivery function it triggers, and the producers' side: the
// stream consumer's handler and the clicks function's events.
type webhookPipeline struct {
	queue, dlq *localsqs.Queue
	stream     localstream.Handler
	clicks     *webhook.ClickPublisher
	wg         sync.WaitGroup
}

// startWebhooks creates the webhooks table and starts the delivery queue's
// event source mapping until ctx ends.
func startWebhooks(ctx context.Context, wc webhook.Config, cfg config.Config, db *dynamodb.Client, log *slog.Logger,
	metricsOut io.Writer) (*webhookPipeline, error) {
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	if err := dynamowebhook.CreateTable(tctx, db, wc.Table); err != nil {
		return nil, err
	}
	store := dynamowebhook.New(db, dynamowebhook.Config{Table: wc.Table, Timeout: cfg.DBTimeout})
	p := &webhookPipeline{dlq: localsqs.New(localsqs.Options{Name: "shortener-webhooks-dlq", Log: log.With("component", "sqs")})}
	p.queue = localsqs.New(localsqs.Options{Name: "shortener-webhooks", VisibilityTimeout: webhookVisibility,
		MaxReceiveCount: webhookMaxReceives, DeadLetters: p.dlq, Log: log.With("component", "sqs")})
	// Built as functions/webhookdelivery/main.go builds it.
	guard := webhook.Guard{AllowLoopback: wc.AllowLoopback}
	delivery := &webhookdeliveryfn.Handler{
		Store: store, Queue: sqsqueue.New(p.queue, "shortener-webhooks"), DeadLetters: sqsqueue.New(p.dlq, "shortener-webhooks-dlq"),
		Client: guard.Client(wc.Timeout), Guard: guard, Schedule: wc.Schedule,
		Log: log.With("function", "webhookdelivery"), Metrics: metrics.New(metricsOut, "Shortener", "webhookdelivery"),
	}
	// Built as functions/webhookstream/main.go builds it.
	publisher := &webhook.Publisher{Subscriptions: store, Queue: sqsqueue.New(p.queue, "shortener-webhooks")}
	stream := &webhookstreamfn.Handler{Events: publisher, Log: log.With("function", "webhookstream"),
		Metrics: metrics.New(metricsOut, "Shortener", "webhookstream")}
	p.stream = stream.Handle
	// As functions/clicks/main.go gives the clicks function its events.
	p.clicks = &webhook.ClickPublisher{
		Links:     dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Publisher: publisher,
	}
	p.wg.Go(func() { p.queue.Run(ctx, delivery.Handle) })
	return p, nil
}

func (p *webhookPipeline) wait() { p.wg.Wait() }

// bothStreamHandlers plays two event source mappings on the links table's
// stream (ttlstream and webhookstream) with one poller, so both see the
// TTL deletions the local sweeper marks as AWS does. A record either
// fails is reported failed, so both get it again: the handlers are
// idempotent (a tombstone is conditional; an event keeps its webhook-id).
func bothStreamHandlers(a, b localstream.Handler) localstream.Handler {
	if b == nil {
		return a
	}
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		ra, err := a(ctx, ev)
		if err != nil {
			return ra, err
		}
		rb, err := b(ctx, ev)
		if err != nil {
			return rb, err
		}
		ra.BatchItemFailures = append(ra.BatchItemFailures, rb.BatchItemFailures...)
		return ra, nil
	}
}
