// Command create is the Lambda behind POST /v1/links.
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

	"github.com/shortlink-dev/shortener/functions/create/handler"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/shortcode"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		err = cfg.Require("LINKS_TABLE", "IDEMPOTENCY_TABLE", "SHORTENER_BASE_URL")
	}
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	codes, err := shortcode.New(cfg.CodeLength, nil)
	if err != nil {
		log.Fatalf("code generator: %v", err)
	}
	h := &handler.Handler{
		Store: dynamostore.New(dynamodb.NewFromConfig(aws), dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Codes:   codes,
		Rules:   cfg.Rules(),
		Present: linkapi.Presenter{BaseURL: cfg.BaseURL, CodeLength: cfg.CodeLength},
		Now:     time.Now,
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "create"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
