// Command create is the Lambda behind POST /v1/links.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/create/handler"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/dynamokeys"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		// Without a distribution to invalidate, a new alias's cached 404
		// would outlive the negative-cache TTL: refuse to start instead.
		err = cfg.Require("LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL", "DISTRIBUTION_ID")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	edge, err := edgecache.NewCloudFront(cloudfront.NewFromConfig(aws), edgecache.CloudFrontConfig{DistributionID: cfg.DistributionID})
	if err != nil {
		log.Fatalf("edge cache: %v", err)
	}
	db := dynamodb.NewFromConfig(aws)
	h, err := handler.New(handler.Options{
		Edge: edge,
		Owners: apikey.NewResolver(dynamokeys.New(db, dynamokeys.Config{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
			apikey.ResolverOptions{TTL: cfg.KeyCacheTTL}),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Config:  cfg,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "create"),
	})
	if err != nil {
		log.Fatalf("create handler: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
