// Command webhookstream is the Lambda on the links table's stream that
// turns link changes into webhook events on the delivery queue.
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

	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
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
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	h := &webhookstreamfn.Handler{
		Events: &webhook.Publisher{
			Subscriptions: dynamowebhook.New(dynamodb.NewFromConfig(awsCfg), dynamowebhook.Config{Table: cfg.Table}),
			Queue:         sqsqueue.New(sqs.NewFromConfig(awsCfg), cfg.QueueURL),
		},
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "webhookstream"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
