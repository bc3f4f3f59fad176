// Command reclaim is the Lambda the reclaim state machine invokes: it
// turns expired links into their tombstones and releases tombstones past
// their grace period (see handler and shared/reclaimflow). Its writes go to
// the replica in PRIMARY_REGION (this Region when unset): a release checked
// against another replica could delete a link re-created in the primary
// that has not replicated yet, and win under last-writer-wins
// (docs/lifecycle.md).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("reclaim", reclaimfn.Build).Handle)
}
