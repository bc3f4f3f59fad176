// Package dynamo is the service's one DynamoDB layer: every store the
// domain packages define (linkstore, clickstore, apikey, linkcounter,
// missbudget, edgemarks, webhook) implemented over the tables
// tableschema describes. It is the only package that knows the items'
// layout: which attributes an item carries (their names are
// tableschema's), how times are encoded, which conditions guard each
// write, and how DynamoDB's errors become the domain's. What every store
// shares is written once: the calls they make (API), a table and its bound
// on each call (Config), and the mapping of errors (Wrap, Unavailable).
// Each store is one file, built by a constructor named for it
// (NewLinkStore, NewLedger, NewClickStore, NewKeyStore, NewCounter,
// NewMissCounter, NewMarkStore, NewWebhookStore, NewOutbox). The packed
// click layout, which earns a package of its own, is packedclicks. The
// tables themselves come from infra/ in AWS and from internal/localtable
// on DynamoDB Local.
//
// # Errors
//
// Unavailable tells which DynamoDB errors are worth a retry: the ones
// that mean "slow, busy or down", not "you asked for something wrong".
// Every store maps these to link.ErrUnavailable, which the API answers
// with a retryable 503. Throttling and transaction conflicts are listed at
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
// and in the TransactionCanceledException section of
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html.
// A multi-Region strongly consistent (MRSC) global table answers two
// Regions writing one item at once with ReplicatedWriteConflictException,
// which AWS marks retryable
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
//
// # Links
//
// LinkStore keeps links in two tables (tableschema.Links and
// tableschema.Idempotency): the links table (key "code"; "purge_at" is its
// TTL attribute, epoch seconds) and the idempotency table (key "pk" =
// owner and Idempotency-Key; TTL'd on "expires_at"). Keeping idempotency
// records out of the links table keeps their TTL deletions out of the
// links stream, whose TTL deletions mean "a link expired". Ledger keeps
// code reservations and idempotency claims in the MRSC reservation table
// (tableschema.Reservations) with single-item calls only (ItemAPI).
//
// # Click counts
//
// ClickStore keeps click counts in the analytics table: its item layout,
// the exactly-once apply of a chunk of increments as one transaction, and
// the queries behind the stats API. One table (tableschema.Analytics),
// keyed by "code" (partition key: the link's storage key) and "bucket"
// (sort key). Every counter item carries "total", "human" and "bot"
// (numbers, updated with ADD) and "expires_at" (epoch seconds, the TTL
// attribute), set from the bucket's start so a redelivered write cannot
// move it:
//
//	code     bucket                       counts per
//	Ab3dE5g  h#2026113012                 hour (UTC)             kept ClickConfig.HourRetention
//	Ab3dE5g  d#20261130                   day (UTC)              kept ClickConfig.DayRetention
//	Ab3dE5g  c#20261130#DE                day and country        kept ClickConfig.DayRetention
//	Ab3dE5g  r#20261130#news.example.com  day and referrer host  kept ClickConfig.DayRetention
//
// The prefixes keep each kind contiguous, so every stats query is one
// Query with "bucket BETWEEN": zero-padded UTC digits sort like time.
// Country and referrer items are per day only: per hour they would
// multiply the items a batch writes for little use.
//
// Checkpoints live in the same table under a partition key no code can
// have (codes never contain '#'): code "#shard#<stream ARN>/<shard ID>",
// bucket "checkpoint", attribute "seq" holding the highest Kinesis sequence
// number applied, zero-padded to 128 digits.
//
// Apply writes a chunk's increments and advances its shard's checkpoint in
// one TransactWriteItems, on the condition that the checkpoint is below
// the chunk's first sequence number (see clickstore for why a
// checkpoint): exactly once. Sequence numbers are decimal strings of up to
// 128 digits; padding them with zeros to that width lets DynamoDB compare
// them as strings in the condition. The checkpoint item expires after
// ClickConfig.CheckpointRetention without writes, which must exceed the
// event source mapping's MaximumRecordAgeInSeconds so no redelivery can
// outlive it; expiry also clears the checkpoints of closed shards.
//
// # The webhooks outbox
//
// Outbox is the clicks function's outbox of link.clicked events it could
// not queue (webhook.PendingClicks), in one partition of the analytics
// table, the one table the function writes: its role needs no other
// grant, and no stats query reads the partition, whose key begins with
// '#', which no short code does. The partition holds only what is
// waiting, so reading it whole is cheap. Items carry no TTL: an event
// waits until it is queued, and the age of the oldest one is the clicks
// function's alarm.
//
// # API keys
//
// KeyStore is the keys table (shared/apikey): one item per API key, keyed
// by the key's SHA-256, with its owner and status. The functions only read
// it (GetItem); the CLI's keys commands write it with the operator's
// credentials.
//
// # Link counters
//
// Counter keeps linkcounter's counters as small items of a table keyed by
// a string "pk" with a TTL attribute "expires_at": the idempotency table,
// which has no stream and lives in the primary Region only, so every
// Region's redirect counts against one item and the bounds hold globally.
// Keys start with a letter ("clicks#", "pw#"); an idempotency record's
// starts with a digit, so they never meet.
//
// # Miss budgets and edge marks
//
// MissCounter keeps miss budgets (shared/missbudget) in a Region's misses
// table: one item per client and window, counted with one atomic
// UpdateItem ADD per miss and deleted by TTL after its window. MarkStore
// keeps edge marks (shared/edgemarks) in a Region's marks table: one item
// per code, raised with one conditional UpdateItem and read with one
// strongly consistent GetItem, deleted by TTL once it has passed.
//
// # Webhooks
//
// WebhookStore keeps webhook subscriptions and their delivery attempts in
// one table (tableschema.Webhooks), partitioned by owner: an owner's
// subscriptions are one Query (the fan-out of each event reads no other
// owner's items), and attempts sort by time under their subscription and
// expire through TTL.
package dynamo
