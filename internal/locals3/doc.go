// Package locals3 plays, for the local run and the tests, the part of
// Amazon S3 the audit log's tamper-evident copy relies on
// (functions/auditarchive): a bucket with Object Lock and a default
// retention, reached by the real SDK client at a path-style endpoint
// (http://127.0.0.1:<port>/<bucket>/<key>). It is as strict as S3 about
// what that copy's promises rest on:
//
//   - PutObject to a bucket with a default retention, or with
//     x-amz-object-lock-* headers, is refused without Content-MD5 or an
//     x-amz-checksum-* header: 400 InvalidRequest "Content-MD5 OR
//     x-amz-checksum- HTTP header is required for Put Object requests with
//     Object Lock parameters"
//     (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html,
//     "Using Object Lock with ... checksums";
//     https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html).
//     x-amz-content-sha256 (the signature's payload hash) does not count.
//   - The checksum sent is verified against the body: Content-MD5 that is
//     not 16 base64-encoded bytes is 400 InvalidDigest, one that does not
//     match is 400 BadDigest; an x-amz-checksum-crc32, -crc32c, -crc64nvme,
//     -sha1 or -sha256 of the wrong form is 400 InvalidRequest, one that
//     does not match 400 BadDigest, two of them 400 InvalidRequest
//     (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html;
//     https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html).
//     A signed payload hash (x-amz-content-sha256) that does not match is
//     400 XAmzContentSHA256Mismatch.
//   - A bucket with Object Lock is versioned: every PutObject makes a new
//     version, a retried upload of one key a second version beside the
//     first; a DeleteObject without a version ID only adds a delete marker
//     (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html).
//   - A version under retention cannot be deleted (DeleteObject with its
//     version ID: 403 AccessDenied) nor its retention shortened, its mode
//     changed or removed (PutObjectRetention: 403 AccessDenied). In
//     GOVERNANCE mode both are allowed with x-amz-bypass-governance-retention:
//     true (S3 also asks the caller for s3:BypassGovernanceRetention, an IAM
//     permission this stand-in does not model); in COMPLIANCE mode never,
//     until the retain-until date has passed
//     (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html).
//
// It also answers GetObject, HeadObject (with x-amz-checksum-mode: ENABLED,
// the stored checksum) and GetObjectRetention, so a test or a person can
// verify a copy as they would on AWS. It checks that a request is signed
// with SigV4 (403 AccessDenied otherwise) but not the signature itself,
// and does not play IAM, bucket policies, encryption, multipart uploads,
// aws-chunked (streaming) uploads, legal holds or listings (501
// NotImplemented for what it does not play). Objects live in memory.
package locals3
