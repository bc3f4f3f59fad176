// Package localglobaltable plays, for the multi-Region local run, the
// replication of a DynamoDB global table in its default mode, multi-Region
// eventual consistency (MREC), between tables of one DynamoDB Local that
// stand for the replicas: one table per Region, each written by its own
// Region's functions.
//
// It follows "How DynamoDB global tables work"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html)
// and the design guide's MREC facts
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-global-table-design.html):
//
//   - A write is made, and its conditions are checked, in one replica
//     only; it reaches the others asynchronously, usually within about a
//     second (no SLA): Options.Delay after the replicator reads it from
//     that replica's stream.
//   - Concurrent writes of one item in two Regions both succeed; every
//     replica ends with the latest (last writer wins), and the losing
//     write is lost without a trace. Here the writes are ordered by when
//     the replicator read them from their replica's streams (a write's
//     own time is not in its stream record to the millisecond), ties by
//     the replicas' order.
//   - A transaction is atomic in its own replica only: its items are
//     copied one by one.
//   - A replica's stream carries the writes replicated into it too, as on
//     AWS, so a stream consumer of one replica sees every change once.
//
// How: a localstream poller per replica (no TTL sweep of its own) hands
// each change to the replicator. A change the replicator wrote itself
// comes back as an echo and is dropped. Any other is a local write: it is
// stamped with the time it was read and, Delay later, applied to each
// other replica unless that replica already holds a later write. Before
// it writes, the replicator reads the target item; if it is not what the
// replicator last knew there, a local write it has not read yet landed in
// between, which is later than the one being copied and will be copied
// out in turn, so the copy is dropped. The write itself is conditional on
// the item's version attribute when it has one, so a local write slipping
// in between the read and the write is not overwritten either.
package localglobaltable
