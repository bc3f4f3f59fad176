// Package tableschema names what the service's four DynamoDB tables hold
// (links, idempotency, API keys, click analytics, miss budgets) and describes each
// table's keys, secondary indexes, stream and TTL attribute. It is data
// only and imports no SDK, so infra/ (which deploys the tables) and the
// stores and the local run (which create them on DynamoDB Local and read
// and write their items) use the same definitions and cannot drift apart.
//
// It also holds the one definition of a TTL deletion in the links table's
// stream, which the event source mapping's filter, the ttlstream consumer
// and the local stream poller all follow.
package tableschema
