package main

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartFailure: an emulator that did not start on a fixed port is
// explained by the port and the settings that avoid it; on any free port
// the emulator's error is left as it is, and an interrupted start is
// errInterrupted.
func TestStartFailure(t *testing.T) {
	cause := errors.New("not ready")
	err := startFailure(context.Background(), cause, "DynamoDB Local", 8000, "SHORTENER_DYNAMODB")
	require.ErrorIs(t, err, cause)
	assert.Equal(t, "if port 8000 is taken, set SHORTENER_DYNAMODB_PORT=0 for any free port or SHORTENER_DYNAMODB_ENDPOINT "+
		"to use a running DynamoDB Local: not ready", err.Error())
	assert.Equal(t, "if port 4567 is taken, set SHORTENER_KINESIS_PORT=0 for any free port or SHORTENER_KINESIS_ENDPOINT "+
		"to use a running kinesalite: not ready", startFailure(context.Background(), cause, "kinesalite", 4567, "SHORTENER_KINESIS").Error())

	assert.Same(t, cause, startFailure(context.Background(), cause, "kinesalite", 0, "SHORTENER_KINESIS"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Same(t, errInterrupted, startFailure(ctx, cause, "kinesalite", 4567, "SHORTENER_KINESIS"))
}
