package metrics_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/metrics"
)

type metricDef struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// emfRecord is the part of an EMF record the tests read back.
type emfRecord struct {
	AWS struct {
		Timestamp         int64 `json:"Timestamp"`
		CloudWatchMetrics []struct {
			Namespace  string      `json:"Namespace"`
			Dimensions [][]string  `json:"Dimensions"`
			Metrics    []metricDef `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	} `json:"_aws"`
}

// parseLines parses each line of out as an EMF record, returning the
// typed view and the raw top-level members.
func parseLines(t *testing.T, out string) ([]emfRecord, []map[string]any) {
	t.Helper()
	var recs []emfRecord
	var raws []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var rec emfRecord
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "line: %s", line)
		var raw map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &raw))
		recs = append(recs, rec)
		raws = append(raws, raw)
	}
	return recs, raws
}

func TestFlushWritesEMF(t *testing.T) {
	type add struct {
		name, unit string
		v          float64
		observe    bool
	}
	tests := []struct {
		name       string
		adds       []add
		wantDefs   []metricDef
		wantValues map[string]any
	}{
		{
			name:       "one counter",
			adds:       []add{{name: "LinksCreated", unit: metrics.Count, v: 1}},
			wantDefs:   []metricDef{{Name: "LinksCreated", Unit: "Count"}},
			wantValues: map[string]any{"LinksCreated": 1.0},
		},
		{
			name: "counter sums",
			adds: []add{
				{name: "Redirects", unit: metrics.Count, v: 1},
				{name: "Redirects", unit: metrics.Count, v: 2},
				{name: "Redirects", unit: metrics.Count, v: 0.5},
			},
			wantDefs:   []metricDef{{Name: "Redirects", Unit: "Count"}},
			wantValues: map[string]any{"Redirects": 3.5},
		},
		{
			name: "observe keeps every sample as an array",
			adds: []add{
				{name: "LookupLatency", unit: metrics.Milliseconds, v: 12, observe: true},
				{name: "LookupLatency", unit: metrics.Milliseconds, v: 3.5, observe: true},
				{name: "LookupLatency", unit: metrics.Milliseconds, v: 12, observe: true},
			},
			wantDefs:   []metricDef{{Name: "LookupLatency", Unit: "Milliseconds"}},
			wantValues: map[string]any{"LookupLatency": []any{12.0, 3.5, 12.0}},
		},
		{
			name: "counters and distributions together",
			adds: []add{
				{name: "CacheHit", unit: metrics.Count, v: 1},
				{name: "CacheMiss", unit: metrics.Count, v: 2},
				{name: "LookupLatency", unit: metrics.Milliseconds, v: 7, observe: true},
			},
			wantDefs: []metricDef{
				{Name: "CacheHit", Unit: "Count"},
				{Name: "CacheMiss", Unit: "Count"},
				{Name: "LookupLatency", Unit: "Milliseconds"},
			},
			wantValues: map[string]any{"CacheHit": 1.0, "CacheMiss": 2.0, "LookupLatency": []any{7.0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := metrics.New(&buf, "Shortener", "redirect")
			for _, a := range tt.adds {
				if a.observe {
					e.Observe(a.name, a.unit, a.v)
				} else {
					e.Add(a.name, a.unit, a.v)
				}
			}

			require.NoError(t, e.Flush())

			require.True(t, strings.HasSuffix(buf.String(), "\n"), "one record per line")
			recs, raws := parseLines(t, buf.String())
			require.Len(t, recs, 1)
			cw := recs[0].AWS.CloudWatchMetrics
			require.Len(t, cw, 1)
			assert.Equal(t, "Shortener", cw[0].Namespace)
			assert.Equal(t, [][]string{{"function"}}, cw[0].Dimensions)
			assert.ElementsMatch(t, tt.wantDefs, cw[0].Metrics)
			assert.Positive(t, recs[0].AWS.Timestamp)
			assert.Equal(t, "redirect", raws[0]["function"], "dimension value at top level")
			for name, want := range tt.wantValues {
				assert.Equal(t, want, raws[0][name], name)
			}
			// Every defined metric has its value at the top level, and nothing else is there.
			assert.Len(t, raws[0], len(tt.wantValues)+2, "members: %v", raws[0]) // + function, _aws
		})
	}
}

func TestFlushClearsAndSkipsEmpty(t *testing.T) {
	var buf bytes.Buffer
	e := metrics.New(&buf, "Shortener", "api")

	require.NoError(t, e.Flush())
	assert.Empty(t, buf.String(), "flush with nothing writes nothing")

	e.Add("LinksCreated", metrics.Count, 1)
	e.Observe("Latency", metrics.Milliseconds, 5)
	require.NoError(t, e.Flush())
	first := buf.String()
	require.NotEmpty(t, first)

	require.NoError(t, e.Flush())
	assert.Equal(t, first, buf.String(), "second flush writes nothing: values were cleared")

	e.Add("LinksCreated", metrics.Count, 2)
	require.NoError(t, e.Flush())
	_, raws := parseLines(t, buf.String())
	require.Len(t, raws, 2)
	assert.Equal(t, 2.0, raws[1]["LinksCreated"], "counts restart after a flush")
	assert.NotContains(t, raws[1], "Latency", "distributions restart after a flush")
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestFlushWriteError(t *testing.T) {
	boom := errors.New("stdout closed")
	e := metrics.New(failingWriter{err: boom}, "Shortener", "api")
	e.Add("X", metrics.Count, 1)

	err := e.Flush()

	assert.ErrorIs(t, err, boom)
}

func TestNilEmitterIsSafe(t *testing.T) {
	var e *metrics.Emitter
	tests := []struct {
		name string
		call func() error
	}{
		{name: "Add", call: func() error { e.Add("X", metrics.Count, 1); return nil }},
		{name: "Observe", call: func() error { e.Observe("X", metrics.Milliseconds, 1); return nil }},
		{name: "Flush", call: e.Flush},
		{name: "FlushEvery", call: func() error { return e.FlushEvery(time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = tt.call() })
			assert.NoError(t, err)
		})
	}
}
