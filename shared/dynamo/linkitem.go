package dynamo

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
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
		tableschema.AttrCode:         str(t.Code),
		tableschema.AttrStatus:       str(string(link.StatusTombstone)),
		tableschema.AttrTombstonedAt: num(t.TombstonedAt.UnixMilli()),
		tableschema.AttrReclaimAfter: num(t.ReclaimAfter.Unix()),
		tableschema.AttrTombReason:   str(t.Reason),
		tableschema.AttrTombShard:    str(shard(t.Code)),
	}
	if t.PrevOwner != "" {
		item[tableschema.AttrPrevOwner] = str(t.PrevOwner)
	}
	if t.ExpiredURL != "" && t.Reason == link.ReasonExpired {
		item[tableschema.AttrExpiredURL] = str(t.ExpiredURL)
	}
	return item
}

func unmarshalTombstone(item map[string]types.AttributeValue) (link.Tombstone, error) {
	var t link.Tombstone
	code, err := getS(item, tableschema.AttrCode, nil)
	status, err := getS(item, tableschema.AttrStatus, err)
	at, err := getN(item, tableschema.AttrTombstonedAt, err)
	after, err := getN(item, tableschema.AttrReclaimAfter, err)
	if err == nil && status != string(link.StatusTombstone) {
		err = fmt.Errorf("status %q is not a tombstone", status)
	}
	if err != nil {
		return t, fmt.Errorf("decode tombstone item: %w", err)
	}
	t.Code = code
	t.PrevOwner, _ = getS(item, tableschema.AttrPrevOwner, nil)
	t.Reason, _ = getS(item, tableschema.AttrTombReason, nil)
	t.ExpiredURL, _ = getS(item, tableschema.AttrExpiredURL, nil)
	t.TombstonedAt = time.UnixMilli(at).UTC()
	t.ReclaimAfter = time.Unix(after, 0).UTC()
	return t, nil
}

// marshalLink writes the item by hand rather than through attributevalue's
// reflection: the redirect path decodes one item per miss and the layout
// is small and fixed. purgeDelay places the TTL attribute after the expiry.
func marshalLink(l link.Link, purgeDelay time.Duration) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		tableschema.AttrCode:           str(l.Code),
		tableschema.AttrURL:            str(l.URL),
		tableschema.AttrOwner:          str(l.Owner),
		tableschema.AttrCreatedAt:      num(l.CreatedAt.UnixMilli()),
		tableschema.AttrUpdatedAt:      num(l.UpdatedAt.UnixMilli()),
		tableschema.AttrExpiresAt:      num(l.ExpiresAt.Unix()),
		tableschema.AttrPurgeAt:        num(l.ExpiresAt.Add(purgeDelay).Unix()),
		tableschema.AttrExpShard:       str(shard(l.Code)),
		tableschema.AttrStatus:         str(string(l.Status)),
		tableschema.AttrVersion:        num(l.Version),
		tableschema.AttrRedirectStatus: num(int64(l.RedirectStatus)),
		tableschema.AttrCustomAlias:    &types.AttributeValueMemberBOOL{Value: l.CustomAlias()},
	}
	if l.Alias != "" {
		item[tableschema.AttrAlias] = str(l.Alias)
	}
	marshalFeatures(item, l.Features)
	if l.ImportedClicks > 0 {
		item[tableschema.AttrImportedClicks] = num(l.ImportedClicks)
	}
	return item
}

func unmarshalLink(item map[string]types.AttributeValue) (link.Link, error) {
	var (
		l   link.Link
		err error
	)
	l.Code, err = getS(item, tableschema.AttrCode, err)
	if s, ok := item[tableschema.AttrStatus].(*types.AttributeValueMemberS); ok && s.Value == string(link.StatusTombstone) && err == nil {
		// A tombstone keeps no target; the redirect only needs to know it
		// is one, an expired link's after-expiry URL, when the code may be
		// released (its 410 must leave the edge by then), and when it was
		// written.
		t := link.Tombstone{Code: l.Code}
		t.ExpiredURL, _ = getS(item, tableschema.AttrExpiredURL, nil)
		if after, err := getN(item, tableschema.AttrReclaimAfter, nil); err == nil {
			t.ReclaimAfter = time.Unix(after, 0).UTC()
		}
		// Its time is the change its edge mark is compared with
		// (shared/edgemarks): without it every 410 would be fenced.
		if at, err := getN(item, tableschema.AttrTombstonedAt, nil); err == nil {
			t.TombstonedAt = time.UnixMilli(at).UTC()
		}
		return t.AsLink(), nil
	}
	l.URL, err = getS(item, tableschema.AttrURL, err)
	l.Owner, _ = getS(item, tableschema.AttrOwner, nil) // tombstones carry no owner
	l.Alias, _ = getS(item, tableschema.AttrAlias, nil)
	status, err := getS(item, tableschema.AttrStatus, err)
	l.Status = link.Status(status)
	created, err := getN(item, tableschema.AttrCreatedAt, err)
	updated, _ := getN(item, tableschema.AttrUpdatedAt, nil)
	expires, err := getN(item, tableschema.AttrExpiresAt, err)
	l.Version, err = getN(item, tableschema.AttrVersion, err)
	rs, err := getN(item, tableschema.AttrRedirectStatus, err)
	if err == nil {
		l.Features, err = unmarshalFeatures(item)
	}
	if _, ok := item[tableschema.AttrImportedClicks]; ok {
		l.ImportedClicks, err = getN(item, tableschema.AttrImportedClicks, err)
	}
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
