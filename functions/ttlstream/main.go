// Command ttlstream is the Lambda behind the links table's DynamoDB stream:
// it turns TTL deletions into tombstones. It runs in every Region of the
// global table and writes tombstones to the replica in PRIMARY_REGION
// (this Region when unset); see handler's package documentation.
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

	"github.com/shortlink-dev/shortener/functions/ttlstream/handler"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		err = cfg.Require("LINKS_TABLE")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	var opts []func(*awsconfig.LoadOptions) error
	if region := os.Getenv("PRIMARY_REGION"); region != "" {
		// The one write Region: tombstone conditions are checked against
		// the replica every create is checked against.
		opts = append(opts, awsconfig.WithRegion(region))
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background(), opts...)
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	h := &handler.Handler{
		Store: dynamostore.New(dynamodb.NewFromConfig(aws), dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "ttlstream"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
