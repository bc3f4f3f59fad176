// Command clicks is the Lambda behind the Kinesis stream of CloudFront
// real-time logs: it counts clicks into the analytics table.
package main

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/shortlink-dev/shortener/functions/clicks/handler"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

func main() {
	// The function counts under keys spelt in the path alone, so it needs
	// no setting of the shared configuration, but refuses a broken one as
	// every function does.
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	wcfg, err := webhook.LoadConfig(os.Getenv)
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	table := os.Getenv("ANALYTICS_TABLE")
	if table == "" {
		log.Fatal("configuration: ANALYTICS_TABLE is not set")
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	db := dynamodb.NewFromConfig(aws)
	h := &handler.Handler{
		Store:   clickstore.New(db, clickstore.Config{Table: table}),
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "clicks"),
	}
	// With webhooks deployed, each batch's clicks per code become
	// link.clicked events for their owners' subscriptions.
	if wcfg.QueueURL != "" {
		if err := errors.Join(cfg.Require("LINKS_TABLE"), wcfg.Require("WEBHOOKS_TABLE")); err != nil {
			log.Fatalf("configuration: %v", err)
		}
		h.Events = &webhook.ClickPublisher{
			Links: dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
			Publisher: &webhook.Publisher{
				Subscriptions: dynamowebhook.New(db, dynamowebhook.Config{Table: wcfg.Table, Timeout: cfg.DBTimeout}),
				Queue:         sqsqueue.New(sqs.NewFromConfig(aws), wcfg.QueueURL),
			},
		}
	}
	lambda.StartHandlerFunc(h.Handle)
}
