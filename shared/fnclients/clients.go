package fnclients

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/ssmparam"
)

// metricsNamespace is the CloudWatch namespace of every function's metrics.
const metricsNamespace = "Shortener"

// Clients are what a function talks to outside itself: the AWS services,
// its log and its metrics. In Lambda only AWS, Log and Metrics are set
// (Load), and each build makes the service clients its function calls
// from AWS. The local run points AWS at DynamoDB Local (whose one shared
// database serves every Region) and sets the others to its emulators.
type Clients struct {
	// AWS is the SDK configuration the service clients are made from.
	AWS aws.Config
	// Edge, when set, is what manage invalidates instead of the
	// CloudFront distribution EDGE_PARAMETER names: the local edge.
	// (create invalidates nothing.)
	Edge Invalidator
	// EdgeInfo, when set, tells the distribution instead of the SSM
	// parameter EDGE_PARAMETER names.
	EdgeInfo edgeinfo.Source
	// VersionStore, when set, is the key value store of link versions
	// whose old versions reclaim sweeps, VersionStoreARN naming it,
	// instead of the store the edge parameter names with
	// EDGE_VERSION_KEYS: the local edge's, which manage writes through
	// Edge.
	VersionStore    edgeversion.SweepAPI
	VersionStoreARN string
	// OriginSecrets, when set, are the values originauth accepts instead of
	// those of the Secrets Manager secret ORIGIN_SECRET_ID names.
	OriginSecrets Secrets
	// SQS sends to the webhook queues (WEBHOOK_QUEUE_URL, WEBHOOK_DLQ_URL);
	// nil: shared/sqssend's signed SendMessage on AWS, not the SDK's SQS
	// client, whose package initialisation was part of these functions'
	// cold start. The local run passes its in-process queues
	// (internal/localsqs).
	SQS SQS
	// S3Endpoint, when set, is where the S3 client sends its requests,
	// path-style (http://host:port/bucket/key): the local run's S3
	// stand-in (internal/locals3). In Lambda, S3's own endpoint.
	S3Endpoint string
	// Log is the log every function writes to; each function's lines
	// carry its name (attribute "function").
	Log *slog.Logger
	// Metrics receives the functions' EMF metrics: stdout in Lambda, where
	// CloudWatch reads them from the function's log.
	Metrics io.Writer
}

// Invalidator is an edge cache: edgecache.Invalidator's method, declared
// here so that a function that invalidates nothing links no edge cache.
type Invalidator interface {
	Invalidate(ctx context.Context, paths ...string) error
}

// Secrets gives the values the redirect origin accepts:
// originauthfn.Secrets's method.
type Secrets interface {
	Values(ctx context.Context) ([]string, error)
}

// SQS sends one message: sqsqueue.API's method.
type SQS interface {
	SendMessage(ctx context.Context, queueURL, body string, delaySeconds int32) (string, error)
}

// In is the SDK configuration of region's endpoints: AWS, in region
// unless region is empty. The primary-only tables are read and written
// in PRIMARY_REGION, the edge marks of every origin Region in that Region.
func (c Clients) In(region string) aws.Config {
	cfg := c.AWS.Copy()
	if region != "" {
		cfg.Region = region
	}
	return cfg
}

// Logger is function's logger.
func (c Clients) Logger(function string) *slog.Logger {
	return c.Log.With("function", function)
}

// MetricsOf is function's metrics emitter.
func (c Clients) MetricsOf(function string) *metrics.Emitter {
	return metrics.New(c.Metrics, metricsNamespace, function)
}

// EdgeSource is where the distribution is learnt: EdgeInfo, or the SSM
// parameter cfg.EdgeParameter names, in this Region (the edge stack writes
// it in every Region), read with ssmparam rather than the SDK's SSM
// client. It is read when first needed, never at start-up (docs/deploy.md,
// "How the functions learn about the distribution").
func (c Clients) EdgeSource(cfg config.Config) edgeinfo.Source {
	if c.EdgeInfo != nil {
		return c.EdgeInfo
	}
	return &edgeinfo.Parameter{API: ssmparam.New(c.AWS), Name: cfg.EdgeParameter}
}

// Require is cfg.Require, its error marked as the configuration's. Each
// build first checks that cfg carries the settings its function cannot
// run without, so a function that lacks one fails at its start, and names
// it.
func Require(cfg config.Config, names ...string) error {
	if err := cfg.Require(names...); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}
