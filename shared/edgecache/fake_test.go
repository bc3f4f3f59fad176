package edgecache

import (
	"context"
	"slices"
	"sync"
)

// fakeAPI records CreateInvalidation calls. With release set, each call
// waits for it to close (or for its context) before answering.
type fakeAPI struct {
	err     error
	release chan struct{}
	started chan struct{} // one value per call, when set

	mu    sync.Mutex
	calls []call
}

type call struct {
	distribution string
	reference    string
	quantity     int32
	paths        []string
	hasDeadline  bool
}

func (f *fakeAPI) CreateInvalidation(ctx context.Context, id, reference string, paths []string) error {
	_, hasDeadline := ctx.Deadline()
	f.mu.Lock()
	f.calls = append(f.calls, call{
		distribution: id,
		reference:    reference,
		quantity:     int32(len(paths)),
		paths:        slices.Clone(paths),
		hasDeadline:  hasDeadline,
	})
	f.mu.Unlock()
	if f.started != nil {
		f.started <- struct{}{}
	}
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.err
}

func (f *fakeAPI) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}
