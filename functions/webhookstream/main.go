// Command webhookstream is the Lambda on the links table's stream that
// turns link changes into webhook events on the delivery queue.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire"
)

func main() {
	h, err := wire.Lambda(context.Background(), wire.NewWebhookStream)
	if err != nil {
		log.Fatalf("webhookstream: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
