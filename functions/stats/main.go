// Command stats is the Lambda behind GET /v1/links/{code}/stats.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/statsfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), statsfns.NewStats)
	if err != nil {
		log.Fatalf("stats: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
