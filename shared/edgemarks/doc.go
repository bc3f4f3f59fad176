// Package edgemarks lets the management API skip the CloudFront
// invalidation of a link no edge can hold.
//
// An edge can keep an answer past the bounds docs/lifecycle.md ("How fast
// a change shows") gives without an invalidation only when the redirect
// origin sent it with a long s-maxage, and it does that only for an answer
// built from a fresh read. Before it sends such an answer, the redirect
// records for the link's code "the edge may hold an answer until U" in its
// Region's marks table (Marker, over dynamomarks.Store), and the answer
// leaves only once the mark is durable; a mark it cannot write makes the
// answer short-lived instead. After a change and its settle time, the
// management API reads the code's mark in the marks table of every Region
// whose redirect serves the edge, strongly consistently (Check); it
// invalidates when any mark still runs, when any read fails, and skips the
// invalidation (and its price, $0.005 a path past the first 1,000 a month)
// otherwise. docs/lifecycle.md, "Which changes need an invalidation", has
// the argument.
//
// What it costs, measured on DynamoDB Local with ReturnConsumedCapacity
// (dynamomarks' tests, TestCapacity): a mark is one UpdateItem of 1 WRU
// (its item holds a code and a number, far below 1 KB), conditional on
// raising the mark; a mark that fails its condition is billed 1 WRU too
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html:
// the SDK's error carries no consumed capacity to measure); a Region's check is one strongly consistent GetItem of 1 RRU,
// whether the mark exists or not. A redirect instance writes a code's mark
// at most about once an hour (Marker remembers what it wrote and marks an
// hour beyond what it needs), so a popular link costs one write per
// instance and hour, not one per edge miss.
package edgemarks
