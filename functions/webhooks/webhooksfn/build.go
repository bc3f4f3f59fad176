package webhooksfn

import (
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// Build builds the function behind the webhook subscriptions API, as its
// Lambda (functions/webhooks) and the local run do: POST and GET
// /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries. The key's owner comes from this Region's
// replica of the keys table; the subscriptions from the webhooks table,
// which is in the primary Region only, next to the queue and the
// functions that deliver (PRIMARY_REGION). DynamoDB only.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "KEYS_TABLE", "WEBHOOKS_TABLE", "AUDIT_TABLE"); err != nil {
		return nil, err
	}
	// The audit entry goes in the change's transaction, so on the
	// primary Region's replica of the audit table, beside the webhooks table.
	primary := fnstores.PrimaryDynamoDB(cfg, c)
	auditLog := fnstores.Audit(cfg, primary)
	return New(Options{
		Store:  fnstores.Subscriptions(cfg, primary).Audited(auditLog),
		Audit:  auditLog,
		Owners: fnstores.Owners(cfg, fnstores.DynamoDB(c)),
		// A deployed stack never allows loopback receivers.
		Guard:   webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback},
		Log:     c.Logger("webhooks"),
		Metrics: c.MetricsOf("webhooks"),
	}), nil
}
