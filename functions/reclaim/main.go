// Command reclaim is the Lambda the reclaim state machine invokes: it
// turns expired links into their tombstones and releases tombstones past
// their grace period (see handler and shared/reclaimflow). Its writes go to
// the replica in PRIMARY_REGION (this Region when unset): a release checked
// against another replica could delete a link re-created in the primary
// that has not replicated yet, and win under last-writer-wins
// (docs/lifecycle.md).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/wire/lifecyclefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), lifecyclefns.NewReclaim)
	if err != nil {
		log.Fatalf("reclaim: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
