package localkinesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// fakePut records PutRecords calls; refuse decides which entries of a call
// Kinesis refuses (by their request id), and err fails whole calls.
type fakePut struct {
	mu     sync.Mutex
	calls  [][]string // request ids per call
	sizes  []int      // bytes per call
	refuse func(call int, id string) bool
	err    func(call int) error
}

// putRequest is a PutRecords body as Kinesis reads it; encoding/json
// decodes base64 into []byte.
type putRequest struct {
	StreamName string
	Records    []struct {
		Data         []byte
		PartitionKey string
	}
}

func decodePut(body []byte, n int) (putRequest, error) {
	var in putRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return in, fmt.Errorf("the body is not JSON: %w: %s", err, body)
	}
	if len(in.Records) != n {
		return in, fmt.Errorf("%d records in the body, %d said", len(in.Records), n)
	}
	return in, nil
}

func (f *fakePut) PutRecords(_ context.Context, body []byte, n int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in, err := decodePut(body, n)
	if err != nil {
		return nil, err
	}
	if in.StreamName != "s" {
		return nil, fmt.Errorf("stream %q", in.StreamName)
	}
	call := len(f.calls) + 1
	var ids []string
	size := 0
	codes := make([]string, n)
	for i, e := range in.Records {
		r, err := clicklog.Parse(e.Data)
		if err != nil {
			return nil, err
		}
		ids = append(ids, r.RequestID)
		size += len(e.Data) + len(e.PartitionKey)
		if e.PartitionKey != r.RequestID {
			return nil, fmt.Errorf("partition key %q, want the request id", e.PartitionKey)
		}
		if f.refuse != nil && f.refuse(call, r.RequestID) {
			codes[i] = "ProvisionedThroughputExceededException"
		}
	}
	f.calls = append(f.calls, ids)
	f.sizes = append(f.sizes, size)
	if f.err != nil {
		if err := f.err(call); err != nil {
			return nil, err
		}
	}
	return codes, nil
}

func (f *fakePut) sent() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]string(nil), f.calls...)
}

func ids(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, record(i).RequestID)
	}
	return out
}

func TestWriterBatches(t *testing.T) {
	big := func(i int) clicklog.Record {
		r := record(i)
		r.UserAgent = strings.Repeat("x", 20_000) // about 260 records per 5 MiB
		return r
	}
	tests := []struct {
		name      string
		n         int
		make      func(int) clicklog.Record
		wantCalls []int // records per call
	}{
		{name: "a few records, one call", n: 3, make: record, wantCalls: []int{3}},
		{name: "500 per call at most", n: 1201, make: record, wantCalls: []int{500, 500, 201}},
	}
	// Records of the same size: as many per call as fit in 5 MiB.
	size := len(clicklog.Format(big(0))) + len(big(0).RequestID)
	per := MaxBytesPerCall / size
	tests = append(tests, struct {
		name      string
		n         int
		make      func(int) clicklog.Record
		wantCalls []int
	}{name: "5 MiB per call at most", n: 600, make: big, wantCalls: []int{per, per, 600 - 2*per}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakePut{}
			// No loop: one flush sends everything, so the batches are exact.
			w := newWriter(api, WriterOptions{Stream: "s", MaxAttempts: 1, MaxPending: 1 << 20, Log: quiet})
			for i := range tt.n {
				w.Write(context.Background(), tt.make(i))
			}
			w.flush()
			var got []int
			var all []string
			for i, c := range api.sent() {
				got = append(got, len(c))
				all = append(all, c...)
				assert.LessOrEqual(t, api.sizes[i], MaxBytesPerCall)
			}
			assert.Equal(t, tt.wantCalls, got)
			assert.Equal(t, ids(0, tt.n), all, "in the order written")
			assert.Equal(t, WriterStats{Sent: int64(tt.n), Calls: int64(len(tt.wantCalls))}, w.Stats())
		})
	}
}

func TestWriterFlushesOnItsOwn(t *testing.T) {
	api := &fakePut{}
	w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: 20 * time.Millisecond, Log: quiet})
	require.NoError(t, err)
	defer w.Close(context.Background())
	w.Write(context.Background(), record(1))
	require.Eventually(t, func() bool { return len(api.sent()) == 1 }, 2*time.Second, 5*time.Millisecond, "within the flush interval")

	// 500 waiting records are sent at once, not at the next tick.
	w2, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, Log: quiet})
	require.NoError(t, err)
	defer w2.Close(context.Background())
	for i := range MaxRecordsPerCall {
		w2.Write(context.Background(), record(i))
	}
	require.Eventually(t, func() bool { return len(api.sent()) == 2 }, 2*time.Second, 5*time.Millisecond)
}

func TestWriterResends(t *testing.T) {
	tests := []struct {
		name        string
		refuse      func(call int, id string) bool
		err         func(call int) error
		wantCalls   [][]string
		wantSent    int64
		wantDropped int64
	}{
		{
			name:      "refused records are sent again, alone, in order",
			refuse:    func(call int, id string) bool { return call == 1 && (id == "req-000001" || id == "req-000003") },
			wantCalls: [][]string{ids(0, 5), {"req-000001", "req-000003"}},
			wantSent:  5,
		},
		{
			name:      "a failed call is sent again whole",
			err:       func(call int) error { return map[int]error{1: errors.New("connection reset")}[call] },
			wantCalls: [][]string{ids(0, 5), ids(0, 5)},
			wantSent:  5,
		},
		{
			name:        "a record refused every time is dropped after MaxAttempts",
			refuse:      func(_ int, id string) bool { return id == "req-000002" },
			wantCalls:   [][]string{ids(0, 5), {"req-000002"}, {"req-000002"}},
			wantSent:    4,
			wantDropped: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakePut{refuse: tt.refuse, err: tt.err}
			w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, MaxAttempts: 3, RetryDelay: time.Millisecond, Log: quiet})
			require.NoError(t, err)
			for i := range 5 {
				w.Write(context.Background(), record(i))
			}
			require.NoError(t, w.Close(context.Background()))
			assert.Equal(t, tt.wantCalls, api.sent())
			st := w.Stats()
			assert.Equal(t, tt.wantSent, st.Sent)
			assert.Equal(t, tt.wantDropped, st.Dropped)
		})
	}
}

func TestWriterDropsBeyondMaxPendingAndAfterClose(t *testing.T) {
	api := &fakePut{}
	w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, MaxPending: 10, Log: quiet})
	require.NoError(t, err)
	for i := range 15 {
		w.Write(context.Background(), record(i))
	}
	require.NoError(t, w.Close(context.Background()))
	w.Write(context.Background(), record(99))
	assert.Equal(t, [][]string{ids(0, 10)}, api.sent())
	assert.Equal(t, WriterStats{Sent: 10, Dropped: 6, Calls: 1}, w.Stats())
}

func TestWriterCloseGivesUpWithItsContext(t *testing.T) {
	api := &fakePut{refuse: func(int, string) bool { return true }}
	w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, MaxAttempts: 100, RetryDelay: time.Second, Log: quiet})
	require.NoError(t, err)
	w.Write(context.Background(), record(1))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	assert.ErrorIs(t, w.Close(ctx), context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, int64(1), w.Stats().Dropped)
}

func TestRecordsWithoutARequestIDGetARandomKey(t *testing.T) {
	var keys []string
	api := putFunc(func(in putRequest) {
		for _, e := range in.Records {
			keys = append(keys, e.PartitionKey)
		}
	})
	w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, Log: quiet})
	require.NoError(t, err)
	r := record(1)
	r.RequestID = ""
	w.Write(context.Background(), r)
	w.Write(context.Background(), r)
	require.NoError(t, w.Close(context.Background()))
	require.Len(t, keys, 2)
	assert.Regexp(t, `^[0-9a-f]{32}$`, keys[0])
	assert.NotEqual(t, keys[0], keys[1])
}

func TestPartitionKeysAreWrittenAsJSON(t *testing.T) {
	var keys []string
	api := putFunc(func(in putRequest) {
		for _, e := range in.Records {
			keys = append(keys, e.PartitionKey)
		}
	})
	odd := []string{`quote " and backslash \\`, "tab\tnewline\n", "ünïcödé ✓", strings.Repeat("é", MaxPartitionKeyChars)}
	tooLong := strings.Repeat("k", MaxPartitionKeyChars+1)
	next := 0
	all := append(append([]string(nil), odd...), tooLong)
	w, err := NewWriter(api, WriterOptions{Stream: "s", FlushInterval: time.Hour, Log: quiet,
		PartitionKey: func(clicklog.Record) string { next++; return all[next-1] }})
	require.NoError(t, err)
	for i := range all {
		w.Write(context.Background(), record(i))
	}
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, odd, keys)
	assert.Equal(t, WriterStats{Sent: int64(len(odd)), Dropped: 1, Calls: 1}, w.Stats(), "a key Kinesis would refuse is dropped alone")
}

type putFunc func(in putRequest)

func (f putFunc) PutRecords(_ context.Context, body []byte, n int) ([]string, error) {
	in, err := decodePut(body, n)
	if err != nil {
		return nil, err
	}
	f(in)
	return make([]string, n), nil
}

func TestNewWriterNeedsAStream(t *testing.T) {
	_, err := NewWriter(&fakePut{}, WriterOptions{})
	assert.Error(t, err)
}

func TestNewPollerChecksOptions(t *testing.T) {
	h := func(context.Context, events.KinesisEvent) (events.KinesisEventResponse, error) {
		return events.KinesisEventResponse{}, nil
	}
	tests := []struct {
		name string
		o    Options
	}{
		{name: "no stream", o: Options{Handler: h}},
		{name: "no handler", o: Options{Stream: "s"}},
		{name: "a bad starting position", o: Options{Stream: "s", Handler: h, StartingPosition: types.ShardIteratorTypeAtTimestamp}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPoller(nil, tt.o)
			assert.Error(t, err)
		})
	}
}
