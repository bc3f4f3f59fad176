// Command manage is the Lambda behind the management API: GET /v1/links
// and GET, PATCH and DELETE /v1/links/{code}.
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

	"github.com/shortlink-dev/shortener/functions/manage/handler"
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
		// Without a distribution to invalidate, a change would keep being
		// served from the edge for up to a day: refuse to start instead.
		err = cfg.Require("LINKS_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL", "DISTRIBUTION_ID")
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
	h := handler.New(handler.Options{
		Owners: apikey.NewResolver(dynamokeys.New(db, dynamokeys.Config{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
			apikey.ResolverOptions{TTL: cfg.KeyCacheTTL}),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		}),
		Edge:    edge,
		Config:  cfg,
		Grace:   cfg.TombstoneGrace,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "manage"),
	})
	lambda.StartHandlerFunc(h.Handle)
}
