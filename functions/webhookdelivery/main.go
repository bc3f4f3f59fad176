// Command webhookdelivery is the Lambda behind the webhook delivery queue:
// it signs and sends each queued delivery, retrying on the schedule.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), func(cfg config.Config, c wirecore.Clients) (*webhookdeliveryfn.Handler, error) {
		return hookfns.NewWebhookDelivery(cfg, hookfns.Lambda(c))
	})
	if err != nil {
		log.Fatalf("webhookdelivery: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
