// Package edgeversion takes a changed link's cached answers out of use by
// giving its paths a new version in the distribution's CloudFront
// KeyValueStore, instead of invalidating them. The redirect behaviour's
// viewer-request function (shared/edgespec VersionKeyFunction) reads a
// path's version from the store on every request and puts it in the
// cache key, so the request after a new version reaches the edge is a
// cache miss and reaches the origin; the answer kept under the old version
// is never asked for again and ages out. It is the edge side of the
// deployment context edgeVersionKeys (docs/cost-model.md, "Versioned
// cache keys").
//
// A Writer is an edgecache.Invalidator, so the management API's Purger
// (its settle time included: a new version put before an answer read
// from the old data reached the edge would key that answer) calls it
// where it would invalidate. Each path gets a version above both the
// clock's milliseconds and the one the store holds, so a version never
// repeats; the store's keys are the paths as the viewer sends them, which
// is the URI the function reads (a path with "%" never reaches the read).
//
// Every PutKey names the store's current ETag (If-Match), which every
// write changes
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_PutKey.html):
// the Writer keeps the ETag of its last answer and, when another writer
// has changed the store since (ErrConflict), asks DescribeKeyValueStore for
// the current one and tries again, at most Attempts times.
//
// The store gains a key for every changed path, and a path's version
// shadows nothing once the edge life has passed since it was put. A
// Sweeper (the reclaim run's, functions/reclaim) lists the store and
// deletes such keys with UpdateKeys under the same ETag rule, reading a
// batch's keys again instead of deleting blindly when another writer
// changed the store since the listing; see Sweeper for why a deleted key,
// read as version "0" again, brings no old answer back.
package edgeversion
