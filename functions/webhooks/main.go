// Command webhooks is the Lambda behind the webhook subscriptions API:
// POST and GET /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/hooksapi"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), hooksapi.NewWebhooks)
	if err != nil {
		log.Fatalf("webhooks: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
