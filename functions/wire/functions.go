package wire

import (
	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"

	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"

	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/dynamokeys"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/clickstore/dynamoclicks"
	"github.com/shortlink-dev/shortener/shared/clickstore/packedclicks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
)

// Each constructor first checks that cfg carries the settings its function
// cannot run without (config.Require), so a function that lacks one fails
// at its start, and names it.

// NewCreate builds the function behind POST /v1/links and
// POST /v1/links/batch. It invalidates the edge for each new custom alias
// when there is an edge (Clients.Edge or DISTRIBUTION_ID).
func NewCreate(cfg config.Config, c Clients) (*createfn.Handler, error) {
	// Without a distribution to invalidate, a new alias's cached 404
	// would outlive the negative-cache TTL: it refuses to start instead.
	edge, err := invalidatingEdge(cfg, c, "LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL")
	if err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return createfn.New(createfn.Options{
		Edge:   edge,
		Owners: owners(cfg, db),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Config:  cfg,
		Log:     c.log("create"),
		Metrics: c.metrics("create"),
	})
}

// NewRedirect builds the function behind GET and HEAD /{code}: it reads
// this Region's replica, with the redirect path's own timeout.
func NewRedirect(cfg config.Config, c Clients) (*redirectfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return redirectfn.New(redirectfn.Options{
		Store: dynamostore.New(c.dynamoDB(), dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     c.log("redirect"),
		Metrics: c.metrics("redirect"),
	}), nil
}

// NewManage builds the function behind the management API: GET /v1/links,
// GET, PATCH and DELETE /v1/links/{code} and its QR code. It reads
// strongly consistently before its conditional writes.
func NewManage(cfg config.Config, c Clients) (*managefn.Handler, error) {
	// Without a distribution to invalidate, a change would keep being
	// served from the edge for up to a day: it refuses to start instead.
	edge, err := invalidatingEdge(cfg, c, "LINKS_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL")
	if err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return managefn.New(managefn.Options{
		Owners: owners(cfg, db),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		}),
		Edge:    edge,
		Config:  cfg,
		Grace:   cfg.TombstoneGrace,
		Log:     c.log("manage"),
		Metrics: c.metrics("manage"),
	}), nil
}

// ClickStore is the click store the clicks and stats functions share on
// the analytics table, in the layout config.Config.ClickStore names:
// clickstore/packedclicks (config.ClickStorePacked, the default: rollups
// per shard batch, compacted into segments and bucket-day items; compactor
// is then the store, which the clicks function runs after every few
// batches) or clickstore/dynamoclicks (config.ClickStoreItems: one item per
// code and bucket).
// A zero timeout is the store's default. The two layouts do not read each
// other's items.
func ClickStore(db packedclicks.API, layout, table string, timeout time.Duration) (store clickstore.Store, compactor *packedclicks.Store) {
	if layout == config.ClickStorePacked {
		p := packedclicks.New(db, packedclicks.Config{Table: table, Timeout: timeout})
		return p, p
	}
	return dynamoclicks.New(db, dynamoclicks.Config{Table: table, Timeout: timeout}), nil
}

// NewStats builds the function behind GET /v1/links/{code}/stats.
func NewStats(cfg config.Config, c Clients) (*statsfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	clicks, _ := ClickStore(db, cfg.ClickStore, cfg.AnalyticsTable, cfg.DBTimeout)
	return &statsfn.Handler{
		Links:   dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Clicks:  clicks,
		Now:     time.Now,
		Log:     c.log("stats"),
		Metrics: c.metrics("stats"),
		Owners:  owners(cfg, db),
	}, nil
}

// NewClicks builds the consumer of the click stream (CloudFront's
// real-time logs): it counts clicks into the analytics table.
func NewClicks(cfg config.Config, c Clients) (*clicksfn.Handler, error) {
	if err := requireSettings(cfg, "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	store, compactor := ClickStore(c.dynamoDB(), cfg.ClickStore, cfg.AnalyticsTable, 0)
	h := &clicksfn.Handler{
		Store:   store,
		Log:     c.log("clicks"),
		Metrics: c.metrics("clicks"),
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
		if err := requireSettings(cfg, "LINKS_TABLE", "WEBHOOKS_TABLE"); err != nil {
			return nil, err
		}
		db := c.dynamoDB()
		h.Events = &webhook.ClickPublisher{
			Links:     dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
			Publisher: webhookPublisher(cfg, c),
		}
	}
	return h, nil
}

// NewTTLStream builds the consumer of the links table's stream: it turns
// TTL deletions into tombstones, written to the primary Region's replica.
func NewTTLStream(cfg config.Config, c Clients) (*ttlstreamfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return &ttlstreamfn.Handler{
		Store:   lifecycleStore(cfg, c),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.log("ttlstream"),
		Metrics: c.metrics("ttlstream"),
	}, nil
}

// NewReclaim builds the reclaim state machine's task: expired links into
// tombstones, tombstones past their grace released, in the primary
// Region's replica.
func NewReclaim(cfg config.Config, c Clients) (*reclaimfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return &reclaimfn.Handler{
		Store:   lifecycleStore(cfg, c),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.log("reclaim"),
		Metrics: c.metrics("reclaim"),
	}, nil
}

// NewOriginAuth builds the redirect origin's authorizer: only requests
// carrying CloudFront's origin secret reach the redirect function. It reads
// the secret's replica in this Region (ORIGIN_SECRET_ID) unless
// Clients.OriginSecrets gives the values.
func NewOriginAuth(cfg config.Config, c Clients) (*originauthfn.Handler, error) {
	log := c.log("originauth")
	secrets := c.OriginSecrets
	if secrets == nil {
		if err := requireSettings(cfg, "ORIGIN_SECRET_ID"); err != nil {
			return nil, err
		}
		secrets = &originauthfn.SecretsManager{Client: secretsmanager.NewFromConfig(c.AWS), SecretID: cfg.OriginSecretID, Log: log}
	}
	return &originauthfn.Handler{Secrets: secrets, Log: log}, nil
}

// owners resolves API keys to their owners from the keys table, each
// function with its own cache, as each Lambda has.
// Owners is the API-key resolver create, manage and stats are each built
// with, for a function built outside this package (the local run's
// webhooks API).
func Owners(cfg config.Config, c Clients) *apikey.Resolver { return owners(cfg, c.dynamoDB()) }

func owners(cfg config.Config, db *dynamodb.Client) *apikey.Resolver {
	return apikey.NewResolver(dynamokeys.New(db, dynamokeys.Config{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
		apikey.ResolverOptions{TTL: cfg.KeyCacheTTL})
}

// lifecycleStore is the links table as ttlstream and reclaim write it: in
// the primary Region. Neither touches the idempotency table (nor has a
// grant on it).
func lifecycleStore(cfg config.Config, c Clients) *dynamostore.Store {
	return dynamostore.New(c.primaryDynamoDB(cfg), dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout})
}

// invalidatingEdge checks the settings of a function that invalidates the
// edge, DISTRIBUTION_ID among them unless the caller gives an edge of its
// own (the local run's), and returns that edge.
func invalidatingEdge(cfg config.Config, c Clients, names ...string) (edgecache.Invalidator, error) {
	if c.Edge == nil {
		names = append(names, "DISTRIBUTION_ID")
	}
	if err := requireSettings(cfg, names...); err != nil {
		return nil, err
	}
	return c.edge(cfg)
}

// requireSettings is cfg.Require, its error marked as the configuration's.
func requireSettings(cfg config.Config, names ...string) error {
	if err := cfg.Require(names...); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// NewWebhooks builds the function behind the webhook subscriptions API:
// POST and GET /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries.
func NewWebhooks(cfg config.Config, c Clients) (*webhooksfn.Handler, error) {
	if err := requireSettings(cfg, "KEYS_TABLE", "WEBHOOKS_TABLE"); err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return webhooksfn.New(webhooksfn.Options{
		Store:  dynamowebhook.New(db, dynamowebhook.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout}),
		Owners: owners(cfg, db),
		// A deployed stack never allows loopback receivers.
		Guard:   webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback},
		Log:     c.log("webhooks"),
		Metrics: c.metrics("webhooks"),
	}), nil
}

// NewWebhookStream builds the consumer of the links table's stream that
// turns link changes into webhook events on the delivery queue.
func NewWebhookStream(cfg config.Config, c Clients) (*webhookstreamfn.Handler, error) {
	if err := requireSettings(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"); err != nil {
		return nil, err
	}
	return &webhookstreamfn.Handler{
		Events:  webhookPublisher(cfg, c),
		Log:     c.log("webhookstream"),
		Metrics: c.metrics("webhookstream"),
	}, nil
}

// NewWebhookDelivery builds the function on the delivery queue: it sends
// each event, signed, and requeues it on the retry schedule.
func NewWebhookDelivery(cfg config.Config, c Clients) (*webhookdeliveryfn.Handler, error) {
	if err := requireSettings(cfg, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL", "WEBHOOK_DLQ_URL"); err != nil {
		return nil, err
	}
	guard := webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback}
	return &webhookdeliveryfn.Handler{
		Store:       dynamowebhook.New(c.dynamoDB(), dynamowebhook.Config{Table: cfg.Webhook.Table}),
		Queue:       sqsqueue.New(c.sqs(), cfg.Webhook.QueueURL),
		DeadLetters: sqsqueue.New(c.sqs(), cfg.Webhook.DLQURL),
		Client:      guard.Client(cfg.Webhook.Timeout),
		Guard:       guard,
		Schedule:    cfg.Webhook.Schedule,
		Log:         c.log("webhookdelivery"),
		Metrics:     c.metrics("webhookdelivery"),
	}, nil
}

// webhookPublisher puts events on the delivery queue, one message per
// subscription of the event's owner.
func webhookPublisher(cfg config.Config, c Clients) *webhook.Publisher {
	return &webhook.Publisher{
		Subscriptions: dynamowebhook.New(c.dynamoDB(), dynamowebhook.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout}),
		Queue:         sqsqueue.New(c.sqs(), cfg.Webhook.QueueURL),
	}
}
