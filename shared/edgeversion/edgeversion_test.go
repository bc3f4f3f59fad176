package edgeversion

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeAPI is a store whose ETag another writer may change before a put
// (conflicts), or whose calls fail.
type fakeAPI struct {
	etag      int
	items     map[string]string
	conflicts int // the next puts that find the ETag changed
	putErr    error
	describes int
	puts      []string
}

func (f *fakeAPI) tag() string { return "E" + strings.Repeat("x", f.etag) }

func (f *fakeAPI) DescribeKeyValueStore(context.Context, string) (string, error) {
	f.describes++
	return f.tag(), nil
}

func (f *fakeAPI) GetKey(_ context.Context, _, key string) (string, bool, error) {
	v, ok := f.items[key]
	return v, ok, nil
}

func (f *fakeAPI) PutKey(_ context.Context, _, key, value, ifMatch string) (string, error) {
	if f.putErr != nil {
		return "", f.putErr
	}
	if f.conflicts > 0 {
		f.conflicts--
		f.etag++ // another writer's
		return "", ErrConflict
	}
	if ifMatch != f.tag() {
		return "", ErrConflict
	}
	f.etag++
	f.items[key] = value
	f.puts = append(f.puts, key+"="+value)
	return f.tag(), nil
}

var now = time.UnixMilli(1764757200000)

func TestNext(t *testing.T) {
	tests := []struct {
		name  string
		cur   string
		found bool
		want  string
	}{
		{"none", "", false, "1764757200000"},
		{"older", "1764757100000", true, "1764757200000"},
		{"same millisecond", "1764757200000", true, "1764757200001"},
		{"ahead of the clock", "1764757300000", true, "1764757300001"},
		{"not a number", "x", true, "1764757200000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Next(now, tt.cur, tt.found))
		})
	}
}

func TestWriterInvalidate(t *testing.T) {
	tests := []struct {
		name          string
		api           *fakeAPI
		paths         []string
		wantErr       error
		wantPuts      []string
		wantDescribes int
	}{
		{"every path, one describe", &fakeAPI{}, []string{"/abc1234", "/My-Alias"},
			nil, []string{"/abc1234=1764757200000", "/My-Alias=1764757200000"}, 1},
		{"a rising version", &fakeAPI{items: map[string]string{"/abc1234": "1764757200000"}}, []string{"/abc1234"},
			nil, []string{"/abc1234=1764757200001"}, 1},
		{"conflicts retried with a fresh ETag", &fakeAPI{conflicts: 2}, []string{"/abc1234"},
			nil, []string{"/abc1234=1764757200000"}, 3},
		{"conflicts past the attempts", &fakeAPI{conflicts: DefaultAttempts}, []string{"/abc1234"},
			ErrConflict, nil, DefaultAttempts},
		{"a failure is not retried", &fakeAPI{putErr: errors.New("AccessDeniedException")}, []string{"/abc1234"},
			nil, nil, 1},
		{"an empty path", &fakeAPI{}, []string{""}, nil, nil, 0},
		{"a path too long for a key", &fakeAPI{}, []string{"/" + strings.Repeat("a", MaxKeyBytes)}, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.api.items == nil {
				tt.api.items = map[string]string{}
			}
			w := &Writer{API: tt.api, ARN: "arn:aws:cloudfront::123456789012:key-value-store/x", Now: func() time.Time { return now }}
			err := w.Invalidate(context.Background(), tt.paths...)
			switch {
			case tt.wantErr != nil:
				assert.ErrorIs(t, err, tt.wantErr)
			case tt.wantPuts == nil:
				assert.Error(t, err)
			default:
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantPuts, tt.api.puts)
			assert.Equal(t, tt.wantDescribes, tt.api.describes)
		})
	}
	assert.Error(t, (&Writer{}).Invalidate(context.Background(), "/abc1234"), "no store")
}

// TestWriterLearnsTheStore: without ARN the store is asked of StoreARN on
// each call, and a new store's ETag is asked for afresh.
func TestWriterLearnsTheStore(t *testing.T) {
	api := &fakeAPI{items: map[string]string{}}
	arn, fail := "arn:aws:cloudfront::123456789012:key-value-store/one", error(nil)
	w := &Writer{API: api, Now: func() time.Time { return now }, StoreARN: func(context.Context) (string, error) { return arn, fail }}
	require.NoError(t, w.Invalidate(context.Background(), "/a"))
	arn = "arn:aws:cloudfront::123456789012:key-value-store/two"
	require.NoError(t, w.Invalidate(context.Background(), "/b"))
	assert.Equal(t, 2, api.describes, "a new store's ETag is its own")
	fail = errors.New("parameter not found")
	assert.ErrorContains(t, w.Invalidate(context.Background(), "/c"), "which key value store")
}

// recorder is a fallback that keeps what it is asked to invalidate.
type recorder struct {
	paths []string
	err   error
}

func (r *recorder) Invalidate(_ context.Context, paths ...string) error {
	r.paths = append(r.paths, paths...)
	return r.err
}

// TestWriterFallsBackToInvalidating: a version that cannot be put (a full
// or unreachable store) still takes the paths off the edge, through the
// fallback invalidation; only when both fail is it an error.
func TestWriterFallsBackToInvalidating(t *testing.T) {
	tests := []struct {
		name      string
		putErr    error
		fbErr     error
		wantErr   bool
		wantPaths []string
	}{
		{"put works, no invalidation", nil, nil, false, nil},
		{"store full, invalidated", errors.New("ServiceQuotaExceededException"), nil, false, []string{"/abc1234", "/My-Alias"}},
		{"both fail", errors.New("ServiceQuotaExceededException"), errors.New("Throttling"), true, []string{"/abc1234", "/My-Alias"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &recorder{err: tt.fbErr}
			var heard error
			w := &Writer{API: &fakeAPI{items: map[string]string{}, putErr: tt.putErr}, ARN: "arn", Now: func() time.Time { return now },
				Fallback: fb, OnFallback: func(_ []string, err error) { heard = err }}
			err := w.Invalidate(context.Background(), "/abc1234", "/My-Alias")
			if tt.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.wantPaths, fb.paths)
			if tt.putErr != nil {
				assert.ErrorIs(t, heard, tt.putErr)
			}
		})
	}
}
