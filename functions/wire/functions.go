package wire

import (
	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"

	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"

	"context"
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
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkcounter/dynamocounter"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/missbudget/dynamomisses"
	"github.com/shortlink-dev/shortener/shared/password"
)

// Each constructor first checks that cfg carries the settings its function
// cannot run without (config.Require), so a function that lacks one fails
// at its start, and names it.

// NewCreate builds the function behind POST /v1/links and
// POST /v1/links/batch. It invalidates the edge for each new custom alias
// (Clients.Edge, or the distribution EDGE_PARAMETER names).
func NewCreate(cfg config.Config, c Clients) (*createfn.Handler, error) {
	// Without a distribution to invalidate, a new alias's cached 404
	// would outlive the negative-cache TTL: it refuses to start instead.
	// With the reservation table, Idempotency-Key claims live there (a
	// retry in another Region meets them) and the idempotency table is
	// never used, so the stack gives neither its name nor a grant on it.
	names := []string{"LINKS_TABLE", "KEYS_TABLE"}
	if cfg.ReservationTable == "" {
		names = append(names, "IDEMPOTENCY_TABLE")
	}
	edge, baseURL, err := edgeSite(cfg, c, names...)
	if err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return createfn.New(createfn.Options{
		Edge:   edge,
		Owners: owners(cfg, db),
		Store: reserved(cfg, db, dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		})),
		Config:  cfg,
		BaseURL: baseURL,
		Log:     c.log("create"),
		Metrics: c.metrics("create"),
	})
}

// NewRedirect builds the function behind GET and HEAD /{code}: it reads
// this Region's replica, with the redirect path's own timeout, and counts
// unknown codes per client in the Region's misses table (MISSES_TABLE).
func NewRedirect(cfg config.Config, c Clients) (*redirectfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	o := redirectfn.Options{
		Store: dynamostore.New(c.dynamoDB(), dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     c.log("redirect"),
		Metrics: c.metrics("redirect"),
		Verify:  password.Verify,
	}
	if cfg.MissesTable != "" {
		o.Misses = dynamomisses.New(c.dynamoDB(), dynamomisses.Config{Table: cfg.MissesTable, Timeout: cfg.RedirectTimeout})
	}
	if cfg.CountersTable != "" {
		// Only the primary Region has the table: elsewhere (a failover)
		// links with a click limit or a password answer 503 rather than
		// count apart and overshoot.
		o.Counters = dynamocounter.New(c.dynamoDB(), cfg.CountersTable)
	}
	return redirectfn.New(o), nil
}

// NewManage builds the function behind the management API: GET /v1/links,
// GET, PATCH and DELETE /v1/links/{code} and its QR code. It reads
// strongly consistently before its conditional writes.
func NewManage(cfg config.Config, c Clients) (*managefn.Handler, error) {
	// Without a distribution to invalidate, a change would keep being
	// served from the edge for up to a day: it refuses to start instead.
	edge, baseURL, err := edgeSite(cfg, c, "LINKS_TABLE", "KEYS_TABLE")
	if err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return managefn.New(managefn.Options{
		Owners: owners(cfg, db),
		Store: reserved(cfg, db, dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		})),
		Edge:    edge,
		BaseURL: baseURL,
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

// NewStats builds the function behind GET /v1/links/{code}/stats. The
// link and the key's owner come from this Region's replicas; the click
// counts from the analytics table, which is in the primary Region only
// (PRIMARY_REGION; one cross-Region round trip from any other Region).
func NewStats(cfg config.Config, c Clients) (*statsfn.Handler, error) {
	if err := requireSettings(cfg, "LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	clicks, _ := ClickStore(c.primaryDynamoDB(cfg), cfg.ClickStore, cfg.AnalyticsTable, cfg.DBTimeout)
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
		// Releases give the code back in the reservation table first.
		Store:   reserved(cfg, c.primaryDynamoDB(cfg), lifecycleStore(cfg, c)),
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

// reserved puts the reservation table (RESERVATION_TABLE) in front of a
// links store, on db's Region's replica of it; without the setting the
// links store alone answers, as in a deployment with one write Region.
func reserved(cfg config.Config, db *dynamodb.Client, links *dynamostore.Store) linkstore.Store {
	if cfg.ReservationTable == "" {
		return links
	}
	ledger := dynamostore.NewLedger(db, dynamostore.LedgerConfig{Table: cfg.ReservationTable, Timeout: cfg.DBTimeout})
	return linkstore.NewReserved(links, ledger, nil)
}

// lifecycleStore is the links table as ttlstream and reclaim write it: in
// the primary Region. Neither touches the idempotency table (nor has a
// grant on it).
func lifecycleStore(cfg config.Config, c Clients) *dynamostore.Store {
	return dynamostore.New(c.primaryDynamoDB(cfg), dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout})
}

// edgeSite checks the settings of a function that invalidates the edge
// and shows short URLs, and returns the edge and, when the short links'
// host is learnt at run time, where to learn it. Given an edge of its own
// (the local run's), the caller gives SHORTENER_BASE_URL too. Otherwise
// EDGE_PARAMETER names the SSM parameter the edge stack publishes the
// distribution in; it is read when first needed, never at start-up
// (docs/deploy.md, "How the functions learn about the distribution").
func edgeSite(cfg config.Config, c Clients, names ...string) (edgecache.Invalidator, linkapi.BaseURLFunc, error) {
	if c.Edge != nil {
		names = append(names, "SHORTENER_BASE_URL")
	} else if c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := requireSettings(cfg, names...); err != nil {
		return nil, nil, err
	}
	if c.Edge != nil {
		return c.Edge, nil, nil
	}
	info := c.edgeInfo(cfg)
	edge := &edgecache.Deferred{API: c.cloudFront(), ID: func(ctx context.Context) (string, error) {
		in, err := info.Info(ctx)
		return in.DistributionID, err
	}}
	if cfg.BaseURL != "" {
		return edge, nil, nil
	}
	return edge, func(ctx context.Context) (string, error) {
		in, err := info.Info(ctx)
		return in.BaseURL(), err
	}, nil
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
// /v1/webhooks/{id}/deliveries. The key's owner comes from this Region's
// replica of the keys table; the subscriptions from the webhooks table,
// which is in the primary Region only, next to the queue and the
// functions that deliver (PRIMARY_REGION).
func NewWebhooks(cfg config.Config, c Clients) (*webhooksfn.Handler, error) {
	if err := requireSettings(cfg, "KEYS_TABLE", "WEBHOOKS_TABLE"); err != nil {
		return nil, err
	}
	db := c.dynamoDB()
	return webhooksfn.New(webhooksfn.Options{
		Store:  subscriptions(cfg, c),
		Owners: owners(cfg, db),
		// A deployed stack never allows loopback receivers.
		Guard:   webhook.Guard{AllowLoopback: cfg.Webhook.AllowLoopback},
		Log:     c.log("webhooks"),
		Metrics: c.metrics("webhooks"),
	}), nil
}

// subscriptions is the webhooks table as the subscriptions API uses it:
// in the primary Region, from whichever Region the API runs in.
func subscriptions(cfg config.Config, c Clients) *dynamowebhook.Store {
	return dynamowebhook.New(c.primaryDynamoDB(cfg), dynamowebhook.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout})
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
