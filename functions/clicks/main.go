// Command clicks is the Lambda behind the Kinesis stream of CloudFront
// real-time logs: it counts clicks into the analytics table.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/clicks/handler"
	"github.com/shortlink-dev/shortener/shared/clickstore/dynamoclicks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

func main() {
	// The function counts under keys spelt in the path alone, so it needs
	// no setting of the shared configuration, but refuses a broken one as
	// every function does.
	if _, err := config.Load(os.Getenv); err != nil {
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
	h := &handler.Handler{
		Store:   dynamoclicks.New(dynamodb.NewFromConfig(aws), dynamoclicks.Config{Table: table}),
		Log:     slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Metrics: metrics.New(os.Stdout, "Shortener", "clicks"),
	}
	lambda.StartHandlerFunc(h.Handle)
}
