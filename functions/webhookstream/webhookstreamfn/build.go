package webhookstreamfn

import (
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Build builds the consumer of the links table's stream that turns link
// changes into webhook events on the delivery queue, as its Lambda
// (functions/webhookstream) and the local run do: DynamoDB, and SQS
// through fnstores.Queue.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"); err != nil {
		return nil, err
	}
	// Owners' subscriptions kept while none changes: a batch of link
	// changes reads the subscriptions' version once, and only the owners
	// not seen since the last change.
	return New(Options{
		Events:  fnstores.Publisher(cfg, c, fnstores.DynamoDB(c)),
		Log:     c.Logger("webhookstream"),
		Metrics: c.MetricsOf("webhookstream"),
	}), nil
}
