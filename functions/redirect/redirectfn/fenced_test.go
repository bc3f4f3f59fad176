package redirectfn

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

// A fresh read of data older than a change the management API fenced (a
// replica that has not got the change yet) leaves with the entry's short
// edge life: no invalidation will come for it. It is counted as fenced,
// not as a failure; the changed data's answers get their day again.
func TestFencedMarkGivesAShortEdgeLife(t *testing.T) {
	tests := []struct {
		name   string
		link   link.Link
		status int
	}{
		{"a redirect", link.Link{Code: "aB3dE5f", UpdatedAt: start.Add(-time.Hour)}, 302},
		{"a disabled link's 410", link.Link{Code: "dead000", Status: link.StatusDisabled, UpdatedAt: start.Add(-time.Hour)}, 410},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newMarkFixture(t)
			stored := f.put(t, tt.link)
			changed := start.Add(-time.Second)
			_, err := f.marks.Fence(context.Background(), tt.link.Code, changed, start.Add(24*time.Hour))
			require.NoError(t, err)

			resp := f.get(t, tt.link.Code)
			require.Equal(t, tt.status, resp.StatusCode)
			assert.Equal(t, f.h.CacheTTL, edgeLife(t, resp.Headers["Cache-Control"]), "the entry's life")
			require.NoError(t, f.h.Metrics.Flush())
			assert.Equal(t, 1.0, f.metrics.Sums(t)["EdgeMarkFenced"])
			assert.Zero(t, f.metrics.Sums(t)["EdgeMarkFailures"])

			stored.UpdatedAt, stored.Version = changed, stored.Version+1
			require.NoError(t, f.store.Update(context.Background(), stored, stored.Version-1))
			f.clock.Add(time.Minute) // past the entry: a fresh read of the changed data
			resp = f.get(t, tt.link.Code)
			assert.Greater(t, edgeLife(t, resp.Headers["Cache-Control"]), f.h.CacheTTL, "the changed data marks")
		})
	}
}
