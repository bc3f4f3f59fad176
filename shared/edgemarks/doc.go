// Package edgemarks lets the management API skip the CloudFront
// invalidation of a link no edge can hold, and keeps a Region whose
// replica lags behind a change from giving the old link a long edge life.
//
// An edge can keep an answer past the bounds docs/lifecycle.md ("How fast
// a change shows") gives without an invalidation only when the redirect
// origin sent it with a long s-maxage, and it does that only for an answer
// built from a fresh read. Before it sends such an answer, the redirect
// records for the link's code "the edge may hold an answer until U" in its
// Region's marks table (Marker, over dynamo.MarkStore), and the answer
// leaves only once the mark is durable; a mark it cannot write makes the
// answer short-lived instead.
//
// When the management API saves a change, it fences the code in the marks
// table of every Region whose redirect serves the edge (Check.Fence): one
// atomic write per Region that records the change's time and returns the
// mark as it stood. A mark is conditional on the fence being no later
// than the data its answer was built from, so an answer built from the
// link before the change either marked before the fence, and the fence
// returns its mark, or is refused (ErrFenced) and leaves short-lived,
// however far that Region's replica lags. After its settle time, the API
// invalidates when any returned mark still runs or any fence failed, and
// skips the invalidation (and its price, $0.005 a path past the first
// 1,000 a month) otherwise. docs/lifecycle.md, "Which changes need an
// invalidation" and "A replica that lags", has the argument.
//
// What it costs, measured on DynamoDB Local with ReturnConsumedCapacity
// (shared/dynamo's TestCapacity): a mark is one UpdateItem of 1 WRU
// (its item holds a code and a few numbers, far below 1 KB), written for
// every answer that needs one (a process cannot remember its marks: only
// the table sees a fence written since); a mark that fails its condition
// is billed 1 WRU too
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html:
// the SDK's error carries no consumed capacity to measure). A fence is
// one UpdateItem of 1 WRU per Region and change, and a second when the
// code's mark reaches past the fence's life (the first then fails its
// condition); it reads nothing, since the write returns the mark it
// replaced.
package edgemarks
