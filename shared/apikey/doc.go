// Package apikey is who a caller of the /v1 API is: an API key belongs to
// an owner, and the owner, not the key, owns links. An owner outlives its
// keys (a leaked key is rotated: a new key for the same owner, the old one
// revoked) and is the same in every Region, because the keys table that
// maps a key to its owner is a global table like the links table.
//
// The table holds a key's SHA-256 (Hash), never the key itself, with its
// owner and status. API Gateway's own API keys are kept for what only they
// do, per-key throttling and quotas (usage plans); their IDs differ per
// Region and per key, so they never name an owner.
//
// Resolver answers "whose key is this?" for the handlers, caching each
// answer in-process for a short TTL (DefaultCacheTTL): a revoked key stops
// working within that TTL plus the table's replication lag (docs/deploy.md).
// The DynamoDB adapter is dynamo.KeyStore; Memory serves tests and tools.
package apikey
