package edgemarks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgemarks"
)

var now = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// stamp is when the link the answers are built from was last changed.
var stamp = now.Add(-time.Hour)

// Every answer that needs a mark writes one, an hour beyond what it needs;
// the table keeps the furthest.
func TestMarkerMarksEveryAnswer(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	m := edgemarks.NewMarker(table, time.Hour)

	require.NoError(t, m.Hold(ctx, "aB3dE5f", stamp, now, day))
	require.NoError(t, m.Hold(ctx, "aB3dE5f", stamp, now.Add(time.Minute), day))
	require.NoError(t, m.Hold(ctx, "aB3dE5f", stamp, now.Add(10*time.Minute), time.Minute), "a 410 for a minute")
	assert.Equal(t, 3, table.Marks, "no memory of marks written: a fence since must be seen")
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(time.Minute+day+time.Hour), got, "the furthest mark")
}

// A failed mark fails the answer's long life; the next answer tries again.
func TestMarkerFailure(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	table.Err = errors.New("throttled")
	m := edgemarks.NewMarker(table, time.Hour)
	require.Error(t, m.Hold(ctx, "aB3dE5f", stamp, now, day))
	table.Err = nil
	require.NoError(t, m.Hold(ctx, "aB3dE5f", stamp, now, day))
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(day+time.Hour), got)
}

// A fence refuses every mark built from data changed before it, and
// only those: the changed link's own answers, and other codes', mark.
func TestFenceRefusesOlderData(t *testing.T) {
	ctx := context.Background()
	changed := now.Add(-time.Second)
	tests := []struct {
		name  string
		code  string
		stamp time.Time
		want  error
	}{
		{"data from before the change", "aB3dE5f", stamp, edgemarks.ErrFenced},
		{"data a millisecond before the change", "aB3dE5f", changed.Add(-time.Millisecond), edgemarks.ErrFenced},
		{"the changed data", "aB3dE5f", changed, nil},
		{"a later change's data", "aB3dE5f", changed.Add(time.Minute), nil},
		{"another code", "promo25", stamp, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := edgemarks.NewMemory()
			before, err := table.Fence(ctx, "aB3dE5f", changed, now.Add(day))
			require.NoError(t, err)
			assert.True(t, before.IsZero(), "no mark before the fence")
			err = edgemarks.NewMarker(table, time.Hour).Hold(ctx, tt.code, tt.stamp, now, day)
			assert.ErrorIs(t, err, tt.want)
			got, err := table.HeldUntil(ctx, tt.code)
			require.NoError(t, err)
			if tt.want != nil {
				assert.Equal(t, now.Add(day), got, "a refused mark writes nothing; the fence keeps its item a day")
			} else {
				assert.Equal(t, now.Add(day+time.Hour), got)
			}
		})
	}
}

// A fence reports the mark as it was, keeps the item at least as long as
// asked, never lowers a mark, and never lowers a later change's fence.
func TestFenceKeepsMarksAndLaterFences(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	require.NoError(t, table.Mark(ctx, "aB3dE5f", stamp, now.Add(3*day)))
	before, err := table.Fence(ctx, "aB3dE5f", now, now.Add(day))
	require.NoError(t, err)
	assert.Equal(t, now.Add(3*day), before)
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(3*day), got, "a further mark is kept")

	_, err = table.Fence(ctx, "aB3dE5f", now.Add(-time.Minute), now.Add(day))
	require.NoError(t, err)
	assert.ErrorIs(t, table.Mark(ctx, "aB3dE5f", now.Add(-time.Second), now.Add(day)), edgemarks.ErrFenced,
		"an older change's fence leaves the later one")
}

func TestCheckFence(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		prepare  func(t *testing.T, a, b *edgemarks.Memory)
		wantHeld bool
		wantErr  bool
	}{
		{"no mark anywhere", func(*testing.T, *edgemarks.Memory, *edgemarks.Memory) {}, false, false},
		{"a mark in the second Region", func(t *testing.T, _, b *edgemarks.Memory) {
			require.NoError(t, b.Mark(ctx, "aB3dE5f", stamp, now.Add(time.Minute)))
		}, true, false},
		{"a mark run out", func(t *testing.T, a, _ *edgemarks.Memory) {
			require.NoError(t, a.Mark(ctx, "aB3dE5f", stamp, now.Add(-time.Second)))
		}, false, false},
		{"an earlier change's fence, nobody asked since", func(t *testing.T, a, _ *edgemarks.Memory) {
			_, err := a.Fence(ctx, "aB3dE5f", stamp, now.Add(time.Hour))
			require.NoError(t, err)
		}, false, false},
		{"an earlier change's fence, then an answer of its data", func(t *testing.T, a, _ *edgemarks.Memory) {
			_, err := a.Fence(ctx, "aB3dE5f", stamp, now.Add(3*time.Hour))
			require.NoError(t, err)
			require.NoError(t, a.Mark(ctx, "aB3dE5f", stamp, now.Add(time.Minute)), "below the keep, and written")
		}, true, false},
		{"a Region unreachable", func(_ *testing.T, _, b *edgemarks.Memory) { b.Err = errors.New("unreachable") }, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := edgemarks.NewMemory(), edgemarks.NewMemory()
			tt.prepare(t, a, b)
			fences := []int{a.Fences, b.Fences}
			c := edgemarks.Check{Regions: []edgemarks.Reader{a, b}, FenceLife: 2 * time.Hour}
			held, err := c.Fence(ctx, "aB3dE5f", now.Add(-time.Second), now)
			assert.Equal(t, tt.wantErr, err != nil, "%v", err)
			assert.Equal(t, tt.wantHeld, held)
			for i, m := range []*edgemarks.Memory{a, b} {
				if m.Err != nil {
					continue
				}
				assert.Equal(t, fences[i]+1, m.Fences, "every Region is fenced")
				assert.ErrorIs(t, m.Mark(ctx, "aB3dE5f", stamp, now.Add(day)), edgemarks.ErrFenced)
				got, err := m.HeldUntil(ctx, "aB3dE5f")
				require.NoError(t, err)
				assert.False(t, got.Before(now.Add(2*time.Hour)), "the fence is kept its life")
			}
		})
	}

	held, err := edgemarks.Check{}.Fence(ctx, "aB3dE5f", now, now)
	require.Error(t, err)
	assert.True(t, held, "no Region to fence: unknown, so held")
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	a, b := edgemarks.NewMemory(), edgemarks.NewMemory()
	c := edgemarks.Check{Regions: []edgemarks.Reader{a, b}}

	held, err := c.Held(ctx, "aB3dE5f", now)
	require.NoError(t, err)
	assert.False(t, held)
	assert.Equal(t, 1, a.Reads)
	assert.Equal(t, 1, b.Reads, "every Region is read")

	require.NoError(t, b.Mark(ctx, "aB3dE5f", stamp, now.Add(1500*time.Millisecond)))
	held, err = c.Held(ctx, "aB3dE5f", now.Add(2*time.Second))
	require.NoError(t, err)
	assert.True(t, held, "stored rounded up: until its whole second")
	held, err = c.Held(ctx, "aB3dE5f", now.Add(2001*time.Millisecond))
	require.NoError(t, err)
	assert.False(t, held)

	a.Err = errors.New("unreachable")
	held, err = c.Held(ctx, "never00", now)
	require.Error(t, err)
	assert.True(t, held, "a failed read counts as held")

	held, err = edgemarks.Check{}.Held(ctx, "aB3dE5f", now)
	require.Error(t, err)
	assert.True(t, held, "no Region to read: unknown, so held")
}

func TestParseTables(t *testing.T) {
	tests := []struct {
		name, v string
		want    []edgemarks.Table
		err     bool
	}{
		{"none", "", nil, false},
		{"two Regions", "arn:aws:dynamodb:us-east-1:123456789012:table/shortener-edge-marks, arn:aws:dynamodb:us-west-2:123456789012:table/shortener-edge-marks",
			[]edgemarks.Table{{"us-east-1", "shortener-edge-marks"}, {"us-west-2", "shortener-edge-marks"}}, false},
		{"another partition", "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/m", []edgemarks.Table{{"cn-north-1", "m"}}, false},
		{"a name alone", "shortener-edge-marks", nil, true},
		{"no Region", "arn:aws:dynamodb::123456789012:table/m", nil, true},
		{"another service", "arn:aws:s3:us-east-1:123456789012:table/m", nil, true},
		{"an index", "arn:aws:dynamodb:us-east-1:123456789012:table/m/index/i", nil, true},
		{"a stream", "arn:aws:dynamodb:us-east-1:123456789012:table/m/stream/2026", nil, true},
		{"two in one Region", "arn:aws:dynamodb:us-east-1:1:table/a,arn:aws:dynamodb:us-east-1:1:table/b", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := edgemarks.ParseTables(tt.v)
			if tt.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzParseTables: any value parses or fails, never panics, and what
// parses names a Region and a table.
func FuzzParseTables(f *testing.F) {
	for _, s := range []string{"", "arn:aws:dynamodb:us-east-1:1:table/t", ",", "arn:::::", "arn:aws:dynamodb:r:a:table/",
		"arn:aws:dynamodb:us-east-1:1:table/a,arn:aws:dynamodb:eu-west-1:1:table/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := edgemarks.ParseTables(v)
		if err != nil {
			return
		}
		for _, tb := range got {
			if tb.Region == "" || tb.Name == "" {
				t.Fatalf("ParseTables(%q) = %v: an empty Region or name", v, got)
			}
		}
	})
}

// Concurrent answers of one code, each needing a different edge life,
// leave a mark that covers the longest of them.
func TestMarkerUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	m := edgemarks.NewMarker(table, time.Hour)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { assert.NoError(t, m.Hold(ctx, "aB3dE5f", stamp, now, time.Duration(i)*time.Minute)) })
	}
	wg.Wait()
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.False(t, got.Before(now.Add(49*time.Minute)), "the longest life is covered")
}
