package logtest

import (
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBufferTakesConcurrentWriters: every record of 8 goroutines arrives
// whole, one line each, and decodes (go test -race checks the locking).
func TestBufferTakesConcurrentWriters(t *testing.T) {
	var b Buffer
	log := slog.New(slog.NewJSONHandler(&b, nil))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				log.Info("written", "writer", i, "n", j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	log.Info("last")
	lines := b.Lines(t)
	require.Len(t, lines, 401)
	assert.Len(t, b.Records(t, "written"), 400)
	assert.Equal(t, []map[string]any{lines[400]}, b.Records(t, "last"))
	assert.Empty(t, b.Records(t, "never"))
}

// TestLinesFailsOnALineThatIsNotJSON: a stray line is the test's failure,
// not a record quietly left out.
func TestLinesFailsOnALineThatIsNotJSON(t *testing.T) {
	var b Buffer
	_, _ = b.Write([]byte("{\"msg\":\"ok\"}\nnot json\n"))
	ft := &fatalT{TB: t}
	func() {
		defer func() { _ = recover() }()
		b.Lines(ft)
	}()
	assert.True(t, ft.failed, "Lines must fail on a line that is not JSON")
}

// fatalT records a Fatalf and stops the call, as testing.T does.
type fatalT struct {
	testing.TB
	failed bool
}

func (f *fatalT) Fatalf(string, ...any) { f.failed = true; panic("fatal") }

// TestSumsAddsEachFieldAcrossRecords: two flushes of the same metric add
// up, a field that is not a number is not summed, a metric written once is
// its own sum.
func TestSumsAddsEachFieldAcrossRecords(t *testing.T) {
	var b Buffer
	_, err := b.Write([]byte(`{"_aws":{"Timestamp":1},"Paths":2,"fn":"manage"}` + "\n" + `{"Paths":3,"Failures":1}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"Paths": 5, "Failures": 1}, b.Sums(t))
	b.Reset()
	assert.Empty(t, b.Sums(t), "a reset buffer holds no record")
}
