package webhook

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Versioner reads the store's subscription version: a number that every
// create, delete and disable of any subscription raises, in the same
// write as the change (dynamo.WebhookStore keeps it in one small item).
type Versioner interface {
	Version(ctx context.Context) (int64, error)
}

// VersionedLister is what SubscriptionCache reads; Store satisfies it.
type VersionedLister interface {
	Lister
	Versioner
}

// DefaultCacheOwners bounds SubscriptionCache.MaxOwners when zero.
const DefaultCacheOwners = 10_000

// SubscriptionCache keeps owners' subscriptions, and that an owner has
// none, across the batches a warm function handles, for as long as the
// store's version is unchanged. Each batch costs one read of the version
// (Batch) instead of one Query per owner; an owner is queried again only
// after any subscription changed. So there is no window: a subscription
// whose create (or delete, or disable) has returned raised the version
// before it returned, and every batch that starts after that reads the new
// version and queries afresh. It is safe for concurrent use.
type SubscriptionCache struct {
	Store VersionedLister
	// MaxOwners bounds the owners held; past it the cache starts over.
	// DefaultCacheOwners when zero.
	MaxOwners int

	mu      sync.Mutex
	version int64
	subs    map[string][]Subscription
}

// Batch reads the store's version once and returns the Lister for one
// batch: answers cached under that version, the store's (then cached)
// otherwise.
func (c *SubscriptionCache) Batch(ctx context.Context) (Lister, error) {
	v, err := c.Store.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil || v != c.version {
		c.subs, c.version = map[string][]Subscription{}, v
	}
	return &cachedBatch{c: c, version: v}, nil
}

type cachedBatch struct {
	c       *SubscriptionCache
	version int64
}

// List answers from the cache, or queries the store and caches the answer
// under the batch's version. A change made since the batch read the
// version only makes the answer newer than the version it is kept under,
// and the next batch, reading the raised version, drops it.
func (b *cachedBatch) List(ctx context.Context, owner string) ([]Subscription, error) {
	c := b.c
	c.mu.Lock()
	subs, ok := c.subs[owner]
	fresh := c.version == b.version
	c.mu.Unlock()
	if ok && fresh {
		return subs, nil
	}
	subs, err := c.Store.List(ctx, owner)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == b.version {
		limit := c.MaxOwners
		if limit <= 0 {
			limit = DefaultCacheOwners
		}
		if len(c.subs) >= limit {
			c.subs = map[string][]Subscription{}
		}
		c.subs[owner] = subs
	}
	return subs, nil
}

// DefaultOwnerTTL is how long ClickPublisher keeps a code's owner when
// OwnerTTL is zero.
const DefaultOwnerTTL = 10 * time.Minute

// maxOwnerCodes bounds the codes ClickPublisher keeps owners of; past it
// the cache starts over.
const maxOwnerCodes = 100_000

// owners caches code -> owner for ClickPublisher.
type owners struct {
	mu    sync.Mutex
	codes map[string]ownerEntry
}

type ownerEntry struct {
	owner string
	until time.Time
}

func (o *owners) get(code string, now time.Time) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.codes[code]
	if !ok || !now.Before(e.until) {
		return "", false
	}
	return e.owner, true
}

func (o *owners) put(code, owner string, until time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.codes == nil || len(o.codes) >= maxOwnerCodes {
		o.codes = map[string]ownerEntry{}
	}
	o.codes[code] = ownerEntry{owner: owner, until: until}
}
