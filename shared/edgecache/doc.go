// Package edgecache removes redirects from CloudFront's edge caches after a
// link is edited or deleted (the management function), so the edge stops
// serving the old target long before the redirect's s-maxage would let it
// go. A new link is never invalidated: the only answer the edge can hold
// for a code that did not exist is a 404, which CloudFront keeps at most
// its error caching minimum TTL (docs/lifecycle.md, section 6).
//
// Consumers define the interface they call,
//
//	type Invalidator interface {
//		Invalidate(ctx context.Context, paths ...string) error
//	}
//
// and this package provides two implementations:
//
//   - CloudFront, which calls CreateInvalidation and batches: the calls made
//     within a short window (50 ms by default) become one invalidation of up
//     to 3,000 deduplicated paths, and each caller waits for its batch.
//   - Recorder, which keeps every invalidation in memory with its time and
//     hands it to subscribers: the tests assert on it, and the local run's
//     CloudFront emulator purges its cache through it.
//
// Paths are cleaned the same way by both (see Clean): they start with "/",
// non-ASCII and RFC 1738 unsafe characters are percent-encoded as CloudFront
// asks and nothing else is, "*" may only end a path (a prefix wildcard), and
// duplicates are dropped. Invalidation paths are case-sensitive, like the
// edge's cache keys.
//
// Cost: the first 1,000 invalidation paths a month are free per account
// (all distributions together), then each costs $0.005; a "/*" wildcard
// counts as one path
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/PayingForInvalidation.html).
// An edit or delete invalidates at most two paths, its code and the
// display spelling of its alias, once (Purger waits out a settle time
// first rather than invalidating twice), so 1,000 link changes a month
// cost at most $10 beyond the free tier. CloudFront also caps the paths in
// progress per distribution (3,000 files, 15 wildcard paths); past that
// CreateInvalidation fails with
// TooManyInvalidationsInProgress, which callers see as an error.
//
// Where batching pays off: a Lambda instance serves one request at a time,
// so in the management function a batch usually holds one request's paths.
// It merges work in long-lived processes (the local gateway, a consumer
// that handles many records at once, or a queue that funnels every
// function's invalidations into one) and keeps the number of
// CreateInvalidation calls, which CloudFront rate-limits, down there.
package edgecache
