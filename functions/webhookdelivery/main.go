// Command webhookdelivery is the Lambda behind the webhook delivery queue:
// it signs and sends each queued delivery, retrying on the schedule.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("webhookdelivery", webhookdeliveryfn.Build).Handle)
}
