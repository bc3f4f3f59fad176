// Command originauth is the redirect origin's Lambda authorizer: only
// requests carrying CloudFront's origin secret reach the redirect function.
package main

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/shortlink-dev/shortener/functions/originauth/handler"
)

func main() {
	secretID := os.Getenv("ORIGIN_SECRET_ID")
	if secretID == "" {
		log.Fatal("configuration: ORIGIN_SECRET_ID is not set")
	}
	aws, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("aws configuration: %v", err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	h := &handler.Handler{
		// The secret's replica in this function's own region.
		Secrets: &handler.SecretsManager{Client: secretsmanager.NewFromConfig(aws), SecretID: secretID, Log: logger},
		Log:     logger,
	}
	lambda.StartHandlerFunc(h.Handle)
}
