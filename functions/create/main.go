// Command create is the Lambda behind POST /v1/links.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/edgefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), edgefns.NewCreate)
	if err != nil {
		log.Fatalf("create: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
