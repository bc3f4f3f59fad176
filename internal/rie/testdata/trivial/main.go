// Command trivial is the baseline of the cold-start measurement: an
// aws-lambda-go function that does nothing, built and run like the real
// ones, so their init time can be read against the runtime's own.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.StartHandlerFunc(func(_ context.Context, ev json.RawMessage) (json.RawMessage, error) {
		return ev, nil
	})
}
