// Command webhookstream is the Lambda on the links table's stream that
// turns link changes into webhook events on the delivery queue.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("webhookstream", webhookstreamfn.Build).Handle)
}
