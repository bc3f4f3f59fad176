// Command manage is the Lambda behind the management API: GET /v1/links
// and GET, PATCH and DELETE /v1/links/{code}.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/edgefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), edgefns.NewManage)
	if err != nil {
		log.Fatalf("manage: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
