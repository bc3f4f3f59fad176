// Package lambdainvoke calls a handler in process the way the Lambda
// runtime does, for the local run's event source mappings: the event and
// the answer travel as JSON, so the handler gets exactly what it would
// decode in Lambda, and a panic is a function error, not a crash.
package lambdainvoke

import (
	"context"
	"encoding/json"
	"fmt"
)

// JSON invokes handler with event after a round trip through JSON, and
// returns its answer after one too.
func JSON[In, Out any](ctx context.Context, handler func(context.Context, In) (Out, error), event In) (resp Out, err error) {
	payload, err := json.Marshal(event)
	if err != nil {
		return resp, err
	}
	var in In
	if err := json.Unmarshal(payload, &in); err != nil {
		return resp, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	out, err := handler(ctx, in)
	if err != nil {
		return resp, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return resp, err
	}
	return resp, json.Unmarshal(b, &resp)
}
