package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// MemberStore is the members table (tableschema.Members): workspaces'
// records and their members.
//
// The last admin is kept atomically: the workspace's record counts its
// admin members, and every change that makes or unmakes an admin writes
// the member and the count in one transaction, the count conditioned on
// staying above zero. The member's own write is conditioned on the role
// read just before, so two concurrent changes cannot both pass on one
// reading (the loser gets workspace.ErrChanged).
type MemberStore struct {
	db  API
	cfg Config
	// consistent makes Get, List and Workspace strongly consistent reads.
	consistent bool
}

var _ workspace.Store = (*MemberStore)(nil)

// NewMemberStore returns a store over db; cfg.Timeout is 2 s when zero.
// consistent makes its reads of the table strongly consistent (the by-user
// index is eventually consistent whatever it says): the members API and
// the CLI read consistently before they write; the authorizer need not.
func NewMemberStore(db API, cfg Config, consistent bool) *MemberStore {
	SetDefault(&cfg.Timeout, 2*time.Second)
	return &MemberStore{db: db, cfg: cfg, consistent: consistent}
}

func memberKey(ws, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{tableschema.AttrWorkspace: str(ws), tableschema.AttrSK: str(sk)}
}

// Get implements workspace.Store.
func (s *MemberStore) Get(ctx context.Context, ws, user string) (workspace.Member, error) {
	return s.get(ctx, ws, user, s.consistent)
}

func (s *MemberStore) get(ctx context.Context, ws, user string, consistent bool) (workspace.Member, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName: &s.cfg.Table, Key: memberKey(ws, tableschema.MemberSK(user)), ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return workspace.Member{}, Wrap("get member", err)
	}
	if item == nil {
		return workspace.Member{}, workspace.ErrNotMember
	}
	return decodeMember(item)
}

// List implements workspace.Store.
func (s *MemberStore) List(ctx context.Context, ws string) ([]workspace.Member, error) {
	return s.query(ctx, &dynamodb.QueryInput{
		TableName:              &s.cfg.Table,
		KeyConditionExpression: aws.String("#w = :w AND begins_with(#sk, :p)"),
		ExpressionAttributeNames: map[string]string{
			"#w": tableschema.AttrWorkspace, "#sk": tableschema.AttrSK,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": str(ws), ":p": str(tableschema.MemberSK(""))},
		ConsistentRead:            aws.Bool(s.consistent),
	}, 0)
}

// OfUser implements workspace.Store, through the by-user index.
func (s *MemberStore) OfUser(ctx context.Context, user string, limit int) ([]workspace.Member, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.cfg.Table,
		IndexName:                 aws.String(tableschema.IndexByUser),
		KeyConditionExpression:    aws.String("#u = :u"),
		ExpressionAttributeNames:  map[string]string{"#u": tableschema.AttrMemberSub},
		ExpressionAttributeValues: map[string]types.AttributeValue{":u": str(user)},
	}
	if limit > 0 {
		in.Limit = aws.Int32(int32(min(limit, 1000)))
	}
	return s.query(ctx, in, limit)
}

func (s *MemberStore) query(ctx context.Context, in *dynamodb.QueryInput, limit int) ([]workspace.Member, error) {
	out := []workspace.Member{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() && (limit <= 0 || len(out) < limit) {
		cctx, cancel := bound(ctx, s.cfg.Timeout)
		page, err := p.NextPage(cctx)
		cancel()
		if err != nil {
			return nil, Wrap("query members", err)
		}
		if out, err = appendDecoded(out, page.Items, decodeMember); err != nil {
			return nil, err
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	workspace.SortMembers(out)
	return out, nil
}

// Put implements workspace.Store.
func (s *MemberStore) Put(ctx context.Context, m workspace.Member) error {
	if err := m.Check(); err != nil {
		return err
	}
	old, err := s.get(ctx, m.Workspace, m.User, true)
	had := err == nil
	if err != nil && !errors.Is(err, workspace.ErrNotMember) {
		return err
	}
	if had {
		// A role change keeps when and by whom the member was added.
		m.AddedAt, m.AddedBy = old.AddedAt, old.AddedBy
	}
	put := &types.Put{TableName: &s.cfg.Table, Item: encodeMember(m)}
	if had {
		put.ConditionExpression = aws.String("#r = :old")
		put.ExpressionAttributeNames = map[string]string{"#r": tableschema.AttrRole}
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":old": str(old.Role)}
	} else {
		put.ConditionExpression = aws.String("attribute_not_exists(#sk)")
		put.ExpressionAttributeNames = map[string]string{"#sk": tableschema.AttrSK}
	}
	wasAdmin, isAdmin := had && old.Role == workspace.RoleAdmin, m.Role == workspace.RoleAdmin
	delta := 0
	switch {
	case wasAdmin && !isAdmin:
		delta = -1
	case !wasAdmin && isAdmin:
		delta = 1
	}
	return s.transact(ctx, "put member", types.TransactWriteItem{Put: put}, s.count(m.Workspace, delta, m.AddedAt, m.AddedBy))
}

// count is the update of ws's record by delta admins, creating the record
// when there is none; a decrease is conditioned on an admin remaining.
func (s *MemberStore) count(ws string, delta int, at time.Time, by string) types.TransactWriteItem {
	u := &types.Update{
		TableName: &s.cfg.Table,
		Key:       memberKey(ws, tableschema.MemberWorkspaceSK),
		UpdateExpression: aws.String("SET #a = if_not_exists(#a, :zero) + :d, " +
			"#c = if_not_exists(#c, :at), #by = if_not_exists(#by, :by)"),
		ExpressionAttributeNames: map[string]string{
			"#a": tableschema.AttrAdmins, "#c": tableschema.AttrCreatedAt, "#by": tableschema.AttrAddedBy,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":zero": num(0), ":d": num(int64(delta)), ":at": millis(at), ":by": str(by),
		},
	}
	if delta < 0 {
		u.ConditionExpression = aws.String("#a > :one")
		u.ExpressionAttributeValues[":one"] = num(1)
	}
	return types.TransactWriteItem{Update: u}
}

// transact writes a member's change and its workspace's count at once: the
// first item's condition failing is ErrChanged, the count's ErrLastAdmin.
func (s *MemberStore) transact(ctx context.Context, op string, change, count types.TransactWriteItem) error {
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{change, count}})
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) && len(canceled.CancellationReasons) == 2 {
		switch {
		case aws.ToString(canceled.CancellationReasons[0].Code) == "ConditionalCheckFailed":
			return fmt.Errorf("%s: %w", op, workspace.ErrChanged)
		case aws.ToString(canceled.CancellationReasons[1].Code) == "ConditionalCheckFailed":
			return fmt.Errorf("%s: %w", op, workspace.ErrLastAdmin)
		}
	}
	return Wrap(op, err)
}

// Remove implements workspace.Store.
func (s *MemberStore) Remove(ctx context.Context, ws, user string) error {
	old, err := s.get(ctx, ws, user, true)
	if err != nil {
		return err
	}
	del := &types.Delete{
		TableName:                 &s.cfg.Table,
		Key:                       memberKey(ws, tableschema.MemberSK(user)),
		ConditionExpression:       aws.String("#r = :old"),
		ExpressionAttributeNames:  map[string]string{"#r": tableschema.AttrRole},
		ExpressionAttributeValues: map[string]types.AttributeValue{":old": str(old.Role)},
	}
	if old.Role == workspace.RoleAdmin {
		return s.transact(ctx, "remove member", types.TransactWriteItem{Delete: del}, s.count(ws, -1, old.AddedAt, old.AddedBy))
	}
	cctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	_, err = s.db.DeleteItem(cctx, &dynamodb.DeleteItemInput{
		TableName: del.TableName, Key: del.Key, ConditionExpression: del.ConditionExpression,
		ExpressionAttributeNames: del.ExpressionAttributeNames, ExpressionAttributeValues: del.ExpressionAttributeValues,
	})
	if conditionFailed(err) {
		return fmt.Errorf("remove member: %w", workspace.ErrChanged)
	}
	return Wrap("remove member", err)
}

// Workspace implements workspace.Store.
func (s *MemberStore) Workspace(ctx context.Context, ws string) (workspace.Workspace, error) {
	item, err := getItem(ctx, s.db, s.cfg.Timeout, &dynamodb.GetItemInput{
		TableName: &s.cfg.Table, Key: memberKey(ws, tableschema.MemberWorkspaceSK), ConsistentRead: aws.Bool(s.consistent),
	})
	if err != nil {
		return workspace.Workspace{}, Wrap("get workspace", err)
	}
	if item == nil {
		return workspace.Workspace{}, workspace.ErrNoWorkspace
	}
	w := workspace.Workspace{ID: ws, CreatedBy: optS(item, tableschema.AttrAddedBy), Admins: int(optN(item, tableschema.AttrAdmins))}
	if ms := optN(item, tableschema.AttrCreatedAt); ms != 0 {
		w.CreatedAt = time.UnixMilli(ms).UTC()
	}
	return w, nil
}

// Ensure implements workspace.Store: one conditional put.
func (s *MemberStore) Ensure(ctx context.Context, w workspace.Workspace) (bool, error) {
	if err := workspace.CheckID("workspace", w.ID); err != nil {
		return false, err
	}
	item := memberKey(w.ID, tableschema.MemberWorkspaceSK)
	item[tableschema.AttrAdmins] = num(0)
	item[tableschema.AttrCreatedAt] = millis(w.CreatedAt)
	if w.CreatedBy != "" {
		item[tableschema.AttrAddedBy] = str(w.CreatedBy)
	}
	ctx, cancel := bound(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.cfg.Table, Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#sk)"),
		ExpressionAttributeNames: map[string]string{"#sk": tableschema.AttrSK},
	})
	if conditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, Wrap("ensure workspace", err)
	}
	return true, nil
}

func encodeMember(m workspace.Member) map[string]types.AttributeValue {
	item := memberKey(m.Workspace, tableschema.MemberSK(m.User))
	item[tableschema.AttrMemberSub] = str(m.User)
	item[tableschema.AttrRole] = str(m.Role)
	item[tableschema.AttrAddedAt] = millis(m.AddedAt)
	if m.AddedBy != "" {
		item[tableschema.AttrAddedBy] = str(m.AddedBy)
	}
	return item
}

// decodeMember reads a member item; a malformed one is an error, never a
// membership that works.
func decodeMember(item map[string]types.AttributeValue) (workspace.Member, error) {
	m := workspace.Member{
		Workspace: optS(item, tableschema.AttrWorkspace),
		User:      optS(item, tableschema.AttrMemberSub),
		Role:      optS(item, tableschema.AttrRole),
		AddedBy:   optS(item, tableschema.AttrAddedBy),
	}
	if ms := optN(item, tableschema.AttrAddedAt); ms != 0 {
		m.AddedAt = time.UnixMilli(ms).UTC()
	}
	// An index entry carries the table's keys too, so every item read here
	// has its sort key.
	if sk := optS(item, tableschema.AttrSK); sk != tableschema.MemberSK(m.User) {
		return workspace.Member{}, fmt.Errorf("member item %q: sort key %q does not name its user", m.Workspace, sk)
	}
	if err := m.Check(); err != nil {
		return workspace.Member{}, fmt.Errorf("member item %q/%q: %w", m.Workspace, m.User, err)
	}
	return m, nil
}
