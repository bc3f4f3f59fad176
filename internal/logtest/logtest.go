package logtest

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers. The
// zero value is empty and ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Reset empties the buffer: what is written next is read alone.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}

// Lines returns each line written so far decoded as a JSON object; a line
// that is not one fails t.
func (b *Buffer) Lines(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("logtest: a line that is not a JSON object: %v\n%s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// Records returns the decoded lines whose msg is msg.
func (b *Buffer) Records(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range b.Lines(t) {
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// Sums returns, for each field, the sum of its numbers over the lines
// written so far: with a metrics.Emitter writing, a metric's count across
// every record it flushed.
func (b *Buffer) Sums(t testing.TB) map[string]float64 {
	t.Helper()
	sums := map[string]float64{}
	for _, m := range b.Lines(t) {
		for k, v := range m {
			if n, ok := v.(float64); ok {
				sums[k] += n
			}
		}
	}
	return sums
}
