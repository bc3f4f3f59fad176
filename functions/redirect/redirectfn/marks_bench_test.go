package redirectfn

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// BenchmarkRedirectMissMarks is what edge marks add to a cache miss
// through the whole handler, in the same run, against DynamoDB Local: the
// miss without marks, the miss that writes its code's mark (every miss of
// that answers with a long edge life: since the fence, no instance skips
// a mark it wrote before, see edgemarks.Marker), and the miss without
// marks again, to show the drift of a shared machine within one run.
// Compare ns/op as ratios to "no-marks".
func BenchmarkRedirectMissMarks(b *testing.B) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(b))
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(b, "bench-links"), IdempotencyTable: testenv.UniqueName(b, "bench-idem")}
	ctx := context.Background()
	require.NoError(b, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	marksTable := testenv.UniqueName(b, "bench-marks")
	require.NoError(b, localtable.Create(ctx, db, marksTable, tableschema.EdgeMarks()))
	store := dynamo.NewLinkStore(db, cfg)
	require.NoError(b, store.Create(ctx, activeLink("Ab3dE5g"), nil))
	marks := dynamo.NewMarkStore(db, dynamo.Config{Table: marksTable})
	ev := benchEvent(b, "Ab3dE5g")

	miss := func(b *testing.B, h *Handler) {
		h.Cache.Invalidate("Ab3dE5g")
		if resp, _ := h.Handle(ctx, ev); resp.StatusCode != 302 || resp.Headers["Cache-Control"] != "public, max-age=0, s-maxage=86400" {
			b.Fatal(fmt.Sprint(resp.StatusCode, resp.Headers, resp.Body))
		}
	}
	// DynamoDB Local is a JVM: warm up both tables first.
	warm := benchHandler(b, store)
	warm.Marks = edgemarks.NewMarker(marks, 0)
	for range 300 {
		miss(b, warm)
	}
	noMarks := func(b *testing.B) {
		h := benchHandler(b, store)
		b.ReportAllocs()
		for b.Loop() {
			miss(b, h)
		}
	}
	b.Run("no-marks", noMarks)
	b.Run("mark-written", func(b *testing.B) {
		h := benchHandler(b, store)
		h.Marks = edgemarks.NewMarker(marks, 0)
		b.ReportAllocs()
		for b.Loop() {
			miss(b, h)
		}
	})
	b.Run("no-marks-again", noMarks)
	// Both, interleaved miss by miss, so that the machine's drift falls on
	// both alike: the ratio is reported as a metric.
	b.Run("interleaved", func(b *testing.B) {
		plain, written := benchHandler(b, store), benchHandler(b, store)
		written.Marks = edgemarks.NewMarker(marks, 0)
		var tPlain, tWritten time.Duration
		timed := func(h *Handler) time.Duration {
			start := time.Now()
			miss(b, h)
			return time.Since(start)
		}
		for b.Loop() {
			tPlain += timed(plain)
			tWritten += timed(written)
		}
		b.ReportMetric(float64(tWritten)/float64(tPlain), "written/plain")
		b.ReportMetric(float64(tPlain.Microseconds())/float64(b.N), "plain-µs/miss")
	})
}
