package localedge

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// The pair below reports what an edge hit costs next to the bare 302 that
// cmd/loadgen compares it with, without the network: run both with
//
//	go test -run '^$' -bench 'Hit|Bare' -benchmem ./internal/localedge/
//
// and read the ratio of their ns/op. They time nothing they assert on.

// discardSink takes every record and keeps none.
type discardSink struct{}

func (discardSink) Write(context.Context, clicklog.Record) {}

// benchWriter is the least a ResponseWriter does: net/http gives each
// request a header map of its own, so it does too.
type benchWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *benchWriter) Header() http.Header { return w.h }

func (w *benchWriter) WriteHeader(status int) { w.status = status }

func (w *benchWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

// benchRequests are viewer requests for codes, shaped as net/http builds
// them, with the headers a browser's click carries.
func benchRequests(codes []string) []*http.Request {
	rs := make([]*http.Request, len(codes))
	for i, c := range codes {
		r := httptest.NewRequest(http.MethodGet, "http://sho.rt/"+c, nil)
		r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0")
		r.Header.Set("Accept", "text/html")
		rs[i] = r
	}
	return rs
}

var benchCodes = []string{"H000000", "H000001", "H000002", "H000003", "H000004", "H000005", "H000006", "H000007",
	"H000008", "H000009", "H000010", "H000011", "H000012", "H000013", "H000014", "H000015"}

// serveParallel serves the requests round-robin from every P, with a fresh
// writer each time, and fails if an answer is not a 302.
func serveParallel(b *testing.B, h http.Handler, reqs []*http.Request) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			w := &benchWriter{h: make(http.Header)}
			h.ServeHTTP(w, reqs[i%len(reqs)])
			if w.status != http.StatusFound {
				b.Errorf("status %d", w.status)
				return
			}
			i++
		}
	})
}

// BenchmarkEdgeHit serves cached redirects through the edge, real-time log
// records included (to a sink that drops them).
func BenchmarkEdgeHit(b *testing.B) {
	e, err := New(Options{Origin: newOrigin(), Sink: discardSink{}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	reqs := benchRequests(benchCodes)
	for _, r := range reqs {
		w := &benchWriter{h: make(http.Header)}
		e.ServeHTTP(w, r)
		if w.status != http.StatusFound {
			b.Fatalf("priming %s: status %d", r.URL.Path, w.status)
		}
	}
	serveParallel(b, e, reqs)
	if st := e.Stats(); st.Misses != int64(len(reqs)) {
		b.Fatalf("%d misses after priming, want none", st.Misses-int64(len(reqs)))
	}
}

// BenchmarkBare302 is cmd/loadgen's baseline handler: a fixed 302.
func BenchmarkBare302(b *testing.B) {
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Location"] = []string{"https://example.com/"}
		h["Cache-Control"] = []string{"public, max-age=0, s-maxage=86400"}
		w.WriteHeader(http.StatusFound)
	})
	serveParallel(b, bare, benchRequests(benchCodes))
}

// BenchmarkRequestID is the cost of one x-edge-request-id.
func BenchmarkRequestID(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if len(NewRequestID()) != 56 {
				b.Fatal("bad length")
			}
		}
	})
}
