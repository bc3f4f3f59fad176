package localmapping

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// payload has what a JSON round trip changes: an unexported field and one
// tagged "-" are lost, a time keeps its instant but not its monotonic
// reading.
type payload struct {
	Name   string    `json:"name"`
	At     time.Time `json:"at"`
	Hidden string    `json:"-"`
	local  string
}

func TestInvoke(t *testing.T) {
	at := time.Date(2026, 12, 1, 1, 2, 3, 4, time.UTC)
	sent := payload{Name: "n", At: at, Hidden: "h", local: "l"}
	tests := []struct {
		name    string
		handler func(context.Context, payload) (payload, error)
		want    payload
		wantErr string
	}{
		{name: "the event and the answer cross as JSON",
			handler: func(_ context.Context, in payload) (payload, error) {
				assert.Equal(t, payload{Name: "n", At: at}, in, "the handler gets what Lambda would decode")
				return payload{Name: in.Name + "!", At: in.At, Hidden: "h", local: "l"}, nil
			},
			want: payload{Name: "n!", At: at}},
		{name: "a handler error is the function error",
			handler: func(context.Context, payload) (payload, error) { return payload{Name: "partial"}, errors.New("boom") },
			wantErr: "boom"},
		{name: "a panic is a function error",
			handler: func(context.Context, payload) (payload, error) { panic("nil map") },
			wantErr: "handler panicked: nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Invoke(context.Background(), tt.handler, sent)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Zero(t, got, "no answer with a function error")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
