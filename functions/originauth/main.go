// Command originauth is the redirect origin's Lambda authorizer: only
// requests carrying CloudFront's origin secret reach the redirect function.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/authfns"
	"github.com/shortlink-dev/shortener/functions/wire/lambdaenv"
)

func main() {
	h, err := lambdaenv.Lambda(context.Background(), authfns.Lambda)
	if err != nil {
		log.Fatalf("originauth: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
