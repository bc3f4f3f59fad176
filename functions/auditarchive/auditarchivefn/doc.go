// Package auditarchivefn copies the audit log to S3, where Object Lock
// keeps it from being changed or deleted for the bucket's retention: the
// tamper-evident copy of docs/audit.md.
//
// It consumes the audit table's NEW_IMAGE stream in the primary Region,
// whose replica receives every Region's entries through replication. Each
// batch's INSERT records (an entry is written once; a MODIFY is none of
// the product's, and a REMOVE, TTL's or anyone's, is never archived)
// become ONE object: JSON Lines, one entry a line in the shape GET
// /v1/audit shows (audit.View) with its workspace, in the batch's order.
// Its key is fixed by the records it holds,
// audit/YYYY/MM/DD/<first sequence number>-<last sequence number>.jsonl
// (the day of the first record's stream time, UTC), so a retried batch
// writes the same key again: the bucket is versioned, as every bucket with
// Object Lock is, so the retry is a second version of that key with the
// same lines, and the first stays, locked.
//
// The upload carries the body's SHA-256 (x-amz-checksum-sha256), computed
// here: S3 refuses an upload without Content-MD5 or an x-amz-checksum-*
// header to a bucket with a default retention
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html),
// and the SDK computes none by default for the functions' hand-built
// aws.Config (shared/fnclients). S3 verifies it and keeps it, so anyone
// can check an object later (docs/audit.md).
//
// Failures are reported per record (a partial batch response): a record
// whose image is not an audit entry stops the object before it, and it
// and every INSERT after it are reported; a failed upload reports every
// INSERT of the batch. Lambda retries from the lowest sequence number
// reported, so nothing is acknowledged that is not in an object.
package auditarchivefn
