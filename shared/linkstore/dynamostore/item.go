package dynamostore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Attribute names of a link item. Other adapters (the stream consumer, the
// infrastructure's TTL and index definitions) use these constants rather
// than spelling the names again.
const (
	AttrCode           = "code"
	AttrURL            = "url"
	AttrOwner          = "owner_id"
	AttrAlias          = "alias"
	AttrCustomAlias    = "custom_alias"
	AttrCreatedAt      = "created_at" // epoch milliseconds
	AttrUpdatedAt      = "updated_at" // epoch milliseconds
	AttrExpiresAt      = "expires_at" // epoch seconds: the TTL attribute
	AttrStatus         = "status"
	AttrVersion        = "version"
	AttrRedirectStatus = "redirect_status"

	AttrIdemPK       = "pk"
	AttrIdemHash     = "request_hash"
	AttrIdemResponse = "response"
)

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// marshalLink writes the item by hand rather than through attributevalue's
// reflection: the redirect path decodes one item per miss and the layout
// is small and fixed.
func marshalLink(l link.Link) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		AttrCode:           str(l.Code),
		AttrURL:            str(l.URL),
		AttrOwner:          str(l.Owner),
		AttrCreatedAt:      num(l.CreatedAt.UnixMilli()),
		AttrUpdatedAt:      num(l.UpdatedAt.UnixMilli()),
		AttrExpiresAt:      num(l.ExpiresAt.Unix()),
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
