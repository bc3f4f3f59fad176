// Command reclaim is the Lambda the reclaim state machine invokes: it
// turns expired links into their tombstones and releases tombstones past
// their grace period (see handler and shared/reclaimflow). Its writes go to
// the replica in PRIMARY_REGION (this Region when unset): a release checked
// against another replica could delete a link re-created in the primary
// that has not replicated yet, and win under last-writer-wins
// (docs/lifecycle.md).
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

	"github.com/shortlink-dev/shortener/functions/reclaim/handler"
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
		Metrics: metrics.New(os.Stdout, "Shortener", "reclaim"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
