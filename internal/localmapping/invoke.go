package localmapping

import (
	"context"
	"encoding/json"
	"fmt"
)

// Invoke calls handler with event in process the way the Lambda runtime
// does: the event and the answer each make a round trip through JSON, so
// the handler gets exactly what it would decode in Lambda and the caller
// what Lambda would return, and a panic is a function error, not a crash.
func Invoke[In, Out any](ctx context.Context, handler func(context.Context, In) (Out, error), event In) (Out, error) {
	return invokeAs[In, Out, Out](ctx, handler, event)
}

// invokeAs is Invoke, with the answer decoded into Answer: what the
// caller reads of it, as Lambda reads only the fields it knows of a
// function's JSON answer.
func invokeAs[In, Out, Answer any](ctx context.Context, handler func(context.Context, In) (Out, error), event In) (resp Answer, err error) {
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
