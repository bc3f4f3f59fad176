package managefn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
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
	require.NoError(t, west.Mark(context.Background(), code, f.clock.Now(), f.clock.Now().Add(-time.Second)))

	patch := f.do(t, event(t, "patch-link.json"))
	require.Equal(t, 200, patch.StatusCode, patch.Body)
	del := f.do(t, withIfMatch(event(t, "delete-link.json"), patch.Headers["ETag"]))
	require.Equal(t, 204, del.StatusCode, del.Body)

	assert.Empty(t, f.edge.Invalidations(), "no invalidation sent")
	assert.Equal(t, 2.0, f.metrics.Sums(t)[edgecache.MetricSkipped])
	assert.Equal(t, 0.0, f.metrics.Sums(t)[edgecache.MetricPaths])
	assert.Equal(t, 2, east.Fences, "each change fences, and so reads, every Region's mark once")
	assert.Equal(t, 2, west.Fences)
}

// A mark that still runs in any Region sends the invalidation of every
// path of the link.
func TestHeldChangesAreInvalidated(t *testing.T) {
	tests := []struct {
		name string
		mark func(t *testing.T, f *fixture, l link.Link, east, west *edgemarks.Memory)
	}{
		{"marked in the first Region", func(t *testing.T, f *fixture, l link.Link, east, _ *edgemarks.Memory) {
			require.NoError(t, east.Mark(context.Background(), code, l.UpdatedAt, f.clock.Now().Add(25*time.Hour)))
		}},
		{"marked in the second Region", func(t *testing.T, f *fixture, l link.Link, _, west *edgemarks.Memory) {
			require.NoError(t, west.Mark(context.Background(), code, l.UpdatedAt, f.clock.Now().Add(time.Minute)))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			east, west, _ := withMarks(f)
			l := f.seed(t, code, "Spring-Sale", ownerA)
			tt.mark(t, f, l, east, west)

			del := f.do(t, event(t, "delete-link.json"))
			require.Equal(t, 204, del.StatusCode, del.Body)
			assert.ElementsMatch(t, []string{"/" + code, "/Spring-Sale"}, f.edge.Paths())
			assert.Equal(t, 0.0, f.metrics.Sums(t)[edgecache.MetricSkipped])
		})
	}
}

// The race a lagging replica opens: a redirect that read the link as it
// was before the change (its read began just before the save, or its
// Region's replica has not got the change yet) marks after manage fenced
// the marks. Its mark is refused, so its answer leaves with an entry's
// short edge life, and no invalidation is owed for it; an answer built
// from the changed link marks as usual.
func TestMarksOfOldDataAfterTheChangeAreRefused(t *testing.T) {
	for _, method := range []string{"PATCH", "DELETE"} {
		t.Run(method, func(t *testing.T) {
			f := newFixture(t)
			east, west, during := withMarks(f)
			old := f.seed(t, code, "", ownerA)
			var stale, fresh error
			*during = func() {
				stale = west.Mark(context.Background(), code, old.UpdatedAt, f.clock.Now().Add(25*time.Hour))
				changed, err := f.store.Get(context.Background(), code)
				require.NoError(t, err)
				fresh = east.Mark(context.Background(), code, changed.UpdatedAt, f.clock.Now().Add(25*time.Hour))
			}
			var resp events.APIGatewayProxyResponse
			if method == "PATCH" {
				resp = f.do(t, event(t, "patch-link.json"))
				require.Equal(t, 200, resp.StatusCode, resp.Body)
			} else {
				resp = f.do(t, event(t, "delete-link.json"))
				require.Equal(t, 204, resp.StatusCode, resp.Body)
			}
			assert.ErrorIs(t, stale, edgemarks.ErrFenced, "the old link's answer gets no long edge life")
			assert.NoError(t, fresh, "the changed link's answer marks")
			assert.Empty(t, f.edge.Invalidations(), "nothing held when the marks were fenced")
		})
	}
}

// A change's time only rises, whatever the clocks say: an answer built
// from the link before it is always older than the change's fence.
func TestChangedAtRises(t *testing.T) {
	base := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		now, was time.Time
		want     time.Time
	}{
		{"now, to the millisecond", base.Add(1500 * time.Microsecond), base, base.Add(time.Millisecond)},
		{"a clock behind the last change's", base, base.Add(time.Second), base.Add(time.Second + time.Millisecond)},
		{"the same millisecond", base, base, base.Add(time.Millisecond)},
		{"much later", base.Add(time.Hour), base, base.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, changedAt(tt.now, link.Link{UpdatedAt: tt.was}))
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
	assert.Equal(t, 1.0, f.metrics.Sums(t)[edgecache.MetricHeldErrors])
	assert.Contains(t, f.logs.String(), "edge marks not read")
}
