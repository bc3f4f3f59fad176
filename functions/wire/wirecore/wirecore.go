// Package wirecore is what every function's construction shares: the
// clients a function talks to, the Lambda entry point, and the helpers the
// constructors use. Of the SDK's service clients it links DynamoDB's
// only. The constructors live in packages grouped by the services they
// add (authfns: Secrets Manager, over lambdaenv alone; dbfns: redirect,
// statsfns: stats, lifecyclefns: ttlstream and reclaim, on DynamoDB
// only; hooksapi: the webhook subscriptions API; sitefns: the edge
// parameter (edgesite), read without SSM's client; edgefns: CloudFront;
// hookfns: SQS, sent without SQS's client; clickfns: the click consumer),
// so that each bootstrap links and initialises only what its function
// calls (docs/benchmarks.md, "Cold start"). Package wire gathers them all
// for the local run.
package wirecore

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/wire/lambdaenv"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// metricsNamespace is the CloudWatch namespace of every function's metrics.
const metricsNamespace = "Shortener"

// Invalidator is an edge cache: edgecache.Invalidator's method, declared
// here so that this package links no CloudFront client.
type Invalidator interface {
	Invalidate(ctx context.Context, paths ...string) error
}

// Clients are what a function talks to outside itself, but for SQS (which
// only hookfns' functions use) and the origin secret (authfns'); see
// wire.Clients. In Lambda only AWS, Log
// and Metrics are set (see Lambda) and each constructor makes the service
// clients its function calls from AWS. The local run sets the others to
// its emulators instead.
type Clients struct {
	// AWS is the SDK configuration the service clients are made from.
	AWS aws.Config
	// DynamoDB, when set, serves every table instead of a client made
	// from AWS, the primary Region's writes included: DynamoDB Local.
	DynamoDB *dynamodb.Client
	// Edge, when set, is invalidated instead of the CloudFront
	// distribution EDGE_PARAMETER names: the local edge.
	Edge Invalidator
	// Log is the log every function writes to; each function's lines
	// carry its name (attribute "function").
	Log *slog.Logger
	// Metrics receives the functions' EMF metrics: stdout in Lambda, where
	// CloudWatch reads them from the function's log.
	Metrics io.Writer
}

// Lambda builds a function the way every Lambda entry point does
// (lambdaenv.Load: the configuration, the SDK configuration, JSON logs on
// stderr and EMF metrics on stdout), handed to build (one of the
// constructors). A function that cannot be configured must not take
// requests: the entry point exits on the error.
func Lambda[H any](ctx context.Context, build func(config.Config, Clients) (H, error)) (H, error) {
	return lambdaenv.Lambda(ctx, func(cfg config.Config, b lambdaenv.Base) (H, error) {
		return build(cfg, FromBase(b))
	})
}

// FromBase is the Clients of a function in Lambda.
func FromBase(b lambdaenv.Base) Clients {
	return Clients{AWS: b.AWS, Log: b.Log, Metrics: b.Metrics}
}

// DynamoDBClient is the client of this Region's replica.
func (c Clients) DynamoDBClient() *dynamodb.Client {
	if c.DynamoDB != nil {
		return c.DynamoDB
	}
	return dynamodb.NewFromConfig(c.AWS)
}

// PrimaryDynamoDB is the client of the primary Region's replica
// (PRIMARY_REGION; this Region's when unset): ttlstream's and reclaim's
// writes are checked against the replica every create is checked against.
func (c Clients) PrimaryDynamoDB(cfg config.Config) *dynamodb.Client {
	if c.DynamoDB != nil {
		return c.DynamoDB
	}
	return dynamodb.NewFromConfig(c.AWS, func(o *dynamodb.Options) {
		if cfg.PrimaryRegion != "" {
			o.Region = cfg.PrimaryRegion
		}
	})
}

// Logger is function's logger.
func (c Clients) Logger(function string) *slog.Logger {
	return c.Log.With("function", function)
}

// MetricsOf is function's metrics emitter.
func (c Clients) MetricsOf(function string) *metrics.Emitter {
	return metrics.New(c.Metrics, metricsNamespace, function)
}

// Owners resolves API keys to their owners from the keys table, each
// function with its own cache, as each Lambda has.
func Owners(cfg config.Config, db *dynamodb.Client) *apikey.Resolver {
	return apikey.NewResolver(dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
		apikey.ResolverOptions{TTL: cfg.KeyCacheTTL})
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

// LifecycleStore is the links table as ttlstream and reclaim write it: in
// the primary Region. Neither touches the idempotency table (nor has a
// grant on it).
func LifecycleStore(cfg config.Config, c Clients) *dynamo.LinkStore {
	return dynamo.NewLinkStore(c.PrimaryDynamoDB(cfg), dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout})
}

// Require is cfg.Require, its error marked as the configuration's. Each
// constructor first checks that cfg carries the settings its function
// cannot run without, so a function that lacks one fails at its start,
// and names it.
func Require(cfg config.Config, names ...string) error {
	if err := cfg.Require(names...); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}
