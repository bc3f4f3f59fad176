package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// AuditConfig names the audit table and bounds every call.
type AuditConfig struct {
	Table string
	// Timeout bounds each call, retries included; 2 s when zero.
	Timeout time.Duration
	// Retention, when set, is how long DynamoDB keeps an entry: each
	// carries purge_at, its time plus Retention, for TTL to delete it.
	// Zero keeps entries for ever (and the table has no TTL).
	Retention time.Duration
	// Now reads the clock; time.Now when nil.
	Now func() time.Time
}

// AuditStore is the DynamoDB audit log (tableschema.Audit): an
// audit.Recorder whose writers need only dynamodb:PutItem, and an
// audit.Reader whose reader needs only dynamodb:Query.
type AuditStore struct {
	db  API
	cfg AuditConfig
}

var (
	_ audit.Recorder = (*AuditStore)(nil)
	_ audit.Reader   = (*AuditStore)(nil)
)

// NewAuditStore returns a store over db.
func NewAuditStore(db API, cfg AuditConfig) *AuditStore {
	SetDefault(&cfg.Timeout, 2*time.Second)
	SetDefaultNow(&cfg.Now)
	return &AuditStore{db: db, cfg: cfg}
}

// entryIsNew is every audit write's condition: an entry is written once,
// never replaced.
const entryIsNew = "attribute_not_exists(#sk)"

var entryNames = map[string]string{"#sk": tableschema.AttrSK}

// Record implements audit.Recorder: one conditional PutItem.
func (s *AuditStore) Record(ctx context.Context, e audit.Entry) error {
	e = audit.Prepare(e, s.cfg.Now())
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.Table, Item: s.item(e),
		ConditionExpression: aws.String(entryIsNew), ExpressionAttributeNames: entryNames,
	})
	if conditionFailed(err) {
		return fmt.Errorf("record audit entry %s: %w", e.ID, link.ErrConflict)
	}
	return Wrap("record audit entry "+e.ID, err)
}

// Put is e (prepared: audit.Take's) as one action of the transaction of
// its change, with Record's condition.
func (s *AuditStore) Put(e audit.Entry) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.cfg.Table, Item: s.item(e),
		ConditionExpression: aws.String(entryIsNew), ExpressionAttributeNames: entryNames,
	}}
}

func (s *AuditStore) item(e audit.Entry) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		tableschema.AttrOwner:      str(e.Workspace),
		tableschema.AttrSK:         str(e.ID),
		tableschema.AttrAt:         millis(e.At),
		tableschema.AttrActor:      str(e.Actor.ID),
		tableschema.AttrSource:     str(string(e.Source)),
		tableschema.AttrAction:     str(e.Action),
		tableschema.AttrTargetType: str(string(e.Target)),
		tableschema.AttrTargetID:   str(e.TargetID),
	}
	if e.Actor.Username != "" {
		item[tableschema.AttrUsername] = str(e.Actor.Username)
	}
	if e.Before != nil {
		item[tableschema.AttrBefore] = str(string(e.Before))
	}
	if e.After != nil {
		item[tableschema.AttrAfter] = str(string(e.After))
	}
	if s.cfg.Retention > 0 {
		item[tableschema.AttrPurgeAt] = seconds(e.At.Add(s.cfg.Retention))
	}
	return item
}

func unmarshalEntry(item map[string]types.AttributeValue) (audit.Entry, error) {
	var e audit.Entry
	var err error
	var at int64
	var source, target string
	e.Workspace, err = getS(item, tableschema.AttrOwner, err)
	e.ID, err = getS(item, tableschema.AttrSK, err)
	at, err = getN(item, tableschema.AttrAt, err)
	e.Actor.ID, err = getS(item, tableschema.AttrActor, err)
	source, err = getS(item, tableschema.AttrSource, err)
	e.Action, err = getS(item, tableschema.AttrAction, err)
	target, err = getS(item, tableschema.AttrTargetType, err)
	e.TargetID, err = getS(item, tableschema.AttrTargetID, err)
	if err != nil {
		return audit.Entry{}, fmt.Errorf("decode audit entry: %w", err)
	}
	e.At, e.Source, e.Target = time.UnixMilli(at).UTC(), audit.Source(source), audit.TargetType(target)
	e.Actor.Username = optS(item, tableschema.AttrUsername)
	if v, ok := item[tableschema.AttrBefore].(*types.AttributeValueMemberS); ok {
		e.Before = json.RawMessage(v.Value)
	}
	if v, ok := item[tableschema.AttrAfter].(*types.AttributeValueMemberS); ok {
		e.After = json.RawMessage(v.Value)
	}
	return e, nil
}

// maxAuditReads bounds the Query calls of one page: a filter that matches
// few entries answers a short page with a cursor rather than read the
// whole log in one request.
const maxAuditReads = 5

// Query implements audit.Reader: newest first, within the workspace's
// partition only (the cursor names a position, never a partition), the
// time range in the key condition and the other filters in a filter
// expression. A filtered page reads up to maxAuditReads pages of
// MaxPageSize entries, and may come back short with a cursor.
func (s *AuditStore) Query(ctx context.Context, workspace string, f audit.Filter) (audit.Page, error) {
	limit := f.Limit
	if limit <= 0 || limit > audit.MaxPageSize {
		limit = audit.MaxPageSize
	}
	in := s.queryInput(workspace, f)
	filtered := in.FilterExpression != nil
	_, hi := f.KeyRange()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var out []audit.Entry
	for range maxAuditReads {
		n := audit.MaxPageSize
		if !filtered {
			n = limit - len(out) + 1 // one more: the last page has no cursor
		}
		in.Limit = aws.Int32(int32(n))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return audit.Page{}, Wrap("query the audit log of "+workspace, err)
		}
		for _, item := range res.Items {
			e, err := unmarshalEntry(item)
			if err != nil {
				return audit.Page{}, err
			}
			if e.ID != hi { // BETWEEN includes its upper end
				out = append(out, e)
			}
		}
		if len(out) > limit {
			return audit.Page{Entries: out[:limit], Next: audit.EncodeCursor(out[limit-1].ID)}, nil
		}
		if res.LastEvaluatedKey == nil {
			return audit.Page{Entries: out}, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	last, err := getS(in.ExclusiveStartKey, tableschema.AttrSK, nil)
	if err != nil {
		return audit.Page{}, fmt.Errorf("query the audit log of %s: %w", workspace, err)
	}
	return audit.Page{Entries: out, Next: audit.EncodeCursor(last)}, nil
}

func (s *AuditStore) queryInput(workspace string, f audit.Filter) *dynamodb.QueryInput {
	names := map[string]string{"#o": tableschema.AttrOwner}
	values := map[string]types.AttributeValue{":o": str(workspace)}
	key := "#o = :o"
	lo, hi := f.KeyRange()
	switch {
	case lo != "" && hi != "":
		key += " AND #sk BETWEEN :lo AND :hi"
	case lo != "":
		key += " AND #sk >= :lo"
	case hi != "":
		key += " AND #sk < :hi"
	}
	if lo != "" {
		names["#sk"], values[":lo"] = tableschema.AttrSK, str(lo)
	}
	if hi != "" {
		names["#sk"], values[":hi"] = tableschema.AttrSK, str(hi)
	}
	var conds []string
	eq := func(name, attr, v string) {
		if v == "" {
			return
		}
		names["#"+name], values[":"+name] = attr, str(v)
		conds = append(conds, "#"+name+" = :"+name)
	}
	eq("tt", tableschema.AttrTargetType, string(f.Target))
	eq("ti", tableschema.AttrTargetID, f.TargetID)
	eq("ac", tableschema.AttrActor, f.Actor)
	in := &dynamodb.QueryInput{
		TableName: &s.cfg.Table, KeyConditionExpression: aws.String(key),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ScanIndexForward: aws.Bool(false),
	}
	if len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	}
	return in
}

// takeAudit adds to a change's transaction the audit entry ctx carries
// (audit.WithPending), when the store has an audit log: it returns the
// entry's pending record for settleAudit, nil when none was added.
func takeAudit(ctx context.Context, log *AuditStore, items *[]types.TransactWriteItem) *audit.Pending {
	if log == nil {
		return nil
	}
	p, e, ok := audit.Take(ctx)
	if !ok {
		return nil
	}
	*items = append(*items, log.Put(e))
	return p
}

// settleAudit marks the entry written when its transaction committed and
// gives it back when it did not.
func settleAudit(p *audit.Pending, err error) {
	switch {
	case p == nil:
	case err == nil:
		p.Written()
	default:
		p.Untake()
	}
}
