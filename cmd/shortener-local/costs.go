package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/shortlink-dev/shortener/internal/capacity"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// costsPath serves what the run has consumed that a cost model prices
// (infra/costmodel): each API function's DynamoDB calls by table and
// operation, with the units DynamoDB Local reported for them
// (internal/capacity), and the real-time log records handed to the click
// stream with their bytes, as CloudFront formats them. cmd/soak prints
// figures from it.
const costsPath = "/_local/costs"

// costs is what costsPath reports. Its zero value is ready; it is safe for
// concurrent use.
type costs struct {
	mu     sync.Mutex
	meters map[string]*capacity.Meter // by function

	records, recordBytes atomic.Int64
}

// costsReport is costsPath's answer.
type costsReport struct {
	// Functions holds each metered function's usage: "redirect" and
	// "stats" (each Region's together).
	Functions map[string]capacity.Usage `json:"functions"`
	// Records and RecordBytes are the real-time log records handed to
	// the click stream and their bytes (clicklog.Format's line, its
	// newline included).
	Records     int64 `json:"records"`
	RecordBytes int64 `json:"record_bytes"`
}

// clients answers c with a metered DynamoDB for function fn: every
// Region's function of that name shares one meter.
func (m *costs) clients(fn string, c fnclients.Clients) fnclients.Clients {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.meters == nil {
		m.meters = map[string]*capacity.Meter{}
	}
	meter := m.meters[fn]
	if meter == nil {
		// No Items: transactions are counted as DynamoDB Local reports
		// them (the redirect and stats functions make none), and the
		// meter makes no calls of its own.
		meter = &capacity.Meter{}
		m.meters[fn] = meter
	}
	c.AWS = meter.Config(c.AWS)
	return c
}

// logged counts a real-time log record written to the click stream.
func (m *costs) logged(r clicklog.Record) {
	m.records.Add(1)
	m.recordBytes.Add(int64(len(clicklog.Format(r))))
}

func (m *costs) report() costsReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := costsReport{Functions: map[string]capacity.Usage{}, Records: m.records.Load(), RecordBytes: m.recordBytes.Load()}
	for fn, meter := range m.meters {
		r.Functions[fn] = meter.Usage()
	}
	return r
}

// ServeHTTP answers GET (and HEAD) of costsPath.
func (m *costs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	b, err := json.Marshal(m.report())
	if err != nil { // maps of numbers always marshal
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	if r.Method == http.MethodGet {
		_, _ = w.Write(append(b, '\n'))
	}
}

// countingSink counts the records it hands on.
type countingSink struct {
	next  localedge.Sink
	costs *costs
}

func (s countingSink) Write(ctx context.Context, r clicklog.Record) {
	s.costs.logged(r)
	s.next.Write(ctx, r)
}
