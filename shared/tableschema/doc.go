// Package tableschema names what the service's DynamoDB tables hold
// (links, idempotency, reservations, API keys, click analytics, miss
// budgets, edge marks, webhooks) and describes each table's keys,
// secondary indexes, stream and TTL attribute. It is data only and imports
// no SDK, so infra/ (which deploys the tables), shared/dynamo (which reads
// and writes their items) and internal/localtable (which creates them on
// DynamoDB Local) use the same definitions and cannot drift apart.
//
// It also holds the one definition of a TTL deletion in the links table's
// stream, which the event source mapping's filter, the ttlstream consumer
// and the local stream poller all follow.
package tableschema
