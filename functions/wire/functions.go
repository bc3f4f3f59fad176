package wire

import (
	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/functions/wire/authfns"
	"github.com/shortlink-dev/shortener/functions/wire/clickfns"
	"github.com/shortlink-dev/shortener/functions/wire/dbfns"
	"github.com/shortlink-dev/shortener/functions/wire/edgefns"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/hooksapi"
	"github.com/shortlink-dev/shortener/functions/wire/lifecyclefns"
	"github.com/shortlink-dev/shortener/functions/wire/sitefns"
	"github.com/shortlink-dev/shortener/functions/wire/statsfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
)

// The constructors, each the one its Lambda entry point calls (in dbfns,
// statsfns, lifecyclefns, sitefns, edgefns, authfns or hookfns), taking
// this package's Clients.

// NewCreate: sitefns.NewCreate.
func NewCreate(cfg config.Config, c Clients) (*createfn.Handler, error) {
	return sitefns.NewCreate(cfg, c.edge())
}

// NewRedirect: dbfns.NewRedirect.
func NewRedirect(cfg config.Config, c Clients) (*redirectfn.Handler, error) {
	return dbfns.NewRedirect(cfg, c.core())
}

// NewManage: edgefns.NewManage.
func NewManage(cfg config.Config, c Clients) (*managefn.Handler, error) {
	return edgefns.NewManage(cfg, c.edge())
}

// NewStats: statsfns.NewStats.
func NewStats(cfg config.Config, c Clients) (*statsfn.Handler, error) {
	return statsfns.NewStats(cfg, c.core())
}

// NewClicks: clickfns.NewClicks.
func NewClicks(cfg config.Config, c Clients) (*clicksfn.Handler, error) {
	return clickfns.NewClicks(cfg, c.hooks())
}

// NewTTLStream: lifecyclefns.NewTTLStream.
func NewTTLStream(cfg config.Config, c Clients) (*ttlstreamfn.Handler, error) {
	return lifecyclefns.NewTTLStream(cfg, c.core())
}

// NewReclaim: lifecyclefns.NewReclaim.
func NewReclaim(cfg config.Config, c Clients) (*reclaimfn.Handler, error) {
	return lifecyclefns.NewReclaim(cfg, c.core())
}

// NewOriginAuth: authfns.NewOriginAuth.
func NewOriginAuth(cfg config.Config, c Clients) (*originauthfn.Handler, error) {
	return authfns.NewOriginAuth(cfg, authfns.Clients{AWS: c.AWS, OriginSecrets: c.OriginSecrets, Log: c.Log})
}

// NewWebhooks: hooksapi.NewWebhooks.
func NewWebhooks(cfg config.Config, c Clients) (*webhooksfn.Handler, error) {
	return hooksapi.NewWebhooks(cfg, c.core())
}

// NewWebhookStream: hookfns.NewWebhookStream.
func NewWebhookStream(cfg config.Config, c Clients) (*webhookstreamfn.Handler, error) {
	return hookfns.NewWebhookStream(cfg, c.hooks())
}

// NewWebhookDelivery: hookfns.NewWebhookDelivery.
func NewWebhookDelivery(cfg config.Config, c Clients) (*webhookdeliveryfn.Handler, error) {
	return hookfns.NewWebhookDelivery(cfg, c.hooks())
}

// Owners is the API-key resolver create, manage and stats are each built
// with, for a function built outside this package (the local run's
// webhooks API).
func Owners(cfg config.Config, c Clients) *apikey.Resolver { return wirecore.Owners(cfg, c.dynamoDB()) }

// subscriptions is hooksapi.Subscriptions.
func subscriptions(cfg config.Config, c Clients) *dynamo.WebhookStore {
	return hooksapi.Subscriptions(cfg, c.core())
}
