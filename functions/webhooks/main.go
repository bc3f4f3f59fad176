// Command webhooks is the Lambda behind the webhook subscriptions API:
// POST and GET /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/dynamokeys"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		err = cfg.Require("KEYS_TABLE")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	wcfg, err := webhook.LoadConfig(os.Getenv)
	if err == nil {
		err = wcfg.Require("WEBHOOKS_TABLE")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	db := dynamodb.NewFromConfig(awsCfg)
	h := webhooksfn.New(webhooksfn.Options{
		Store: dynamowebhook.New(db, dynamowebhook.Config{Table: wcfg.Table, Timeout: cfg.DBTimeout}),
		Owners: apikey.NewResolver(dynamokeys.New(db, dynamokeys.Config{Table: cfg.KeysTable, Timeout: cfg.DBTimeout}),
			apikey.ResolverOptions{TTL: cfg.KeyCacheTTL}),
		// A deployed stack never allows loopback receivers.
		Guard:   webhook.Guard{AllowLoopback: wcfg.AllowLoopback},
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "webhooks"),
	})
	lambda.StartHandlerFunc(h.Handle)
}
