// Command webhookdelivery is the Lambda behind the webhook delivery queue:
// it signs and sends each queued delivery, retrying on the schedule.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/dynamowebhook"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

func main() {
	cfg, err := webhook.LoadConfig(os.Getenv)
	if err == nil {
		err = cfg.Require("WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL")
	}
	dlq := os.Getenv("WEBHOOK_DLQ_URL")
	if err == nil && dlq == "" {
		log.Fatal("configuration: WEBHOOK_DLQ_URL is not set")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	q := sqs.NewFromConfig(awsCfg)
	guard := webhook.Guard{AllowLoopback: cfg.AllowLoopback}
	h := &webhookdeliveryfn.Handler{
		Store:       dynamowebhook.New(dynamodb.NewFromConfig(awsCfg), dynamowebhook.Config{Table: cfg.Table}),
		Queue:       sqsqueue.New(q, cfg.QueueURL),
		DeadLetters: sqsqueue.New(q, dlq),
		Client:      guard.Client(cfg.Timeout),
		Guard:       guard,
		Schedule:    cfg.Schedule,
		Log:         slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics:     metrics.New(os.Stdout, "Shortener", "webhookdelivery"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
