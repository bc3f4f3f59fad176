// Package auditarchive builds the audit log's tamper-evident copy
// (context auditArchive, docs/audit.md): an S3 bucket with Object Lock and
// a default retention, its server access log bucket, the grant that lets
// functions/auditarchive put objects under KeyPrefix and nothing else, and
// that function's mapping on the audit table's NEW_IMAGE stream.
package auditarchive
