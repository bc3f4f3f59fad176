package wire

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

// metricsNamespace is the CloudWatch namespace of every function's metrics.
const metricsNamespace = "Shortener"

// Clients are what a function talks to outside itself: the AWS services,
// its log and its metrics. In Lambda only AWS, Log and Metrics are set
// (see Lambda) and each constructor makes the service clients its function
// calls from AWS, so a bootstrap links no SDK client it does not use. The
// local run sets the others to its emulators instead.
type Clients struct {
	// AWS is the SDK configuration the service clients are made from.
	AWS aws.Config
	// DynamoDB, when set, serves every table instead of a client made
	// from AWS, the primary Region's writes included: DynamoDB Local.
	DynamoDB *dynamodb.Client
	// Edge, when set, is invalidated instead of the CloudFront
	// distribution DISTRIBUTION_ID names: the local edge.
	Edge edgecache.Invalidator
	// OriginSecrets, when set, are the values originauth accepts instead of
	// those of the Secrets Manager secret ORIGIN_SECRET_ID names.
	OriginSecrets originauthfn.Secrets
	// SQS sends to the webhook queues (WEBHOOK_QUEUE_URL, WEBHOOK_DLQ_URL);
	// nil: an SQS client from AWS. The local run passes its in-process
	// queues (internal/localsqs).
	SQS sqsqueue.API
	// Log is the log every function writes to; each function's lines
	// carry its name (attribute "function").
	Log *slog.Logger
	// Metrics receives the functions' EMF metrics: stdout in Lambda, where
	// CloudWatch reads them from the function's log.
	Metrics io.Writer
}

// Lambda builds a function the way every Lambda entry point does: the
// configuration from the environment, the SDK configuration from what
// Lambda puts in it (lambdaAWS),
// JSON logs on stderr and EMF metrics on stdout, handed to build (one of
// the constructors in functions.go). A function that cannot be configured
// must not take requests: the entry point exits on the error.
func Lambda[H any](ctx context.Context, build func(config.Config, Clients) (H, error)) (H, error) {
	cfg, c, err := lambdaEnvironment(ctx, os.Getenv)
	if err != nil {
		var none H
		return none, err
	}
	return build(cfg, c)
}

// lambdaEnvironment is the configuration and the Clients of a function in
// Lambda.
func lambdaEnvironment(ctx context.Context, getenv config.Getenv) (config.Config, Clients, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return config.Config{}, Clients{}, fmt.Errorf("configuration: %w", err)
	}
	sdk, err := lambdaAWS(getenv)
	if err != nil {
		return config.Config{}, Clients{}, fmt.Errorf("aws configuration: %w", err)
	}
	return cfg, Clients{AWS: sdk, Log: slog.New(slog.NewJSONHandler(os.Stderr, nil)), Metrics: os.Stdout}, nil
}

// dynamoDB is the client of this Region's replica.
func (c Clients) dynamoDB() *dynamodb.Client {
	if c.DynamoDB != nil {
		return c.DynamoDB
	}
	return dynamodb.NewFromConfig(c.AWS)
}

// primaryDynamoDB is the client of the primary Region's replica
// (PRIMARY_REGION; this Region's when unset): ttlstream's and reclaim's
// writes are checked against the replica every create is checked against.
func (c Clients) sqs() sqsqueue.API {
	if c.SQS != nil {
		return c.SQS
	}
	return sqs.NewFromConfig(c.AWS)
}

func (c Clients) primaryDynamoDB(cfg config.Config) *dynamodb.Client {
	if c.DynamoDB != nil {
		return c.DynamoDB
	}
	return dynamodb.NewFromConfig(c.AWS, func(o *dynamodb.Options) {
		if cfg.PrimaryRegion != "" {
			o.Region = cfg.PrimaryRegion
		}
	})
}

// edge is the edge cache to invalidate: Edge, or the CloudFront
// distribution DISTRIBUTION_ID names; nil when there is neither.
func (c Clients) edge(cfg config.Config) (edgecache.Invalidator, error) {
	if c.Edge != nil {
		return c.Edge, nil
	}
	if cfg.DistributionID == "" {
		return nil, nil
	}
	cf, err := edgecache.NewCloudFront(cloudfront.NewFromConfig(c.AWS), edgecache.CloudFrontConfig{DistributionID: cfg.DistributionID})
	if err != nil {
		return nil, fmt.Errorf("edge cache: %w", err)
	}
	return cf, nil
}

// log is function's logger.
func (c Clients) log(function string) *slog.Logger {
	return c.Log.With("function", function)
}

// metrics is function's metrics emitter.
func (c Clients) metrics(function string) *metrics.Emitter {
	return metrics.New(c.Metrics, metricsNamespace, function)
}
