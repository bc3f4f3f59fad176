package edgecache

import (
	"context"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
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

func (f *fakeAPI) CreateInvalidation(ctx context.Context, in *cloudfront.CreateInvalidationInput, _ ...func(*cloudfront.Options)) (*cloudfront.CreateInvalidationOutput, error) {
	_, hasDeadline := ctx.Deadline()
	f.mu.Lock()
	f.calls = append(f.calls, call{
		distribution: *in.DistributionId,
		reference:    *in.InvalidationBatch.CallerReference,
		quantity:     *in.InvalidationBatch.Paths.Quantity,
		paths:        slices.Clone(in.InvalidationBatch.Paths.Items),
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
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	return &cloudfront.CreateInvalidationOutput{}, nil
}

func (f *fakeAPI) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}
