// Package lifecycle provides the expiry side of the service: the links
// table's stream feeding ttlstream (TTL deletions become tombstones) and
// the scheduled Step Functions run of reclaim (due tombstones released).
package lifecycle
