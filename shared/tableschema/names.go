package tableschema

// Attribute names. A name used by several tables is one constant: "code"
// is the links and analytics tables' partition key, "expires_at" the
// idempotency and analytics tables' TTL attribute.
const (
	// AttrCode is the link's code (its storage key): the links table's
	// and the analytics table's partition key.
	AttrCode        = "code"
	AttrURL         = "url"
	AttrOwner       = "owner_id"
	AttrAlias       = "alias"
	AttrCustomAlias = "custom_alias"
	// AttrCreatedAt is when a link (epoch milliseconds) or an API key was
	// created.
	AttrCreatedAt = "created_at"
	AttrUpdatedAt = "updated_at" // epoch milliseconds
	// AttrExpiresAt is a link's expiry, epoch seconds: readers enforce it
	// (410 from that second on). On the idempotency and analytics tables
	// it is the TTL attribute.
	AttrExpiresAt      = "expires_at"
	AttrStatus         = "status"
	AttrVersion        = "version"
	AttrRedirectStatus = "redirect_status"
	// AttrPurgeAt is the links table's TTL attribute, epoch seconds: a
	// delay after expires_at. The reclaim run's expiry sweep turns an
	// expired link into its tombstone in place long before then, so TTL,
	// and ttlstream after it, are only the backstop (see
	// docs/lifecycle.md). Tombstones carry none: only reclaim removes them.
	AttrPurgeAt = "purge_at"
	// AttrExpShard is the expiring-links index's partition key: only links
	// carry it, so a tombstone leaves that index.
	AttrExpShard = "exp_shard"

	// Redirect rules (shared/link.Features), each absent when the link
	// does not use it, so items written before them read back with none.
	// AttrPasswordHash holds the encoded Argon2id hash, never a password;
	// AttrRules is a list of maps (AttrURL and one list of strings per
	// condition, kept in order and named as the condition is in the API:
	// shared/link.Conditions' Name), AttrTargets a list of maps (AttrURL,
	// AttrWeight).
	AttrPasswordHash = "password_hash"
	AttrMaxClicks    = "max_clicks"
	AttrRules        = "rules"
	AttrTargets      = "targets"
	AttrExpiredURL   = "expired_url"
	AttrWeight       = "weight"
	// AttrForwardQuery is BOOL false when the link keeps the visitor's
	// query from its destination; AttrQueryPrecedence is "visitor" when
	// the visitor's values win. Each absent for the default.
	AttrForwardQuery    = "forward_query"
	AttrQueryPrecedence = "query_precedence"
	// AttrImportedClicks is a link's imported click total
	// (link.Link.ImportedClicks), absent when it has none. Not in the
	// by-owner index (ByOwnerAttributes is frozen): listings leave it out.
	AttrImportedClicks = "imported_clicks"

	// Tombstone attributes. AttrTombShard is the sparse index's partition
	// key: only tombstones carry it, so the index holds nothing else.
	AttrTombstonedAt = "tombstoned_at" // epoch milliseconds
	AttrReclaimAfter = "reclaim_after" // epoch seconds
	AttrPrevOwner    = "prev_owner_id"
	AttrTombReason   = "tomb_reason"
	AttrTombShard    = "tomb_shard"

	// Idempotency records: the partition key joins owner and
	// Idempotency-Key.
	AttrIdemPK       = "pk"
	AttrIdemHash     = "request_hash"
	AttrIdemResponse = "response"

	// Reservation table (MRSC): one partition key for code reservations
	// ("code#" + code) and idempotency claims ("idem#" + owner and key).
	// Reservations carry AttrOwner, AttrVersion, AttrCreatedAt (reserved),
	// AttrUpdatedAt; claims AttrIdemHash, AttrCode, AttrIdemResponse,
	// AttrExpiresAt (never a TTL: MRSC has none) and AttrResLink.
	AttrResPK    = "pk"
	AttrResState = "res_state" // pending | live | deleted; claims: pending | done
	AttrResToken = "token"     // the create a pending entry belongs to
	AttrResClaim = "claim"     // on a reservation: the claim it was made under
	AttrResLease = "lease_until"
	AttrResLink  = "link" // on a claim: the link item its create writes

	// API keys: the partition key is the key's SHA-256; an item also
	// carries AttrOwner, AttrStatus and AttrCreatedAt.
	AttrKeyHash   = "key_hash"
	AttrRevokedAt = "revoked_at"
	AttrNote      = "note"
	// AttrKeyExpiresAt is when a key stops working, epoch milliseconds
	// like AttrCreatedAt; absent is never. Not a TTL attribute: an expired
	// key stays listed, as a revoked one does.
	AttrKeyExpiresAt = "key_expires_at"

	// Click counters: the sort key is the bucket (kind, time, dimension);
	// AttrSequence is on checkpoint items only.
	AttrBucket   = "bucket"
	AttrTotal    = "total"
	AttrHuman    = "human"
	AttrBot      = "bot"
	AttrSequence = "seq"

	// Miss budgets (shared/missbudget): the partition key joins a client
	// (its address, an IPv6 one cut to its /64) and the start of a window;
	// AttrMisses counts the unknown codes it asked for in that window. The
	// TTL attribute is AttrExpiresAt.
	AttrClientWindow = "client_window"
	AttrMisses       = "misses"

	// Edge marks (shared/edgemarks): the partition key is AttrCode, and
	// AttrHeldUntil (epoch seconds) is until when the edge may hold an
	// answer about that code; it is the TTL attribute too, so a mark is
	// deleted for free once it no longer says anything.
	AttrHeldUntil = "held_until"

	// Webhooks table (shared/webhook): the partition key is AttrOwner, the
	// sort key AttrSK ("sub#<id>" for a subscription,
	// "dlv#<id>#<time>#<event>#<attempt>" for a delivery attempt).
	// Subscriptions carry AttrURL, AttrEvents, AttrHumanOnly, AttrSecret,
	// AttrCreatedAt (epoch milliseconds) and AttrDisabled; attempts
	// AttrEvent, AttrEventID, AttrAttempt, AttrStatus, AttrResponseCode,
	// AttrAt and AttrNextRetry (epoch milliseconds) and AttrExpiresAt, the
	// TTL attribute (epoch seconds). The version item (WebhookVersionOwner)
	// carries AttrWebhookVersion.
	AttrSK             = "sk"
	AttrEvents         = "events"
	AttrHumanOnly      = "human_only"
	AttrSecret         = "secret"
	AttrDisabled       = "disabled"
	AttrEvent          = "event"
	AttrEventID        = "event_id"
	AttrAttempt        = "attempt"
	AttrResponseCode   = "response_code"
	AttrAt             = "at"
	AttrNextRetry      = "next_retry"
	AttrWebhookVersion = "v"
)

// Members table (shared/workspace): the partition key is AttrWorkspace
// (the workspace ID, the owner ID of its links), the sort key AttrSK
// (MemberWorkspaceSK for the workspace's record, MemberSK(sub) for a
// member). A member carries AttrMemberSub (the by-user index's key),
// AttrRole, AttrAddedAt (epoch milliseconds) and AttrAddedBy; the record
// AttrCreatedAt, AttrAddedBy (who created it) and AttrAdmins, the count
// of admin members.
const (
	AttrWorkspace = "workspace"
	AttrMemberSub = "member_sub"
	AttrRole      = "role"
	AttrAddedAt   = "added_at"
	AttrAddedBy   = "added_by"
	AttrAdmins    = "admins"
)

// MemberWorkspaceSK is the sort key of a workspace's own record.
const MemberWorkspaceSK = "workspace"

// MemberSK is the sort key of a member's item: "user#" and the subject.
func MemberSK(sub string) string { return "user#" + sub }

// IndexByUser is the members table's index of a user's memberships.
const IndexByUser = "by-user"

// IndexKeysByOwner is the keys table's index of an owner's keys, oldest
// first: GET /v1/keys is one Query of it.
const IndexKeysByOwner = "keys-by-owner"

// Audit table (shared/audit): the partition key is AttrOwner (the
// workspace), the sort key AttrSK (the entry ID). An entry carries AttrAt
// (epoch milliseconds), AttrActor, AttrUsername (a signed-in user's),
// AttrSource, AttrAction, AttrTargetType, AttrTargetID and AttrBefore and
// AttrAfter (JSON, redacted; each absent when there is no such side), and
// AttrPurgeAt (epoch seconds) only under a configured retention.
const (
	AttrActor      = "actor"
	AttrUsername   = "username"
	AttrSource     = "source"
	AttrAction     = "action"
	AttrTargetType = "target_type"
	AttrTargetID   = "target_id"
	AttrBefore     = "before"
	AttrAfter      = "after"
)

// WebhookVersionOwner is the partition key of the webhooks table's version
// item, which counts every change of any subscription. It has a space,
// which no owner ID has (apikey.CheckOwner), so it is no owner's item and
// no owner's Query reads it; the fan-out functions' grant (infra/webhooks)
// names it as the one item they may GetItem.
const WebhookVersionOwner = " subscriptions"

// WebhookReadableAttributes are the attributes of the webhooks table a
// reader that fans events out may read: every attribute of a subscription
// and of the version item but the signing secret. The store's List and
// Version project onto them, and infra/webhooks conditions the grants of
// webhookstream and clicks on them (dynamodb:Attributes,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html),
// so only the webhooks API (which writes the secret) and the delivery
// function (Get, to sign) ever read a secret.
var WebhookReadableAttributes = []string{AttrOwner, AttrSK, AttrURL, AttrEvents, AttrHumanOnly, AttrCreatedAt, AttrDisabled, AttrWebhookVersion}

// Index names of the links table.
const (
	// IndexByOwner lists an owner's links newest first.
	IndexByOwner = "by-owner"
	// IndexDueTombstones finds tombstones by reclaim time.
	IndexDueTombstones = "due-tombstones"
	// IndexExpiringLinks finds links by expiry (exp_shard, expires_at),
	// projecting the owner for the tombstone.
	IndexExpiringLinks = "expiring-links"
	// IndexByOwnerAll lists an owner's links newest first with every
	// attribute (title, notes and tags among them).
	IndexByOwnerAll = "by-owner-all"
)

// A link's title, notes and tags (shared/link.Meta), each absent when the
// link has none; tags are a list of strings in the link's order. The tags
// table (LinkTags) keys its items by AttrTagPK and AttrSK; membership items
// carry AttrCode, counter items AttrTagCount.
const (
	AttrTitle    = "title"
	AttrNotes    = "notes"
	AttrTags     = "tags"
	AttrTagPK    = "pk"
	AttrTagCount = "n"
)
