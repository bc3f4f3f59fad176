// Package lifecycletest holds the end-to-end test of a link's life on
// DynamoDB Local, wired the way the local run wires it: created through the
// create function, expired and removed by TTL, delivered by the stream
// poller as an AWS-shaped TTL deletion to the ttlstream function, held as a
// tombstone through its grace period, released by the reclaim run, and
// issued again. It has no code of its own.
package lifecycletest
