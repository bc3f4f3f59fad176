// Command clicks is the Lambda behind the Kinesis stream of CloudFront
// real-time logs: it counts clicks into the analytics table and, with
// webhooks deployed, publishes each batch's clicks as link.clicked events.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/wire/clickfns"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), func(cfg config.Config, c wirecore.Clients) (*clicksfn.Handler, error) {
		return clickfns.NewClicks(cfg, hookfns.Lambda(c))
	})
	if err != nil {
		log.Fatalf("clicks: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
