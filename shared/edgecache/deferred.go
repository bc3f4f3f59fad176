package edgecache

import (
	"context"
	"fmt"
	"sync"
)

// Deferred invalidates a distribution that is learnt at the first
// invalidation rather than at start-up: the distribution is created after
// the functions that invalidate it, and its ID reaches them at run time
// (shared/edgeinfo). ID names the distribution on each call; Deferred
// keeps one batching CloudFront invalidator per distribution it is told.
type Deferred struct {
	API CloudFrontAPI
	ID  func(ctx context.Context) (string, error)
	// Config batches the invalidations; its DistributionID is ID's.
	Config CloudFrontConfig

	mu  sync.Mutex
	cur *CloudFront
}

var _ Invalidator = (*Deferred)(nil)

// Invalidate learns the distribution and invalidates paths on it.
func (d *Deferred) Invalidate(ctx context.Context, paths ...string) error {
	id, err := d.ID(ctx)
	if err != nil {
		return fmt.Errorf("which distribution to invalidate: %w", err)
	}
	cf, err := d.invalidator(id)
	if err != nil {
		return err
	}
	return cf.Invalidate(ctx, paths...)
}

func (d *Deferred) invalidator(id string) (*CloudFront, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur != nil && d.cur.cfg.DistributionID == id {
		return d.cur, nil
	}
	cfg := d.Config
	cfg.DistributionID = id
	cf, err := NewCloudFront(d.API, cfg)
	if err != nil {
		return nil, err
	}
	d.cur = cf
	return cf, nil
}
