// Package faulttest holds the fault-injection tests: the real handlers,
// the local event source mappings and DynamoDB Local and kinesalite, with
// internal/faults between the code and DynamoDB, showing the failure
// behaviour docs/api.md and docs/problems.md promise (docs/benchmarks.md,
// "4. Faults", lists each test and what it shows):
//
//   - the redirect keeps serving cached links while DynamoDB is slow or
//     failing, and answers uncached ones with a 503 within its deadline
//     (SHORTENER_REDIRECT_DB_TIMEOUT), never cached by the edge;
//   - create answers a retryable 503, and a retry with the same
//     Idempotency-Key yields exactly one link, also when the write
//     committed and only its answer was lost, and when the retry meets
//     the first attempt's transaction still in flight;
//   - every /v1 path answers DynamoDB's throttling and transaction
//     conflicts, injected as DynamoDB sends them on the wire, with a
//     retryable 503 and Retry-After, never a 500;
//   - a DynamoDB stream batch (ttlstream, through the local stream
//     poller) and a Kinesis batch (clicks, through the local Kinesis
//     poller) that fail halfway are retried without losing or counting
//     anything twice;
//   - a poison record is parked (the stream poller's on-failure hook; for
//     clicks, the poison log line and metric, by that function's design)
//     without blocking the records behind it.
//
// Only test files live here besides this one.
package faulttest
