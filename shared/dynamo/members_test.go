package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/workspace"
	"github.com/shortlink-dev/shortener/shared/workspace/workspacetest"
)

func newMembersTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "members")
	require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Members()))
	return db, table
}

func TestMemberStoreOnDynamoDBLocal(t *testing.T) {
	workspacetest.Run(t, func(t *testing.T) workspace.Store {
		db, table := newMembersTable(t)
		return dynamo.NewMemberStore(db, dynamo.Config{Table: table}, true)
	})
}

// Two admins each demoting the other at once: the counted record lets
// exactly one through, so the workspace keeps an admin.
func TestMemberStoreConcurrentDemotions(t *testing.T) {
	ctx := context.Background()
	db, table := newMembersTable(t)
	s := dynamo.NewMemberStore(db, dynamo.Config{Table: table}, true)
	at := time.Now().UTC().Truncate(time.Millisecond)
	for _, u := range []string{"alice", "bob"} {
		require.NoError(t, s.Put(ctx, workspace.Member{Workspace: "team", User: u, Role: workspace.RoleAdmin, AddedAt: at}))
	}
	errs := make(chan error, 2)
	for _, u := range []string{"alice", "bob"} {
		go func() {
			errs <- s.Put(ctx, workspace.Member{Workspace: "team", User: u, Role: workspace.RoleViewer, AddedAt: at})
		}()
	}
	var failed int
	for range 2 {
		if err := <-errs; err != nil {
			failed++
		}
	}
	assert.LessOrEqual(t, 1, failed, "at most one demotion passes")
	ms, err := s.List(ctx, "team")
	require.NoError(t, err)
	var admins int
	for _, m := range ms {
		if m.Role == workspace.RoleAdmin {
			admins++
		}
	}
	assert.GreaterOrEqual(t, admins, 1)
	w, err := s.Workspace(ctx, "team")
	require.NoError(t, err)
	assert.Equal(t, admins, w.Admins, "the count is the members'")
}

// A malformed member item never works as a membership.
func TestMalformedMemberItem(t *testing.T) {
	ctx := context.Background()
	db, table := newMembersTable(t)
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		tableschema.AttrWorkspace: &types.AttributeValueMemberS{Value: "team"},
		tableschema.AttrSK:        &types.AttributeValueMemberS{Value: tableschema.MemberSK("mallory")},
		tableschema.AttrMemberSub: &types.AttributeValueMemberS{Value: "mallory"},
		tableschema.AttrRole:      &types.AttributeValueMemberS{Value: "owner"},
	}})
	require.NoError(t, err)
	s := dynamo.NewMemberStore(db, dynamo.Config{Table: table}, true)
	_, err = s.Get(ctx, "team", "mallory")
	assert.ErrorIs(t, err, workspace.ErrInvalid)
}
