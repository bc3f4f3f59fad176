// Package reclaimflow is the reclaim run: a loop that invokes the reclaim
// function until no tombstone is due, in bounded steps. It exists once and
// is executed two ways that cannot drift apart, because both come from here:
//
//   - Definition renders it as the Step Functions state machine (Amazon
//     States Language, a Standard workflow) that infra/ deploys and
//     EventBridge Scheduler starts;
//   - Run executes the same loop in process, for the local run and tests.
//
// Input and Output are the reclaim function's payloads in both.
//
// Each execution stops after MaxIterations invocations even if tombstones
// are still due, and reports more: true. A Standard execution fails once its
// history reaches 25,000 events; one iteration writes 9 (task 5, pass 2,
// choice 2), so 1,000 iterations use about 9,000 and leave room for some
// 5,000 retried invocations. Nothing is lost by stopping: the tombstones
// stay due, and the next scheduled execution continues where this one
// stopped. Each invocation drains tombstones for up to a minute, so one
// execution reclaims far more than a day's expiries at the seed load.
//
// Two executions that overlap (a slow run and the next schedule) are safe:
// every release is conditional on the item still being a due tombstone, so
// each code is released, and counted, once.
package reclaimflow
