package main

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/internal/localsqs"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// The local run's webhook settings (functionEnv gives them to config.Load):
// the table, and the in-process queues' URLs. Unlike a deployed stack,
// which never sets it, the local run lets receivers on loopback addresses
// be called (WEBHOOK_ALLOW_LOOPBACK=true), so a receiver on 127.0.0.1 can
// be tried and tested; WEBHOOK_ALLOW_LOOPBACK=false makes it refuse them
// as AWS does.
const (
	defaultWebhooksTable = "shortener-webhooks"
	webhookQueueURL      = "shortener-webhooks"
	webhookDLQURL        = "shortener-webhooks-dlq"
)

// The delivery queue's settings, as infra/webhooks deploys it: a message
// received maxReceives times without being handled goes to the
// dead-letter queue, and the visibility timeout outlasts the function's.
const (
	webhookVisibility  = 2 * time.Minute
	webhookMaxReceives = 5
)

// webhookPipeline is what AWS runs for webhooks besides the API: the
// delivery queue with its dead-letter queue (the SQS twin, internal/localsqs)
// and the delivery function it triggers, and the links stream's second
// consumer.
type webhookPipeline struct {
	queue, dlq *localsqs.Queue
	stream     localstream.Handler
	wg         sync.WaitGroup
}

// startWebhooks creates the webhooks table and the queues, gives c the
// queues as its SQS client, and starts the delivery queue's event source
// mapping until ctx ends. The functions are built by their Build, as
// their Lambdas are.
func startWebhooks(ctx context.Context, cfg config.Config, c *fnclients.Clients, db *dynamodb.Client, log *slog.Logger) (*webhookPipeline, error) {
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	if err := localtable.Create(tctx, db, cfg.Webhook.Table, tableschema.Webhooks()); err != nil {
		return nil, err
	}
	p := &webhookPipeline{dlq: localsqs.New(localsqs.Options{Name: webhookDLQURL, Log: log.With("component", "sqs")})}
	p.queue = localsqs.New(localsqs.Options{Name: webhookQueueURL, VisibilityTimeout: webhookVisibility,
		MaxReceiveCount: webhookMaxReceives, DeadLetters: p.dlq, Log: log.With("component", "sqs")})
	// The functions get the queues, routed by URL as SQS routes
	// SendMessage, as their SQS client (fnclients.Clients.SQS).
	c.SQS = localsqs.Queues{cfg.Webhook.QueueURL: p.queue, cfg.Webhook.DLQURL: p.dlq}
	delivery, err := webhookdeliveryfn.Build(cfg, *c)
	if err != nil {
		return nil, err
	}
	stream, err := webhookstreamfn.Build(cfg, *c)
	if err != nil {
		return nil, err
	}
	p.stream = stream.Handle
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

// sqsOutagePath switches an outage of the delivery queue on (POST) and off
// (DELETE): while it lasts, every SendMessage to it fails as SQS's 503
// does (localsqs.Queue.Fail), so the producers' handling of it can be
// tried and tested end to end. Messages already queued are still delivered.
const sqsOutagePath = "/_local/sqs/outage"

// lateOutage serves sqsOutagePath once the webhook pipeline runs.
type lateOutage struct {
	q atomic.Pointer[localsqs.Queue]
}

func (o *lateOutage) set(p *webhookPipeline) { o.q.Store(p.queue) }

func (o *lateOutage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := o.q.Load()
	if q == nil {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	switch r.Method {
	case http.MethodPost:
		q.Fail(true)
	case http.MethodDelete:
		q.Fail(false)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "POST starts the outage, DELETE ends it", http.StatusMethodNotAllowed)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
