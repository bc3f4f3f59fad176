// Package redirectcache is the in-process cache in front of DynamoDB on the
// redirect Lambda's hot path.
//
// A [Cache] is a bounded LRU of positive entries (a loaded value) and
// negative entries (the loader said "not found"). On a miss, concurrent
// Gets for the same key share one call of the loader; a caller whose own
// context ends while it waits returns ctx.Err() at once, and the shared
// load goes on (detached from cancellation but bounded by the first
// caller's deadline) and fills the cache for the next request.
//
// Freshness: each entry lives for TTL (NegativeTTL for negative entries),
// shortened by a random fraction of at most Jitter and never lengthened, and
// counted from the moment its load started, so a change to a link shows in
// every environment within TTL.
//
// Stale serving: when a load fails with anything but the not-found
// sentinel, an expired entry is still served, with result [Stale], until
// StaleFor past its expiry. Its freshness is not extended; for RetryAfter
// further Gets serve it without calling the failing loader again.
//
// Hot path: a fresh hit takes one mutex, one map lookup, one call of the
// clock, and allocates nothing. The load function passed to [Cache.Get]
// escapes (the shared load may outlive its caller), so a closure that
// captures per-request state, such as the key, is heap-allocated by the
// caller on every Get, hits included. [Cache.GetKeyed] takes a loader that
// receives the key, so it can be built once and reused: that keeps hits at
// zero allocations.
package redirectcache
