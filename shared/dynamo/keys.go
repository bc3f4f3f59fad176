package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// KeyConfig names the table and bounds each call.
type KeyConfig struct {
	Table string
	// Timeout bounds each call; none when zero.
	Timeout time.Duration
	// ConsistentReads makes Get strongly consistent; the functions read
	// eventually consistently (half the price), the CLI consistently.
	ConsistentReads bool
}

// KeyStore is the keys table.
type KeyStore struct {
	db  API
	cfg KeyConfig
}

var _ apikey.Store = (*KeyStore)(nil)

// NewKeyStore returns the store over db.
func NewKeyStore(db API, cfg KeyConfig) *KeyStore { return &KeyStore{db: db, cfg: cfg} }

func hashKey(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrKeyHash: &types.AttributeValueMemberS{Value: hash}}
}

// Get reads the record of hash; apikey.ErrUnknown when there is none.
func (s *KeyStore) Get(ctx context.Context, hash string) (apikey.Record, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName:      &s.cfg.Table,
		Key:            hashKey(hash),
		ConsistentRead: aws.Bool(s.cfg.ConsistentReads),
	})
	if err != nil {
		return apikey.Record{}, Wrap("get api key", err)
	}
	if item == nil {
		return apikey.Record{}, apikey.ErrUnknown
	}
	return decodeKey(item)
}

// Add stores rec if no item has its hash; apikey.ErrExists otherwise.
func (s *KeyStore) Add(ctx context.Context, rec apikey.Record) error {
	if err := apikey.CheckHash(rec.Hash); err != nil {
		return err
	}
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                &s.cfg.Table,
		Item:                     encodeKey(rec),
		ConditionExpression:      aws.String("attribute_not_exists(#h)"),
		ExpressionAttributeNames: map[string]string{"#h": tableschema.AttrKeyHash},
	})
	if conditionFailed(err) {
		return apikey.ErrExists
	}
	return Wrap("add api key", err)
}

// Revoke marks hash's key revoked at at (keeping an earlier revocation's
// time) and returns the record as it now is; apikey.ErrUnknown when there
// is no such key.
func (s *KeyStore) Revoke(ctx context.Context, hash string, at time.Time) (apikey.Record, error) {
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.cfg.Table,
		Key:                 hashKey(hash),
		ConditionExpression: aws.String("attribute_exists(#h)"),
		UpdateExpression:    aws.String("SET #s = :revoked, #r = if_not_exists(#r, :at)"),
		ExpressionAttributeNames: map[string]string{
			"#h": tableschema.AttrKeyHash, "#s": tableschema.AttrStatus, "#r": tableschema.AttrRevokedAt,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":revoked": &types.AttributeValueMemberS{Value: string(apikey.StatusRevoked)},
			":at":      millis(at),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		return apikey.Record{}, apikey.ErrUnknown
	}
	if err != nil {
		return apikey.Record{}, Wrap("revoke api key", err)
	}
	return decodeKey(out.Attributes)
}

// List returns every record, of one owner when owner is not empty, oldest
// first. An owner's keys are one Query of the by-owner index (eventually
// consistent, as every index read is: a key added a moment ago may be
// missing); every key is a Scan, which only an operator makes.
func (s *KeyStore) List(ctx context.Context, owner string) ([]apikey.Record, error) {
	if owner != "" {
		return s.listOwner(ctx, owner)
	}
	p := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{TableName: &s.cfg.Table, ConsistentRead: aws.Bool(s.cfg.ConsistentReads)})
	return s.drain(ctx, p.HasMorePages, func(ctx context.Context) ([]map[string]types.AttributeValue, error) {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		return page.Items, nil
	})
}

func (s *KeyStore) listOwner(ctx context.Context, owner string) ([]apikey.Record, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.cfg.Table,
		IndexName:                 aws.String(tableschema.IndexKeysByOwner),
		KeyConditionExpression:    aws.String("#o = :o"),
		ExpressionAttributeNames:  map[string]string{"#o": tableschema.AttrOwner},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": &types.AttributeValueMemberS{Value: owner}},
	}
	p := dynamodb.NewQueryPaginator(s.db, in)
	return s.drain(ctx, p.HasMorePages, func(ctx context.Context) ([]map[string]types.AttributeValue, error) {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		return page.Items, nil
	})
}

// drain decodes every page next reads while more says there is one, each
// page within the store's timeout, and sorts the records oldest first:
// the one loop of the Scan and the by-owner Query.
func (s *KeyStore) drain(ctx context.Context, more func() bool, next func(context.Context) ([]map[string]types.AttributeValue, error)) ([]apikey.Record, error) {
	var out []apikey.Record
	for more() {
		cctx, cancel := bound(ctx, s.cfg.Timeout)
		items, err := next(cctx)
		cancel()
		if err != nil {
			return nil, Wrap("list api keys", err)
		}
		if out, err = appendDecoded(out, items, decodeKey); err != nil {
			return nil, err
		}
	}
	apikey.SortRecords(out)
	return out, nil
}

func encodeKey(rec apikey.Record) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		tableschema.AttrKeyHash:   &types.AttributeValueMemberS{Value: rec.Hash},
		tableschema.AttrOwner:     &types.AttributeValueMemberS{Value: rec.Owner},
		tableschema.AttrStatus:    &types.AttributeValueMemberS{Value: string(rec.Status)},
		tableschema.AttrCreatedAt: millis(rec.CreatedAt),
	}
	if !rec.RevokedAt.IsZero() {
		item[tableschema.AttrRevokedAt] = millis(rec.RevokedAt)
	}
	if rec.Note != "" {
		item[tableschema.AttrNote] = &types.AttributeValueMemberS{Value: rec.Note}
	}
	if !rec.ExpiresAt.IsZero() {
		item[tableschema.AttrKeyExpiresAt] = millis(rec.ExpiresAt)
	}
	// No role attribute for an admin key written without one: the items
	// written before keys had roles read back the same.
	if rec.Role != "" {
		item[tableschema.AttrRole] = &types.AttributeValueMemberS{Value: rec.Role}
	}
	return item
}

// decodeKey reads an item; a malformed one is an error, never a key that
// works.
func decodeKey(item map[string]types.AttributeValue) (apikey.Record, error) {
	str := func(name string) string {
		if v, ok := item[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	num := func(name string) (time.Time, error) {
		v, ok := item[name].(*types.AttributeValueMemberN)
		if !ok {
			return time.Time{}, nil
		}
		ms, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("api key item: %s is not a number", name)
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	rec := apikey.Record{Hash: str(tableschema.AttrKeyHash), Owner: str(tableschema.AttrOwner), Status: apikey.Status(str(tableschema.AttrStatus)), Note: str(tableschema.AttrNote), Role: str(tableschema.AttrRole)}
	var err error
	if rec.CreatedAt, err = num(tableschema.AttrCreatedAt); err != nil {
		return apikey.Record{}, err
	}
	if rec.RevokedAt, err = num(tableschema.AttrRevokedAt); err != nil {
		return apikey.Record{}, err
	}
	if rec.ExpiresAt, err = num(tableschema.AttrKeyExpiresAt); err != nil {
		return apikey.Record{}, err
	}
	if rec.Hash == "" || rec.Owner == "" || (rec.Status != apikey.StatusActive && rec.Status != apikey.StatusRevoked) {
		return apikey.Record{}, fmt.Errorf("api key item %q: no owner or no valid status", rec.Hash)
	}
	if rec.Role != "" && workspace.CheckRole(rec.Role) != nil {
		// Never a key whose role nobody wrote: it would have to be
		// guessed, and an admin guess is the widest.
		return apikey.Record{}, fmt.Errorf("api key item %q: role %q is not a role", rec.Hash, rec.Role)
	}
	return rec, nil
}
