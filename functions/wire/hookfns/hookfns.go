// Package hookfns builds the functions that send to the webhook delivery
// queue (SQS): webhookstream and webhookdelivery, and holds what clickfns
// shares with them (Clients, Publisher). See wirecore for why the
// constructors are grouped.
package hookfns

import (
	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/sqssend"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

// Clients are wirecore's and the SQS client the webhook queues are sent
// to: nil is sqssend's signed SendMessage on AWS (not the SDK's SQS
// client, whose package initialisation was part of these functions' cold
// start); the local run passes its in-process queues (internal/localsqs).
type Clients struct {
	wirecore.Clients
	SQS sqsqueue.API
}

// Lambda is c as a Lambda entry point has it: SQS from the SDK
// configuration (its Region, credentials and AWS_ENDPOINT_URL_SQS).
func Lambda(c wirecore.Clients) Clients { return Clients{Clients: c} }

func (c Clients) sqs() sqsqueue.API {
	if c.SQS != nil {
		return c.SQS
	}
	return sqssend.New(c.AWS)
}

// NewWebhookStream builds the consumer of the links table's stream that
// turns link changes into webhook events on the delivery queue.
func NewWebhookStream(cfg config.Config, c Clients) (*webhookstreamfn.Handler, error) {
	if err := wirecore.Require(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"); err != nil {
		return nil, err
	}
	// Owners' subscriptions kept while none changes: a batch of link
	// changes reads the subscriptions' version once, and only the owners
	// not seen since the last change.
	pub := Publisher(cfg, c)
	pub.Cache = &webhook.SubscriptionCache{Store: Subscriptions(cfg, c)}
	return webhookstreamfn.New(webhookstreamfn.Options{
		Events:  pub,
		Log:     c.Logger("webhookstream"),
		Metrics: c.MetricsOf("webhookstream"),
	}), nil
}

// NewWebhookDelivery builds the function on the delivery queue: it sends
// each event, signed, and requeues it on the retry schedule.
func NewWebhookDelivery(cfg config.Config, c Clients) (*webhookdeliveryfn.Handler, error) {
	if err := wirecore.Require(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL", "WEBHOOK_DLQ_URL"); err != nil {
		return nil, err
	}
	guard := webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback}
	return webhookdeliveryfn.New(webhookdeliveryfn.Options{
		Store:       dynamowebhook.New(c.DynamoDBClient(), dynamowebhook.Config{Table: cfg.Webhook.Table}),
		Queue:       sqsqueue.New(c.sqs(), cfg.Webhook.QueueURL),
		DeadLetters: sqsqueue.New(c.sqs(), cfg.Webhook.DLQURL),
		Client:      guard.Client(cfg.Webhook.Timeout),
		Guard:       guard,
		Schedule:    cfg.Webhook.Schedule,
		Log:         c.Logger("webhookdelivery"),
		Metrics:     c.MetricsOf("webhookdelivery"),
	}), nil
}

// Publisher puts events on the delivery queue, one message per
// subscription of the event's owner.
func Publisher(cfg config.Config, c Clients) *webhook.Publisher {
	return &webhook.Publisher{
		Subscriptions: Subscriptions(cfg, c),
		Queue:         sqsqueue.New(c.sqs(), cfg.Webhook.QueueURL),
	}
}

// Subscriptions is the webhooks table as the producers read it.
func Subscriptions(cfg config.Config, c Clients) *dynamowebhook.Store {
	return dynamowebhook.New(c.DynamoDBClient(), dynamowebhook.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout})
}
