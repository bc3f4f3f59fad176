package edgemarks_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgemarks"
)

var now = time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// A redirect instance marks a code once, an hour beyond what the answer
// needs, and not again while that mark covers the answers it sends.
func TestMarkerMarksOncePerSlack(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	m := edgemarks.NewMarker(table, 10, time.Hour)

	require.NoError(t, m.Hold(ctx, "aB3dE5f", now, day))
	assert.Equal(t, 1, table.Marks)
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(day+time.Hour), got)

	require.NoError(t, m.Hold(ctx, "aB3dE5f", now.Add(59*time.Minute), day))
	require.NoError(t, m.Hold(ctx, "aB3dE5f", now.Add(time.Hour), day))
	require.NoError(t, m.Hold(ctx, "aB3dE5f", now.Add(10*time.Minute), time.Minute), "a 410 for a minute")
	assert.Equal(t, 1, table.Marks, "covered by the first mark: no write")

	require.NoError(t, m.Hold(ctx, "aB3dE5f", now.Add(time.Hour+time.Second), day))
	assert.Equal(t, 2, table.Marks, "past the slack: marked again")
	got, err = table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(2*time.Hour+time.Second+day), got)

	require.NoError(t, m.Hold(ctx, "promo25", now, day))
	assert.Equal(t, 3, table.Marks, "another code has its own mark")
}

// A failed mark is not remembered: the next answer tries again.
func TestMarkerFailureIsNotRemembered(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	table.Err = errors.New("throttled")
	m := edgemarks.NewMarker(table, 10, time.Hour)
	require.Error(t, m.Hold(ctx, "aB3dE5f", now, day))
	table.Err = nil
	require.NoError(t, m.Hold(ctx, "aB3dE5f", now, day))
	assert.Equal(t, 2, table.Marks)
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.Equal(t, now.Add(day+time.Hour), got)
}

// The memory stays bounded: past its size the least recently used codes
// are forgotten (and marked again when they come back), while a code in
// use stays remembered.
func TestMarkerMemoryIsBounded(t *testing.T) {
	ctx := context.Background()
	table := edgemarks.NewMemory()
	m := edgemarks.NewMarker(table, 4, time.Hour)
	for i := range 100 {
		require.NoError(t, m.Hold(ctx, "hot0000", now, day))
		require.NoError(t, m.Hold(ctx, fmt.Sprintf("cold%03d", i), now, day))
	}
	assert.Equal(t, 101, table.Marks, "the hot code was marked once, each cold one once")
	require.NoError(t, m.Hold(ctx, "cold000", now, day))
	assert.Equal(t, 102, table.Marks, "a code long unused was forgotten, and is marked again")
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

	require.NoError(t, b.Mark(ctx, "aB3dE5f", now.Add(1500*time.Millisecond)))
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
	m := edgemarks.NewMarker(table, 100, time.Hour)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { assert.NoError(t, m.Hold(ctx, "aB3dE5f", now, time.Duration(i)*time.Minute)) })
	}
	wg.Wait()
	got, err := table.HeldUntil(ctx, "aB3dE5f")
	require.NoError(t, err)
	assert.False(t, got.Before(now.Add(49*time.Minute)), "the longest life is covered")
	marks := table.Marks
	require.NoError(t, m.Hold(ctx, "aB3dE5f", now, 49*time.Minute))
	assert.Equal(t, marks, table.Marks, "and remembered: no write")
}
