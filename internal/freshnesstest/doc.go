// Package freshnesstest holds the race tests of the freshness promises
// (docs/lifecycle.md, "How fast a change shows"), wired the way the local
// run wires the pieces: the local CloudFront (internal/localedge) in front
// of the local API Gateway (internal/localgw), the real create, manage and
// redirect handlers behind it, over the in-memory store and one fake
// clock. The tests drive the orderings of load, write, invalidation and
// serve that break a naive design on purpose. It has no code of its own.
package freshnesstest
