// Package hooksapi builds the webhook subscriptions API's function
// (DynamoDB only, but apart from dbfns so that the redirect path does not
// link the webhook packages). See wirecore for why the constructors are
// grouped.
package hooksapi

import (
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// NewWebhooks builds the function behind the webhook subscriptions API:
// POST and GET /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries. The key's owner comes from this Region's
// replica of the keys table; the subscriptions from the webhooks table,
// which is in the primary Region only, next to the queue and the
// functions that deliver (PRIMARY_REGION).
func NewWebhooks(cfg config.Config, c wirecore.Clients) (*webhooksfn.Handler, error) {
	if err := wirecore.Require(cfg, "KEYS_TABLE", "WEBHOOKS_TABLE"); err != nil {
		return nil, err
	}
	db := c.DynamoDBClient()
	return webhooksfn.New(webhooksfn.Options{
		Store:  Subscriptions(cfg, c),
		Owners: wirecore.Owners(cfg, db),
		// A deployed stack never allows loopback receivers.
		Guard:   webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback},
		Log:     c.Logger("webhooks"),
		Metrics: c.MetricsOf("webhooks"),
	}), nil
}

// Subscriptions is the webhooks table, in the primary Region.
func Subscriptions(cfg config.Config, c wirecore.Clients) *dynamo.WebhookStore {
	return dynamo.NewWebhookStore(c.PrimaryDynamoDB(cfg), dynamo.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout})
}
