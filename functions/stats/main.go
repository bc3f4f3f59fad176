// Command stats is the Lambda behind GET /v1/links/{code}/stats.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/stats/handler"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/dynamokeys"
	"github.com/shortlink-dev/shortener/shared/clickstore/dynamoclicks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		err = cfg.Require("LINKS_TABLE", "KEYS_TABLE")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	analytics := os.Getenv("ANALYTICS_TABLE")
	if analytics == "" {
		log.Fatal("configuration: ANALYTICS_TABLE is not set")
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	db := dynamodb.NewFromConfig(aws)
	h := &handler.Handler{
		Links:   dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Clicks:  dynamoclicks.New(db, dynamoclicks.Config{Table: analytics, Timeout: cfg.DBTimeout}),
		Now:     time.Now,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "stats"),
		Owners: apikey.NewResolver(dynamokeys.New(db, dynamokeys.Config{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
			apikey.ResolverOptions{TTL: cfg.KeyCacheTTL}),
	}
	lambda.StartHandlerFunc(h.Handle)
}
