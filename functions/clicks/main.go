// Command clicks is the Lambda behind the Kinesis stream of CloudFront
// real-time logs: it counts clicks into the analytics table and, with
// webhooks deployed, publishes each batch's clicks as link.clicked events.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("clicks", clicksfn.Build).Handle)
}
