// Command redirect is the Lambda behind GET and HEAD /{code}.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/redirect/handler"
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
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	h := handler.New(handler.Options{
		Store: dynamostore.New(dynamodb.NewFromConfig(aws), dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "redirect"),
	})
	lambda.StartHandlerFunc(h.Handle)
}
