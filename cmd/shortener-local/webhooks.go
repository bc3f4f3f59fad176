package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	webhookshandler "github.com/shortlink-dev/shortener/functions/webhooks/handler"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
)

// defaultWebhooksTable is the local run's name for the webhooks table.
const defaultWebhooksTable = "shortener-webhooks"

// webhookEnv are the local run's defaults for the webhook settings. Unlike
// a deployed stack, which never sets it, the local run lets receivers on
// loopback addresses be called (WEBHOOK_ALLOW_LOOPBACK=true), so a
// receiver on 127.0.0.1 can be tried and tested; WEBHOOK_ALLOW_LOOPBACK=false
// makes it refuse them as AWS does.
var webhookEnv = map[string]string{
	"WEBHOOKS_TABLE":         defaultWebhooksTable,
	"WEBHOOK_ALLOW_LOOPBACK": "true",
}

// webhookSettings reads the webhook settings with the local run's defaults.
func webhookSettings(getenv func(string) string) (webhook.Config, error) {
	return webhook.LoadConfig(func(name string) string { return or(getenv(name), webhookEnv[name]) })
}

// newWebhooksAPI creates the webhooks table and builds the subscriptions
// API's handler as functions/webhooks/main.go does.
func newWebhooksAPI(ctx context.Context, wc webhook.Config, db *dynamodb.Client, owners apigw.Owners, log *slog.Logger,
	metricsOut io.Writer, timeout time.Duration) (*webhookshandler.Handler, error) {
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	if err := dynamowebhook.CreateTable(tctx, db, wc.Table); err != nil {
		return nil, err
	}
	return webhookshandler.New(webhookshandler.Options{
		Store:   dynamowebhook.New(db, dynamowebhook.Config{Table: wc.Table, Timeout: timeout}),
		Owners:  owners,
		Guard:   webhook.Guard{AllowLoopback: wc.AllowLoopback},
		Log:     log.With("function", "webhooks"),
		Metrics: metrics.New(metricsOut, "Shortener", "webhooks"),
	}), nil
}
