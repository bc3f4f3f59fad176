// Package clickfns builds the click stream's consumer: DynamoDB, and the
// webhook queue (SQS) through hookfns. Apart from hookfns so that the
// webhook functions do not link the click log's parser. See wirecore for
// why the constructors are grouped.
package clickfns

import (
	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/wire/clicklayout"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamooutbox"
)

// NewClicks builds the consumer of the click stream (CloudFront's
// real-time logs): it counts clicks into the analytics table.
func NewClicks(cfg config.Config, c hookfns.Clients) (*clicksfn.Handler, error) {
	if err := wirecore.Require(cfg, "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	store, compactor := clicklayout.ClickStore(c.DynamoDBClient(), cfg.ClickStore, cfg.AnalyticsTable, 0)
	o := clicksfn.Options{
		Store:   store,
		Log:     c.Logger("clicks"),
		Metrics: c.MetricsOf("clicks"),
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
		if err := wirecore.Require(cfg, "LINKS_TABLE", "WEBHOOKS_TABLE"); err != nil {
			return nil, err
		}
		// A warm function keeps codes' owners (for less than the
		// tombstone grace, so never past a code's reissue) and owners'
		// subscriptions (until any subscription changes): a batch of
		// known codes reads one item, the subscriptions' version.
		db := c.DynamoDBClient()
		pub := hookfns.Publisher(cfg, c)
		pub.Cache = &webhook.SubscriptionCache{Store: hookfns.Subscriptions(cfg, c)}
		o.Events = &webhook.ClickPublisher{
			Links:     dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
			Publisher: pub,
			OwnerTTL:  webhook.OwnerTTLFor(cfg.TombstoneGrace),
		}
		// Events that cannot be queued wait in the analytics table, which
		// the function writes anyway, and are queued by a later
		// invocation: counting never waits on the webhook path.
		o.Outbox = dynamooutbox.New(db, dynamooutbox.Config{Table: cfg.AnalyticsTable, Timeout: cfg.DBTimeout})
	}
	return clicksfn.New(o), nil
}
