// Command create is the Lambda behind POST /v1/links.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/wire/sitefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), func(cfg config.Config, c wirecore.Clients) (*createfn.Handler, error) {
		return sitefns.NewCreate(cfg, sitefns.Lambda(c))
	})
	if err != nil {
		log.Fatalf("create: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
