package managefn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
)

// withMarks gives the fixture two Regions' marks tables and a settle time
// that passes on its clock, running duringSettle (when set) first.
func withMarks(f *fixture) (east, west *edgemarks.Memory, duringSettle *func()) {
	east, west = edgemarks.NewMemory(), edgemarks.NewMemory()
	f.h.Marks = &edgemarks.Check{Regions: []edgemarks.Reader{east, west}}
	f.h.EdgeSettle = 2 * time.Second
	var hook func()
	f.h.EdgeSleep = func(d time.Duration) {
		if hook != nil {
			hook()
			hook = nil
		}
		f.clock.Add(d)
	}
	return east, west, &hook
}

// A link no edge can hold (never marked, or its marks have run out) is
// changed without an invalidation: nothing is sent, and the skip counted.
func TestUnheldChangesSendNoInvalidation(t *testing.T) {
	f := newFixture(t)
	east, west, _ := withMarks(f)
	f.seed(t, code, "", ownerA)
	// A mark that ran out before the change.
	require.NoError(t, west.Mark(context.Background(), code, f.clock.Now().Add(-time.Second)))

	patch := f.do(t, event(t, "patch-link.json"))
	require.Equal(t, 200, patch.StatusCode, patch.Body)
	del := f.do(t, withIfMatch(event(t, "delete-link.json"), patch.Headers["ETag"]))
	require.Equal(t, 204, del.StatusCode, del.Body)

	assert.Empty(t, f.edge.Invalidations(), "no invalidation sent")
	assert.Equal(t, 2.0, f.metric(t, edgecache.MetricSkipped))
	assert.Equal(t, 0.0, f.metric(t, edgecache.MetricPaths))
	assert.Equal(t, 2, east.Reads, "each change reads every Region's mark once")
	assert.Equal(t, 2, west.Reads)
}

// A mark that still runs in any Region, or one written during the settle
// time (by a redirect that read the link just before the change), sends
// the invalidation of every path of the link.
func TestHeldChangesAreInvalidated(t *testing.T) {
	tests := []struct {
		name string
		mark func(t *testing.T, f *fixture, east, west *edgemarks.Memory, duringSettle *func())
	}{
		{"marked in the first Region", func(t *testing.T, f *fixture, east, _ *edgemarks.Memory, _ *func()) {
			require.NoError(t, east.Mark(context.Background(), code, f.clock.Now().Add(25*time.Hour)))
		}},
		{"marked in the second Region", func(t *testing.T, f *fixture, _, west *edgemarks.Memory, _ *func()) {
			require.NoError(t, west.Mark(context.Background(), code, f.clock.Now().Add(time.Minute)))
		}},
		{"marked during the settle time", func(t *testing.T, f *fixture, _, west *edgemarks.Memory, during *func()) {
			*during = func() { require.NoError(t, west.Mark(context.Background(), code, f.clock.Now().Add(25*time.Hour))) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			east, west, during := withMarks(f)
			f.seed(t, code, "Spring-Sale", ownerA)
			tt.mark(t, f, east, west, during)

			del := f.do(t, event(t, "delete-link.json"))
			require.Equal(t, 204, del.StatusCode, del.Body)
			assert.ElementsMatch(t, []string{"/" + code, "/Spring-Sale"}, f.edge.Paths())
			assert.Equal(t, 0.0, f.metric(t, edgecache.MetricSkipped))
		})
	}
}

// A Region whose mark cannot be read might hold the link: the change is
// invalidated, and the failure counted.
func TestMarkReadFailureInvalidates(t *testing.T) {
	f := newFixture(t)
	east, _, _ := withMarks(f)
	east.Err = errors.New("ProvisionedThroughputExceededException")
	f.seed(t, code, "", ownerA)

	patch := f.do(t, event(t, "patch-link.json"))
	require.Equal(t, 200, patch.StatusCode, patch.Body)
	assert.Equal(t, []string{"/" + code}, f.edge.Paths())
	assert.Equal(t, 1.0, f.metric(t, edgecache.MetricHeldErrors))
	assert.Contains(t, f.logs.String(), "edge marks not read")
}
