// Package ttlstreamfn turns TTL deletions from the links table's DynamoDB stream
// into tombstones, so an expired code answers 410 and is not issued again
// until its grace period has passed (docs/lifecycle.md). The Lambda in
// functions/ttlstream and the local run's stream poller run this same
// handler.
//
// # Which records count
//
// Only deletions made by DynamoDB's TTL process, recognised exactly as AWS
// marks them: eventName "REMOVE" with userIdentity type "Service" and
// principalId "dynamodb.amazonaws.com". INSERT and MODIFY records, and
// REMOVE records without that identity (a DeleteItem by a caller, or a TTL
// deletion replicated from another Region of a global table, which arrives
// as a plain REMOVE), are ignored. The event source mapping carries
// tableschema.TTLDeletionPattern so those records never invoke the
// function at all; the
// handler checks again because a filter is configuration and this is the
// rule.
//
// # Global tables
//
// TTL deletions are identifiable only in the Region where they happened:
// that Region's stream carries the service identity, the other replicas'
// streams carry a plain REMOVE. So the consumer runs in every Region, acts
// only on the deletions identified in its own Region, and writes every
// tombstone to the primary Region's replica (PRIMARY_REGION), the one
// Region the deployment writes links in. The tombstone's condition (no item,
// or an expired item that is not a tombstone) is evaluated there, against
// the same replica every create is checked against, so it can never cover a
// link created since, and a second write for the same expiry (a redelivered
// record, or two Regions expiring the same item) changes nothing. A
// replicated delete that reaches the primary after the tombstone carries an
// older timestamp and loses under last-writer-wins. docs/lifecycle.md has
// the whole argument.
//
// # Failures
//
// A batch never fails as a whole. Each record that could not be handled is
// reported in the response's BatchItemFailures by its sequence number:
//
//   - a store error (DynamoDB slow or down): the record is retried;
//   - a poison record, a TTL deletion whose OldImage holds no string code
//     (a stream not configured NEW_AND_OLD_IMAGES, or an item that is not a
//     link): it can never succeed, and is reported all the same, so that
//     the event source mapping's bounded retries (MaximumRetryAttempts),
//     BisectBatchOnFunctionError and on-failure destination (an SQS queue)
//     park it instead of it being silently lost.
//
// Lambda checkpoints at the lowest reported sequence number and redelivers
// everything from there, so the handler keeps going after a failure and
// reports each one; the records it handled after the first failure are
// redelivered and find their tombstone already written. Both kinds are
// logged and counted (RecordFailed, RecordPoison).
package ttlstreamfn
