// Command originauth is the redirect origin's Lambda authorizer: only
// requests carrying CloudFront's origin secret reach the redirect function.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("originauth", originauthfn.Build).Handle)
}
