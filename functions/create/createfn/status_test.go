package createfn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/link"
)

// TestCreateStatus: a create may name the link's status, so a link meant
// to be disabled (an imported row exported as disabled) is never live,
// not even between its create and a PATCH.
func TestCreateStatus(t *testing.T) {
	tests := []struct {
		name string
		body string
		want link.Status
	}{
		{name: "absent is active", body: `{"url":"https://example.com/a"}`, want: link.StatusActive},
		{name: "active", body: `{"url":"https://example.com/a","status":"active"}`, want: link.StatusActive},
		{name: "disabled", body: `{"url":"https://example.com/a","status":"disabled"}`, want: link.StatusDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "Stat0s1")
			resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), tt.body))
			require.NoError(t, err)
			require.Equal(t, 201, resp.StatusCode, resp.Body)
			stored, err := f.store.Get(context.Background(), "Stat0s1")
			require.NoError(t, err)
			assert.Equal(t, tt.want, stored.Status)
			assert.Equal(t, tt.want == link.StatusActive, stored.Resolve(now) == link.Redirect, "a disabled link answers as gone from its first moment")
		})
	}
}

// TestBatchStatus: each item names its own status, on every store.
func TestBatchStatus(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.new(t)
			h := batchHandler(t, store)
			ctx := context.Background()
			items := []any{
				map[string]any{"url": "https://example.com/on"},
				map[string]any{"url": "https://example.com/off", "status": "disabled"},
				map[string]any{"url": "https://example.com/paused", "status": "paused"},
			}
			resp, err := h.Handle(ctx, batchEvent(t, batchOf(items...)))
			require.NoError(t, err)
			got := results(t, resp)
			require.Len(t, got, 3)
			assert.Equal(t, []int{201, 201, 400}, []int{got[0].Status, got[1].Status, got[2].Status})
			assert.Equal(t, "status", problemOf(t, got[2]).Field)
			for i, want := range []link.Status{link.StatusActive, link.StatusDisabled} {
				stored, err := store.Get(ctx, got[i].Link.Code)
				require.NoError(t, err)
				assert.Equal(t, want, stored.Status, "item %d", i)
			}
		})
	}
}
