package apikey

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultCacheTTL is how long a Resolver trusts an answer from the table.
// It bounds how long a revoked key keeps working in a running function
// (plus the global table's replication lag, typically about a second), and
// costs one eventually consistent GetItem per key per function instance
// per TTL.
const DefaultCacheTTL = 30 * time.Second

// MaxCacheTTL caps the setting: revocation must take effect within minutes.
const MaxCacheTTL = 5 * time.Minute

// maxCached bounds the cache. An install has few keys, and API Gateway
// refuses keys it does not know before any function runs, so the bound is
// only a backstop: when it is reached the cache starts over.
const maxCached = 10_000

// Getter reads one key's record by its hash; ErrUnknown when there is none.
type Getter interface {
	Get(ctx context.Context, hash string) (Record, error)
}

// Resolver finds the owner of an API key through the keys table, caching
// each answer (owner, revoked or unknown) for TTL. Errors reading the
// table are not cached. It is safe for concurrent use.
type Resolver struct {
	keys Getter
	ttl  time.Duration
	now  func() time.Time

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	rec     Record
	err     error // ErrUnknown, or nil
	expires time.Time
}

// ResolverOptions configure a Resolver; zero values mean the defaults.
type ResolverOptions struct {
	// TTL is how long an answer is trusted; DefaultCacheTTL when zero.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// NewResolver returns a resolver over keys.
func NewResolver(keys Getter, o ResolverOptions) *Resolver {
	r := &Resolver{keys: keys, ttl: o.TTL, now: o.Now, cache: map[string]cached{}}
	if r.ttl <= 0 {
		r.ttl = DefaultCacheTTL
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// Owner returns the owner of key. A key the table does not have is
// ErrUnknown, a revoked one ErrRevoked; a failure to read the table is
// returned as the Getter gave it (link.ErrUnavailable for a slow table).
func (r *Resolver) Owner(ctx context.Context, key string) (string, error) {
	rec, err := r.Lookup(ctx, key)
	if err != nil {
		return "", err
	}
	return rec.Owner, nil
}

// Lookup returns the record of key, an active key, as Owner finds and
// caches it: ErrUnknown, ErrRevoked, ErrExpired or the Getter's error
// otherwise.
func (r *Resolver) Lookup(ctx context.Context, key string) (Record, error) {
	if key == "" {
		return Record{}, ErrUnknown
	}
	h := Hash(key)
	now := r.now()
	r.mu.Lock()
	c, ok := r.cache[h]
	r.mu.Unlock()
	if !ok || !now.Before(c.expires) {
		rec, err := r.keys.Get(ctx, h)
		switch {
		case errors.Is(err, ErrUnknown):
			c = cached{err: ErrUnknown}
		case err != nil:
			return Record{}, fmt.Errorf("resolve api key: %w", err)
		default:
			c = cached{rec: rec}
		}
		c.expires = now.Add(r.ttl)
		r.mu.Lock()
		if len(r.cache) >= maxCached {
			r.cache = map[string]cached{}
		}
		r.cache[h] = c
		r.mu.Unlock()
	}
	switch {
	case c.err != nil:
		return Record{}, c.err
	case c.rec.Status != StatusActive:
		return Record{}, ErrRevoked
	case c.rec.Expired(now):
		// Checked against the clock on every call, not when cached: a
		// key stops at its expiry, not up to a TTL later.
		return Record{}, ErrExpired
	}
	return c.rec, nil
}
