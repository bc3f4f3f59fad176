// Package tables provides the service's DynamoDB tables: the links table as
// a global table (MREC) and the primary-region idempotency and analytics
// tables.
package tables
