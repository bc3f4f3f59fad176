package metrics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a manually advanced time source for the emitter's now field.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestEmitter(buf *bytes.Buffer) (*Emitter, *clock) {
	c := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	e := New(buf, "Shortener", "redirect")
	e.now = c.now
	return e, c
}

func lines(buf *bytes.Buffer) int { return strings.Count(buf.String(), "\n") }

func TestFlushTimestampFromClock(t *testing.T) {
	var buf bytes.Buffer
	e, c := newTestEmitter(&buf)
	e.Add("Redirects", Count, 1)

	require.NoError(t, e.Flush())

	var rec struct {
		AWS struct {
			Timestamp int64 `json:"Timestamp"`
		} `json:"_aws"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	assert.Equal(t, c.t.UnixMilli(), rec.AWS.Timestamp)
}

func TestFlushEvery(t *testing.T) {
	const interval = 10 * time.Second
	type step struct {
		advance   time.Duration // clock moves before the step
		add       int           // Add calls
		observe   int           // Observe calls, on one distribution
		flush     bool          // call Flush instead of FlushEvery
		wantLines int           // records written so far
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "first call flushes: nothing flushed yet",
			steps: []step{
				{add: 1, wantLines: 1},
			},
		},
		{
			name: "waits for the interval",
			steps: []step{
				{add: 1, wantLines: 1},
				{advance: 5 * time.Second, add: 1, wantLines: 1},
				{advance: interval - 5*time.Second - time.Nanosecond, wantLines: 1},
				{advance: time.Nanosecond, wantLines: 2}, // exactly the interval
				{advance: time.Hour, wantLines: 2},       // due, but nothing to write
				{add: 1, wantLines: 2},                   // the empty flush restarted the interval
				{advance: interval, wantLines: 3},
			},
		},
		{
			name: "an empty due flush still restarts the interval",
			steps: []step{
				{wantLines: 0}, // due at once, writes nothing, restarts the interval
				{advance: time.Second, add: 1, wantLines: 0},
				{advance: interval - time.Second, wantLines: 1},
			},
		},
		{
			name: "an explicit Flush restarts the interval",
			steps: []step{
				{add: 1, flush: true, wantLines: 1},
				{advance: interval / 2, add: 1, wantLines: 1},
				{advance: interval / 2, wantLines: 2},
			},
		},
		{
			name: "a full distribution flushes early",
			steps: []step{
				{add: 1, wantLines: 1},
				{advance: time.Second, observe: 99, wantLines: 1},
				{observe: 1, wantLines: 2}, // the 100th sample
				{advance: time.Second, observe: 99, wantLines: 2},
				{observe: 1, wantLines: 3},
			},
		},
		{
			name: "counters never force an early flush",
			steps: []step{
				{add: 1, wantLines: 1},
				{advance: time.Second, add: 1000, wantLines: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			e, c := newTestEmitter(&buf)
			for i, s := range tt.steps {
				c.t = c.t.Add(s.advance)
				for range s.add {
					e.Add("Redirects", Count, 1)
				}
				for j := range s.observe {
					e.Observe("LookupLatency", Milliseconds, float64(j))
					if j < s.observe-1 {
						// FlushEvery between samples, as the hot path does.
						require.NoError(t, e.FlushEvery(interval))
					}
				}
				if s.flush {
					require.NoError(t, e.Flush())
				} else {
					require.NoError(t, e.FlushEvery(interval))
				}
				require.Equal(t, s.wantLines, lines(&buf), "after step %d", i)
			}
		})
	}
}

func TestFlushEveryEarlyFlushCarriesAllSamples(t *testing.T) {
	var buf bytes.Buffer
	e, c := newTestEmitter(&buf)
	require.NoError(t, e.Flush()) // starts the interval
	c.t = c.t.Add(time.Second)
	for i := range maxSamples {
		e.Observe("LookupLatency", Milliseconds, float64(i))
	}

	require.NoError(t, e.FlushEvery(time.Minute))

	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	samples, ok := rec["LookupLatency"].([]any)
	require.True(t, ok, "want an array, got %T", rec["LookupLatency"])
	assert.Len(t, samples, maxSamples)
	assert.Equal(t, 0.0, samples[0])
	assert.Equal(t, float64(maxSamples-1), samples[maxSamples-1])
}
