// Package fnstores makes the DynamoDB clients and the stores that more
// than one function is built on, from fnclients.Clients and the
// configuration, so that each function's build (functions/<fn>/<fn>fn,
// build.go) reads them as the others do: the keys table's owners, the
// links table in front of the reservation table and as the lifecycle
// writes it, the analytics table's layout, and the webhooks table and
// queue. The redirect and originauth builds do not use it.
package fnstores

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/sqssend"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

// DynamoDB is the client of this Region's replicas.
func DynamoDB(c fnclients.Clients) *dynamodb.Client { return dynamodb.NewFromConfig(c.AWS) }

// PrimaryDynamoDB is the client of the primary Region's replicas
// (PRIMARY_REGION; this Region's when unset): the primary-only tables,
// and ttlstream's and reclaim's writes, checked against the replica every
// create is checked against.
func PrimaryDynamoDB(cfg config.Config, c fnclients.Clients) *dynamodb.Client {
	return dynamodb.NewFromConfig(c.In(cfg.PrimaryRegion))
}

// Owners resolves API keys to their owners from the keys table, each
// function with its own cache, as each Lambda has.
func Owners(cfg config.Config, db *dynamodb.Client) *apikey.Resolver {
	return apikey.NewResolver(dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
		apikey.ResolverOptions{TTL: cfg.KeyCacheTTL})
}

// Members is the members table (MEMBERS_TABLE) on db, read eventually
// consistently (the authorizer's reads) unless consistent.
func Members(cfg config.Config, db *dynamodb.Client, consistent bool) *dynamo.MemberStore {
	return dynamo.NewMemberStore(db, dynamo.Config{Table: cfg.MembersTable, Timeout: cfg.DBTimeout}, consistent)
}

// Reserved puts the reservation table (RESERVATION_TABLE) in front of a
// links store, on db's Region's replica of it; without the setting the
// links store alone answers, as in a deployment with one write Region.
func Reserved(cfg config.Config, db *dynamodb.Client, links *dynamo.LinkStore) linkstore.Store {
	if cfg.ReservationTable == "" {
		return links
	}
	ledger := dynamo.NewLedger(db, dynamo.LedgerConfig{Table: cfg.ReservationTable, Timeout: cfg.DBTimeout})
	return linkstore.NewReserved(links, ledger, nil)
}

// LifecycleLinks is the links table as ttlstream and reclaim write it: in
// the primary Region. Neither touches the idempotency table (nor has a
// grant on it).
func LifecycleLinks(cfg config.Config, db *dynamodb.Client) *dynamo.LinkStore {
	return dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, TagsTable: cfg.LinkTagsTable})
}

// ClickStore is the click store the clicks and stats functions share on
// the analytics table, in the layout config.Config.ClickStore names:
// dynamo/packedclicks (config.ClickStorePacked, the default: rollups
// per shard batch, compacted into segments and bucket-day items; compactor
// is then the store, which the clicks function runs after every few
// batches) or dynamo.ClickStore (config.ClickStoreItems: one item per
// code and bucket).
// A zero timeout is the store's default. The two layouts do not read each
// other's items.
func ClickStore(db dynamo.API, layout, table string, timeout time.Duration) (store clickstore.Store, compactor *packedclicks.Store) {
	if layout == config.ClickStorePacked {
		p := packedclicks.New(db, packedclicks.Config{Table: table, Timeout: timeout})
		return p, p
	}
	return dynamo.NewClickStore(db, dynamo.ClickConfig{Table: table, Timeout: timeout}), nil
}

// Subscriptions is the webhooks table on db's replica of it.
func Subscriptions(cfg config.Config, db *dynamodb.Client) *dynamo.WebhookStore {
	return dynamo.NewWebhookStore(db, dynamo.Config{Table: cfg.Webhook.Table, Timeout: cfg.DBTimeout})
}

// Queue is the webhook queue url names, sent to with c.SQS or, without
// it, sqssend's signed SendMessage on AWS (its Region, credentials and
// AWS_ENDPOINT_URL_SQS).
func Queue(c fnclients.Clients, url string) *sqsqueue.Queue {
	var api sqsqueue.API = c.SQS
	if c.SQS == nil {
		api = sqssend.New(c.AWS)
	}
	return sqsqueue.New(api, url)
}

// Publisher puts events on the delivery queue, one message per
// subscription of the event's owner, keeping owners' subscriptions while
// none changes: a batch reads the subscriptions' version once, and only
// the owners not seen since the last change.
func Publisher(cfg config.Config, c fnclients.Clients, db *dynamodb.Client) *webhook.Publisher {
	return &webhook.Publisher{
		Subscriptions: Subscriptions(cfg, db),
		Queue:         Queue(c, cfg.Webhook.QueueURL),
		Cache:         &webhook.SubscriptionCache{Store: Subscriptions(cfg, db)},
	}
}

// Audit is the audit log (AUDIT_TABLE) on db's replica of it, keeping
// entries AUDIT_RETENTION_DAYS when set.
func Audit(cfg config.Config, db *dynamodb.Client) *dynamo.AuditStore {
	return dynamo.NewAuditStore(db, dynamo.AuditConfig{Table: cfg.AuditTable, Timeout: cfg.DBTimeout,
		Retention: time.Duration(cfg.AuditRetentionDays) * 24 * time.Hour})
}
