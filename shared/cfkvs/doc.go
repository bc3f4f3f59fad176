// Package cfkvs makes the CloudFront KeyValueStore API calls the
// management function needs to put link versions and the reclaim run to
// sweep old ones (shared/edgeversion): DescribeKeyValueStore for the
// store's ETag, GetKey and PutKey, ListKeys (paged) and UpdateKeys (the
// sweep's batched deletes), each a REST-JSON call to the store's account
// endpoint,
// https://{account}.cloudfront-kvs.global.api.aws
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_Operations_Amazon_CloudFront_KeyValueStore.html).
//
// The API takes Signature Version 4A only (a global service signed for
// the region set "*"), which the SDK's v4 signer the other signed-call
// packages use (shared/awscall) does not make and whose v4a signer is
// internal to the SDK; linking the SDK's cloudfrontkeyvaluestore client
// would add a module. So the package signs itself (sigv4a.go): the
// ECDSA P-256 key derived from the secret key (NIST SP 800-108 counter
// mode KDF over HMAC-SHA256, as the SDK derives it), the canonical request
// of Signature Version 4, and the AWS4-ECDSA-P256-SHA256 string to sign
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
// Its test checks the key derivation and the string to sign against the
// SDK's own v4a test vectors; no call has been made to AWS with it from
// here, which docs/cost-model.md lists among what to check on AWS.
package cfkvs
