package tableschema

// Type is an attribute's DynamoDB scalar type, as DynamoDB spells it.
type Type string

// Scalar types of key attributes.
const (
	String Type = "S"
	Number Type = "N"
)

// Attribute is a key attribute: its name and type.
type Attribute struct {
	Name string
	Type Type
}

// Projection is which attributes an index copies, as DynamoDB spells it.
type Projection string

// Projections.
const (
	ProjectAll      Projection = "ALL"
	ProjectKeysOnly Projection = "KEYS_ONLY"
	ProjectInclude  Projection = "INCLUDE"
)

// StreamView is what a table's stream records carry, as DynamoDB spells
// it; "" is no stream.
type StreamView string

// Stream views.
const (
	// NewAndOldImages: records carry the item before and after the change.
	NewAndOldImages StreamView = "NEW_AND_OLD_IMAGES"
	// NewImage: records carry the item after the change only.
	NewImage StreamView = "NEW_IMAGE"
)

// AuditArchiveStream is the audit table's stream when its entries are
// copied to S3 (functions/auditarchive) and it has none of its own: an
// entry is written once, so the new image is all there is to copy. (A
// global table with replicas has NEW_AND_OLD_IMAGES already, whose
// records carry the new image too: infra/tables keeps it.)
const AuditArchiveStream = NewImage

// Index is a global secondary index.
type Index struct {
	Name         string
	PartitionKey Attribute
	// SortKey is the zero Attribute when the index has none.
	SortKey    Attribute
	Projection Projection
	// NonKeyAttributes are the attributes an Include projection copies.
	NonKeyAttributes []string
}

// Table is what infra/ deploys and the local run creates: keys, indexes,
// stream and TTL. Billing is on demand everywhere.
type Table struct {
	PartitionKey Attribute
	// SortKey is the zero Attribute when the table has none.
	SortKey Attribute
	Indexes []Index
	Stream  StreamView
	// TTLAttribute is the TTL attribute (epoch seconds); "" is no TTL.
	TTLAttribute string
}

// Links is the links table: one item per code, a link or its tombstone.
// Its stream feeds ttlstream; the indexes are sparse except by-owner.
func Links() Table {
	return Table{
		PartitionKey: Attribute{AttrCode, String},
		Stream:       NewAndOldImages,
		// A day after the expiry: the reclaim run tombstones an expired
		// link in place first, so TTL is only the backstop.
		TTLAttribute: AttrPurgeAt,
		Indexes: []Index{
			{
				// The management API lists a caller's links, newest first.
				// It projects what a listing reads (ByOwnerAttributes), not
				// the whole item: docs/cost-model.md prices the difference.
				Name:             IndexByOwner,
				PartitionKey:     Attribute{AttrOwner, String},
				SortKey:          Attribute{AttrCreatedAt, Number},
				Projection:       ProjectInclude,
				NonKeyAttributes: ByOwnerAttributes,
			},
			{
				// Sparse: only tombstones carry tomb_shard, so reclaim
				// queries the due ones without scanning live links.
				Name:         IndexDueTombstones,
				PartitionKey: Attribute{AttrTombShard, String},
				SortKey:      Attribute{AttrReclaimAfter, Number},
				Projection:   ProjectKeysOnly,
			},
			{
				// Sparse: only links carry exp_shard, so reclaim finds the
				// expired ones to tombstone in place, with their owner.
				Name:             IndexExpiringLinks,
				PartitionKey:     Attribute{AttrExpShard, String},
				SortKey:          Attribute{AttrExpiresAt, Number},
				Projection:       ProjectInclude,
				NonKeyAttributes: []string{AttrOwner},
			},
			{
				// The listing since links carry a title, notes and tags,
				// which by-owner cannot take on (its projection is
				// frozen, see ByOwnerAttributes): the same keys with every
				// attribute. Built beside by-owner on a deployed table;
				// the link store reads by-owner until it is ACTIVE.
				Name:         IndexByOwnerAll,
				PartitionKey: Attribute{AttrOwner, String},
				SortKey:      Attribute{AttrCreatedAt, Number},
				Projection:   ProjectAll,
			},
		},
	}
}

// LinkTags is the table of which link carries which tag, per owner, and
// how many links each of an owner's tags has. Membership items (partition
// "m"+owner+tag, sort key created time and code, and a copy of the link
// item) page a tag's links newest first; counter items (partition
// "c"+owner, sort key the tag) list an owner's tags with one Query. Both
// are written in the transaction that writes the link, so they never
// disagree with the links table. A membership carries the link's TTL
// attribute (AttrPurgeAt), so TTL removes it with the link; counters have
// none and never expire.
func LinkTags() Table {
	return Table{PartitionKey: Attribute{AttrTagPK, String}, SortKey: Attribute{AttrSK, String}, TTLAttribute: AttrPurgeAt}
}

// ByOwnerAttributes are the non-key attributes a listing of an owner's
// links reads (the link store's List decodes each entry as a link): the
// by-owner index projects these and nothing else.
//
// The list is frozen: DynamoDB cannot change an existing index's
// projection ("Cannot update GSI's properties other than Provisioned
// Throughput and Contributor Insights Specification"), so a deployed
// stack would fail its next update; see UpdateTable's
// GlobalSecondaryIndexUpdates, which can only create, delete or update
// throughput:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html.
// An attribute added to the link item later is not in listings
// (linkstore.Listed says which); one a listing must show needs a new
// index, built beside this one and read once it is active.
var ByOwnerAttributes = []string{AttrURL, AttrAlias, AttrStatus, AttrUpdatedAt, AttrExpiresAt, AttrVersion, AttrRedirectStatus,
	// The redirect rules (link.Features): a listing shows them too.
	AttrPasswordHash, AttrMaxClicks, AttrRules, AttrTargets, AttrExpiredURL}

// Idempotency is the table of create requests' Idempotency-Keys, each
// remembered for a day. Kept apart from the links table so its TTL
// deletions stay out of the links stream, whose TTL deletions mean "a link
// expired".
func Idempotency() Table {
	return Table{PartitionKey: Attribute{AttrIdemPK, String}, TTLAttribute: AttrExpiresAt}
}

// Reservations is the reservation table: which code belongs to whom at
// which version, and which Idempotency-Key names which create, decided
// once for every Region. Deployed as an MRSC global table, which supports
// no TTL, no local secondary index and no transactions: so it has none of
// them, and nothing here may ever ask for one.
func Reservations() Table {
	return Table{PartitionKey: Attribute{AttrResPK, String}}
}

// Keys is the API keys table: key hash -> owner and status. Keys never
// expire by themselves (an expiry is enforced by its readers, and the
// item stays). Its by-owner index lists a workspace's keys for GET
// /v1/keys; it projects everything, an item being a few small attributes.
func Keys() Table {
	return Table{
		PartitionKey: Attribute{AttrKeyHash, String},
		Indexes: []Index{{
			Name:         IndexKeysByOwner,
			PartitionKey: Attribute{AttrOwner, String},
			SortKey:      Attribute{AttrCreatedAt, Number},
			Projection:   ProjectAll,
		}},
	}
}

// Analytics is the click counters' table: code and bucket; counters expire
// after their retention, shard checkpoints after a week without writes.
func Analytics() Table {
	return Table{
		PartitionKey: Attribute{AttrCode, String},
		SortKey:      Attribute{AttrBucket, String},
		TTLAttribute: AttrExpiresAt,
	}
}

// Misses is a Region's table of miss budgets: one small counter per client
// and window, written only when a redirect finds no link, and deleted by
// TTL once its window is over. Regional, not global: a viewer reaches one
// Region's origin, and a replica would double the price of every miss.
func Misses() Table {
	return Table{PartitionKey: Attribute{AttrClientWindow, String}, TTLAttribute: AttrExpiresAt}
}

// EdgeMarks is a Region's table of edge marks (shared/edgemarks): one
// small item per code whose answer the Region's redirect sent with a long
// edge life, saying until when the edge may hold it. Regional, not global:
// the management API reads every origin Region's table, and a replica
// would bill every mark twice. TTL deletes a mark once it has passed.
func EdgeMarks() Table {
	return Table{PartitionKey: Attribute{AttrCode, String}, TTLAttribute: AttrHeldUntil}
}

// Webhooks is the table of webhook subscriptions and their delivery
// attempts, partitioned by owner: an owner's subscriptions are one Query,
// and attempts sort by time under their subscription and expire through
// TTL (subscriptions carry no TTL attribute and never expire).
func Webhooks() Table {
	return Table{
		PartitionKey: Attribute{AttrOwner, String},
		SortKey:      Attribute{AttrSK, String},
		TTLAttribute: AttrExpiresAt,
	}
}

// Members is the table of workspaces and their members
// (shared/workspace), partitioned by workspace: a workspace's record
// (sort key MemberWorkspaceSK) and one item per member (sort key
// MemberSK(sub)). The sparse by-user index, keyed by the member's subject
// (only member items carry it), is how the /v1 authorizer finds the
// workspaces of a signed-in user without an X-Workspace header.
func Members() Table {
	return Table{
		PartitionKey: Attribute{AttrWorkspace, String},
		SortKey:      Attribute{AttrSK, String},
		Indexes: []Index{{
			Name:             IndexByUser,
			PartitionKey:     Attribute{AttrMemberSub, String},
			SortKey:          Attribute{AttrWorkspace, String},
			Projection:       ProjectInclude,
			NonKeyAttributes: []string{AttrRole, AttrAddedAt, AttrAddedBy},
		}},
	}
}

// Audit is the audit log (shared/audit): one partition per workspace (an
// owner), its entries sorted by AttrSK, the entry ID (time, then a random
// suffix), so a workspace's log in a time range is one Query. Entries are
// written once and never updated. The TTL attribute is set only when the
// deployment configures a retention (infra drops the table's TTL
// otherwise): by default entries are kept.
func Audit() Table {
	return Table{
		PartitionKey: Attribute{AttrOwner, String},
		SortKey:      Attribute{AttrSK, String},
		TTLAttribute: AttrPurgeAt,
	}
}
