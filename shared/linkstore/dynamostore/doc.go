// Package dynamostore keeps links in DynamoDB. It is the only package that
// knows the item layout: attribute names, how times are encoded, which
// conditions guard each write, and how DynamoDB's errors become the domain's.
//
// Two tables: the links table (key "code"; "expires_at" is its TTL
// attribute, epoch seconds) and the idempotency table (key "pk" = owner and
// Idempotency-Key; also TTL'd on "expires_at"). Keeping idempotency records
// out of the links table keeps their TTL deletions out of the links stream,
// whose TTL deletions mean "a link expired".
package dynamostore
