// Command ttlstream is the Lambda behind the links table's DynamoDB stream:
// it turns TTL deletions into tombstones. It runs in every Region of the
// global table and writes tombstones to the replica in PRIMARY_REGION
// (this Region when unset); see handler's package documentation.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("ttlstream", ttlstreamfn.Build).Handle)
}
