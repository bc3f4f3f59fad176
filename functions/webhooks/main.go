// Command webhooks is the Lambda behind the webhook subscriptions API:
// POST and GET /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("webhooks", webhooksfn.Build).Handle)
}
