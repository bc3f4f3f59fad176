// Command redirect is the Lambda behind GET and HEAD /{code}.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/dbfns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), dbfns.NewRedirect)
	if err != nil {
		log.Fatalf("redirect: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
