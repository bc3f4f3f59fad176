package clicksfn

import (
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
	"github.com/shortlink-dev/shortener/shared/visitors"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Build builds the consumer of the click stream (CloudFront's real-time
// logs), as its Lambda (functions/clicks) and the local run do: it counts
// clicks into the analytics table, and with webhooks deployed queues
// link.clicked events (DynamoDB, and SQS through fnstores.Queue).
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	db := fnstores.DynamoDB(c)
	store, compactor := fnstores.ClickStore(db, cfg.ClickStore, cfg.AnalyticsTable, 0)
	o := Options{
		Store:   store,
		Log:     c.Logger("clicks"),
		Metrics: c.MetricsOf("clicks"),
		// The day's visitor salt, read once a day by a warm function.
		Salts: &visitors.Cache{Salts: dynamo.NewSalts(db, dynamo.Config{Table: cfg.AnalyticsTable, Timeout: cfg.DBTimeout}, nil)},
	}
	if compactor != nil {
		// The compaction runs here, after every few applied batches: no
		// schedule or stream consumer to deploy, and none needed when no
		// clicks come (reads count uncompacted rollups).
		o.Compactor = compactor
	}
	if cfg.Webhook.QueueURL != "" {
		// With webhooks deployed, each batch's clicks per code become
		// link.clicked events for their owners' subscriptions.
		if err := fnclients.Require(cfg, "LINKS_TABLE", "WEBHOOKS_TABLE"); err != nil {
			return nil, err
		}
		// A warm function keeps codes' owners (for less than the
		// tombstone grace, so never past a code's reissue) and owners'
		// subscriptions (until any subscription changes): a batch of
		// known codes reads one item, the subscriptions' version.
		o.Events = &webhook.ClickPublisher{
			Links:     dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
			Publisher: fnstores.Publisher(cfg, c, db),
			OwnerTTL:  webhook.OwnerTTLFor(cfg.TombstoneGrace),
		}
		// Events that cannot be queued wait in the analytics table, which
		// the function writes anyway, and are queued by a later
		// invocation: counting never waits on the webhook path.
		o.Outbox = dynamo.NewOutbox(db, dynamo.Config{Table: cfg.AnalyticsTable, Timeout: cfg.DBTimeout})
	}
	return New(o), nil
}
