// Command webhookdelivery is the Lambda behind the webhook delivery queue:
// it signs and sends each queued delivery, retrying on the schedule.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire"
)

func main() {
	h, err := wire.Lambda(context.Background(), wire.NewWebhookDelivery)
	if err != nil {
		log.Fatalf("webhookdelivery: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
