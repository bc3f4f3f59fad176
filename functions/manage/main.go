// Command manage is the Lambda behind the management API: GET /v1/links
// and GET, PATCH and DELETE /v1/links/{code}.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("manage", managefn.Build).Handle)
}
