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
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// NewClicks builds the consumer of the click stream (CloudFront's
// real-time logs): it counts clicks into the analytics table.
func NewClicks(cfg config.Config, c hookfns.Clients) (*clicksfn.Handler, error) {
	if err := wirecore.Require(cfg, "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	store, compactor := clicklayout.ClickStore(c.DynamoDBClient(), cfg.ClickStore, cfg.AnalyticsTable, 0)
	h := &clicksfn.Handler{
		Store:   store,
		Log:     c.Logger("clicks"),
		Metrics: c.MetricsOf("clicks"),
	}
	if compactor != nil {
		// The compaction runs here, after every few applied batches: no
		// schedule or stream consumer to deploy, and none needed when no
		// clicks come (reads count uncompacted rollups).
		h.Compactor = compactor
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
		h.Events = &webhook.ClickPublisher{
			Links:     dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
			Publisher: pub,
			OwnerTTL:  webhook.OwnerTTLFor(cfg.TombstoneGrace),
		}
		// Events that cannot be queued wait in the analytics table, which
		// the function writes anyway, and are queued by a later
		// invocation: counting never waits on the webhook path.
		h.Outbox = dynamo.NewOutbox(db, dynamo.Config{Table: cfg.AnalyticsTable, Timeout: cfg.DBTimeout})
	}
	return h, nil
}
