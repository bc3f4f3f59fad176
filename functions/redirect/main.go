// Command redirect is the Lambda behind GET and HEAD /{code}.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire"
)

func main() {
	h, err := wire.Lambda(context.Background(), wire.NewRedirect)
	if err != nil {
		log.Fatalf("redirect: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
