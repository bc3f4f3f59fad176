// Package metrics emits CloudWatch metrics in the embedded metric format
// (EMF): one JSON log line per flush, which CloudWatch turns into metrics
// without a PutMetricData call on the request path.
package metrics

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Unit names used with Add.
const (
	Count        = "Count"
	Milliseconds = "Milliseconds"
)

// Emitter collects values and writes them as one EMF record per Flush.
type Emitter struct {
	namespace string
	function  string
	w         io.Writer
	now       func() time.Time

	mu       sync.Mutex
	values   map[string]float64
	observed map[string][]float64
	units    map[string]string
	last     time.Time
}

// New returns an emitter writing to w (the function's stdout in Lambda).
func New(w io.Writer, namespace, function string) *Emitter {
	return &Emitter{namespace: namespace, function: function, w: w, now: time.Now,
		values: map[string]float64{}, observed: map[string][]float64{}, units: map[string]string{}}
}

// Add adds v to the metric name. A nil emitter drops it, so handlers built
// without metrics in tests need no stand-in.
func (e *Emitter) Add(name, unit string, v float64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.values[name] += v
	e.units[name] = unit
	e.mu.Unlock()
}

// Observe records one sample of a distribution, such as a latency; each
// sample stays a separate data point, so percentiles stay right.
func (e *Emitter) Observe(name, unit string, v float64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.observed[name] = append(e.observed[name], v)
	e.units[name] = unit
	e.mu.Unlock()
}

// maxSamples is EMF's limit on the values of one metric in one record.
const maxSamples = 100

// FlushEvery flushes when at least interval has passed since the last
// flush or a distribution is full. Hot paths call it instead of Flush so
// one log line carries many requests.
func (e *Emitter) FlushEvery(interval time.Duration) error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	due := e.now().Sub(e.last) >= interval
	for _, v := range e.observed {
		due = due || len(v) >= maxSamples
	}
	e.mu.Unlock()
	if !due {
		return nil
	}
	return e.Flush()
}

// Flush writes what was added since the last flush, if anything.
func (e *Emitter) Flush() error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.last = e.now()
	if len(e.values) == 0 && len(e.observed) == 0 {
		return nil
	}
	type metric struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	defs := make([]metric, 0, len(e.values)+len(e.observed))
	rec := map[string]any{"function": e.function}
	for name, v := range e.values {
		defs = append(defs, metric{Name: name, Unit: e.units[name]})
		rec[name] = v
	}
	for name, v := range e.observed {
		defs = append(defs, metric{Name: name, Unit: e.units[name]})
		rec[name] = v
	}
	rec["_aws"] = map[string]any{
		"Timestamp": e.now().UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  e.namespace,
			"Dimensions": [][]string{{"function"}},
			"Metrics":    defs,
		}},
	}
	clear(e.values)
	clear(e.observed)
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = e.w.Write(append(b, '\n'))
	return err
}
