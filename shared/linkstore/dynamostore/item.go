package dynamostore

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Attribute names of a link item. Other adapters (the stream consumer, the
// infrastructure's TTL and index definitions) use these constants rather
// than spelling the names again.
const (
	AttrCode        = "code"
	AttrURL         = "url"
	AttrOwner       = "owner_id"
	AttrAlias       = "alias"
	AttrCustomAlias = "custom_alias"
	AttrCreatedAt   = "created_at" // epoch milliseconds
	AttrUpdatedAt   = "updated_at" // epoch milliseconds
	// AttrExpiresAt is the link's expiry, epoch seconds: readers enforce
	// it (410 from that second on). On the idempotency table it is also
	// the TTL attribute.
	AttrExpiresAt      = "expires_at"
	AttrStatus         = "status"
	AttrVersion        = "version"
	AttrRedirectStatus = "redirect_status"
	// AttrPurgeAt is the links table's TTL attribute, epoch seconds:
	// expires_at + Config.PurgeDelay. The reclaim run's expiry sweep turns
	// an expired link into its tombstone in place long before then, so
	// TTL, and ttlstream after it, are only the backstop (see
	// docs/lifecycle.md). Tombstones carry none: only reclaim removes them.
	AttrPurgeAt = "purge_at"
	// AttrExpShard is the expiring-links index's partition key: only links
	// carry it, so a tombstone leaves that index.
	AttrExpShard = "exp_shard"

	// Tombstone attributes. AttrTombShard is the sparse index's partition
	// key: only tombstones carry it, so the index holds nothing else.
	AttrTombstonedAt = "tombstoned_at" // epoch milliseconds
	AttrReclaimAfter = "reclaim_after" // epoch seconds
	AttrPrevOwner    = "prev_owner_id"
	AttrTombReason   = "tomb_reason"
	AttrTombShard    = "tomb_shard"

	AttrIdemPK       = "pk"
	AttrIdemHash     = "request_hash"
	AttrIdemResponse = "response"
)

// Index names, shared with infra/.
const (
	// IndexByOwner lists an owner's links newest first.
	IndexByOwner = "by-owner"
	// IndexDueTombstones finds tombstones by reclaim time.
	IndexDueTombstones = "due-tombstones"
	// IndexExpiringLinks finds links by expiry (exp_shard, expires_at),
	// projecting the owner for the tombstone.
	IndexExpiringLinks = "expiring-links"
)

// DefaultPurgeDelay is how long after its expiry DynamoDB's TTL may remove
// a link the expiry sweep has not tombstoned: a day of reclaim runs
// (hourly when deployed) to do it first.
const DefaultPurgeDelay = 24 * time.Hour

// TombShards spreads each sparse index over this many partition values, so
// links and tombstones written at the seed's rates (and 10x) never crowd
// one index partition. Reclaim queries each.
const TombShards = 8

// shard is a code's partition value in both sparse indexes.
func shard(code string) string {
	h := fnv.New32a()
	h.Write([]byte(code))
	return strconv.Itoa(int(h.Sum32() % TombShards))
}

func marshalTombstone(t link.Tombstone) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		AttrCode:         str(t.Code),
		AttrStatus:       str(string(link.StatusTombstone)),
		AttrTombstonedAt: num(t.TombstonedAt.UnixMilli()),
		AttrReclaimAfter: num(t.ReclaimAfter.Unix()),
		AttrTombReason:   str(t.Reason),
		AttrTombShard:    str(shard(t.Code)),
	}
	if t.PrevOwner != "" {
		item[AttrPrevOwner] = str(t.PrevOwner)
	}
	return item
}

func unmarshalTombstone(item map[string]types.AttributeValue) (link.Tombstone, error) {
	var t link.Tombstone
	code, err := getS(item, AttrCode, nil)
	status, err := getS(item, AttrStatus, err)
	at, err := getN(item, AttrTombstonedAt, err)
	after, err := getN(item, AttrReclaimAfter, err)
	if err == nil && status != string(link.StatusTombstone) {
		err = fmt.Errorf("status %q is not a tombstone", status)
	}
	if err != nil {
		return t, fmt.Errorf("decode tombstone item: %w", err)
	}
	t.Code = code
	t.PrevOwner, _ = getS(item, AttrPrevOwner, nil)
	t.Reason, _ = getS(item, AttrTombReason, nil)
	t.TombstonedAt = time.UnixMilli(at).UTC()
	t.ReclaimAfter = time.Unix(after, 0).UTC()
	return t, nil
}

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// marshalLink writes the item by hand rather than through attributevalue's
// reflection: the redirect path decodes one item per miss and the layout
// is small and fixed. purgeDelay places the TTL attribute after the expiry.
func marshalLink(l link.Link, purgeDelay time.Duration) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		AttrCode:           str(l.Code),
		AttrURL:            str(l.URL),
		AttrOwner:          str(l.Owner),
		AttrCreatedAt:      num(l.CreatedAt.UnixMilli()),
		AttrUpdatedAt:      num(l.UpdatedAt.UnixMilli()),
		AttrExpiresAt:      num(l.ExpiresAt.Unix()),
		AttrPurgeAt:        num(l.ExpiresAt.Add(purgeDelay).Unix()),
		AttrExpShard:       str(shard(l.Code)),
		AttrStatus:         str(string(l.Status)),
		AttrVersion:        num(l.Version),
		AttrRedirectStatus: num(int64(l.RedirectStatus)),
		AttrCustomAlias:    &types.AttributeValueMemberBOOL{Value: l.CustomAlias()},
	}
	if l.Alias != "" {
		item[AttrAlias] = str(l.Alias)
	}
	return item
}

func unmarshalLink(item map[string]types.AttributeValue) (link.Link, error) {
	var (
		l   link.Link
		err error
	)
	l.Code, err = getS(item, AttrCode, err)
	if s, ok := item[AttrStatus].(*types.AttributeValueMemberS); ok && s.Value == string(link.StatusTombstone) && err == nil {
		// A tombstone keeps no target; the redirect only needs to know it is one.
		return link.Link{Code: l.Code, Status: link.StatusTombstone}, nil
	}
	l.URL, err = getS(item, AttrURL, err)
	l.Owner, _ = getS(item, AttrOwner, nil) // tombstones carry no owner
	l.Alias, _ = getS(item, AttrAlias, nil)
	status, err := getS(item, AttrStatus, err)
	l.Status = link.Status(status)
	created, err := getN(item, AttrCreatedAt, err)
	updated, _ := getN(item, AttrUpdatedAt, nil)
	expires, err := getN(item, AttrExpiresAt, err)
	l.Version, err = getN(item, AttrVersion, err)
	rs, err := getN(item, AttrRedirectStatus, err)
	if err != nil {
		return link.Link{}, fmt.Errorf("decode link item: %w", err)
	}
	l.CreatedAt = time.UnixMilli(created).UTC()
	l.UpdatedAt = time.UnixMilli(updated).UTC()
	l.ExpiresAt = time.Unix(expires, 0).UTC()
	l.RedirectStatus = int(rs)
	return l, nil
}

// getS and getN thread the first decoding error through a sequence of
// reads so unmarshalLink reads as a list of fields.
func getS(item map[string]types.AttributeValue, name string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("attribute %s: missing or not a string", name)
	}
	return v.Value, nil
}

func getN(item map[string]types.AttributeValue, name string, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("attribute %s: missing or not a number", name)
	}
	n, perr := strconv.ParseInt(v.Value, 10, 64)
	if perr != nil {
		return 0, fmt.Errorf("attribute %s: %w", name, perr)
	}
	return n, nil
}
