// Command clicks is the Lambda behind the Kinesis stream of CloudFront
// real-time logs: it counts clicks into the analytics table.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire"
)

func main() {
	h, err := wire.Lambda(context.Background(), wire.NewClicks)
	if err != nil {
		log.Fatalf("clicks: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
