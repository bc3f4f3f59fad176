// Package createfn answers POST /v1/links and POST /v1/links/batch: it
// validates each create request, draws a code or normalises the alias,
// writes the link with a conditional put, and makes the request safe to
// retry under an Idempotency-Key. The Lambda in functions/create and the
// local gateway run this same handler; it tells the two resources apart by
// the event's resource.
//
// # A new alias at the edge
//
// Create sends no invalidation, not even for a custom alias a viewer asked
// for before it existed. The only answer the edge can hold for a code
// that did not exist is a 404, which the redirect sends with s-maxage of
// at most 10 s (the full 10 s only from a miss read under
// config.FreshRead ago), and CloudFront keeps a 404 the larger of its
// s-maxage and the error caching minimum TTL, 10 s by default
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/HTTPStatusCodes.html).
// So a new alias redirects everywhere within about 11 s of its 201, inside
// the 30 s every change promises (docs/lifecycle.md, section 6), and the
// create answers without waiting out a settle time. An invalidation per
// new alias cost about two paths at $0.005 each past the free 1,000 a
// month (docs/cost-model.md).
//
// # Bulk create
//
// A batch carries up to linkapi.MaxBatch create requests and is answered
// 200 with one result per item, in order: status 201 and the link, or the
// status and problem the single create would have answered for that item
// alone. 200 rather than 207 Multi-Status: 207 is WebDAV's, defined with an
// XML body, and HTTP clients and API Gateway tooling treat it as an oddity;
// 200 says "the batch was processed, read each result", and every whole-
// batch failure (no API key, a body that is not a batch, more than 100
// items, an Idempotency-Key reused with another body) keeps its ordinary
// problem status. One bad item never fails the others.
//
// Every item goes through the same function as a single create, so each is
// its own conditional put (or two-item transaction with its idempotency
// record): uniqueness holds per item exactly as for POST /v1/links.
// BatchWriteItem is never used, since it cannot be conditional. Items run
// with bounded concurrency (BatchConcurrency) inside a budget that keeps
// the batch within API Gateway's 29 s integration timeout and the Lambda's
// own deadline; an item the budget cuts off, or that DynamoDB throttles or
// cancels for a concurrent write, answers 503, the batch's 200 then carries
// Retry-After, and the item is retried with the batch.
//
// # Idempotency of a batch
//
// An Idempotency-Key names one request. Under a key K a batch first claims
// K itself: a conditional put of K's record (the record a single create
// under K would write) carrying the fingerprint of the whole batch body and
// no link. The claim succeeds when K is free, and is a retry when K's
// record carries this body's fingerprint; any other holder (another batch
// body, or a single create, whose fingerprints never equal a batch's) makes
// the answer 422 before anything is created. So the same key with the same
// body always replays, another body under it is always 422, whatever became
// of the first body's items, and one key never serves both a single create
// and a batch.
//
// Item i is then created with its own idempotency record under the derived
// key "K <i>" (a space, which a client's key cannot contain, so derived
// keys never meet a client's), written in the same transaction as the
// item's link and carrying the batch's fingerprint. So every item is
// exactly-once on its own, with the same guarantee and the same code path
// as a single create, and there is no record of the batch's answer that
// could be written without its links or the reverse. We chose this over
// storing the whole batch answer in one record because that record could
// not be written atomically with 100 links (a transaction holds 100
// actions, and a crash between the links and the record would let the
// retry create them again), and because 100 links of up to 8 KiB each
// would not fit DynamoDB's 400 KB item limit.
//
// After the claim, a request under K reads the records of all its items
// (strongly consistent, bounded concurrency). The items with a record
// answer their first response again (201, the same link; the response then
// carries Idempotent-Replayed: true), and the others are created now, each
// under its derived key, so a concurrent duplicate of the batch cannot
// create any item twice either. What a retry cannot replay is a first
// answer that created nothing: an item that failed is tried again, so a 503
// becomes the 201 it should have been, and a 409 stays a 409 unless the
// alias was freed in between.
package createfn
