// Command webhookstream is the Lambda on the links table's stream that
// turns link changes into webhook events on the delivery queue.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), func(cfg config.Config, c wirecore.Clients) (*webhookstreamfn.Handler, error) {
		return hookfns.NewWebhookStream(cfg, hookfns.Lambda(c))
	})
	if err != nil {
		log.Fatalf("webhookstream: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
