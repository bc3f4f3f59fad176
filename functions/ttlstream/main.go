// Command ttlstream is the Lambda behind the links table's DynamoDB stream:
// it turns TTL deletions into tombstones. It runs in every Region of the
// global table and writes tombstones to the replica in PRIMARY_REGION
// (this Region when unset); see handler's package documentation.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/lifecyclefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), lifecyclefns.NewTTLStream)
	if err != nil {
		log.Fatalf("ttlstream: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
