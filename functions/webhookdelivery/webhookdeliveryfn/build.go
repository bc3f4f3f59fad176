package webhookdeliveryfn

import (
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Build builds the function on the delivery queue, as its Lambda
// (functions/webhookdelivery) and the local run do: it sends each event,
// signed, and requeues it on the retry schedule. DynamoDB, and SQS
// through fnstores.Queue.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL", "WEBHOOK_DLQ_URL"); err != nil {
		return nil, err
	}
	guard := webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback}
	return New(Options{
		Store:       dynamo.NewWebhookStore(fnstores.DynamoDB(c), dynamo.Config{Table: cfg.Webhook.Table}),
		Queue:       fnstores.Queue(c, cfg.Webhook.QueueURL),
		DeadLetters: fnstores.Queue(c, cfg.Webhook.DLQURL),
		Client:      guard.Client(cfg.Webhook.Timeout),
		Guard:       guard,
		Schedule:    cfg.Webhook.Schedule,
		Log:         c.Logger("webhookdelivery"),
		Metrics:     c.MetricsOf("webhookdelivery"),
	}), nil
}
