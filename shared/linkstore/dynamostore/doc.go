// Package dynamostore keeps links in DynamoDB. It is the only package that
// knows the item layout: which attributes an item carries (their names are
// tableschema's), how times are encoded, which conditions guard each
// write, and how DynamoDB's errors become the domain's.
//
// Two tables (tableschema.Links and tableschema.Idempotency): the links
// table (key "code"; "purge_at" is its TTL attribute, epoch seconds) and
// the idempotency table (key "pk" = owner and Idempotency-Key; TTL'd on
// "expires_at"). Keeping idempotency records out of the links table keeps
// their TTL deletions out of the links stream, whose TTL deletions mean "a
// link expired".
package dynamostore
