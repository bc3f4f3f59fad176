// Command redirect is the Lambda behind GET and HEAD /{code}.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("redirect", redirectfn.Build).Handle)
}
