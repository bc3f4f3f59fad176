package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// TestMigrateWorkspacesOnDynamoDBLocal: keys and links written as they
// were before workspaces (key items without a role), migrated twice:
// every owner gets its workspace record once, no key or link item
// changes by a byte, and every link is still read by its owner's key,
// as admin, and refused to another owner's key.
func TestMigrateWorkspacesOnDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	endpoint := testenv.DynamoDBEndpoint(t)
	db := emulator.NewDynamoDBClient(endpoint)
	keysTable, membersTable := testenv.UniqueName(t, "keys"), testenv.UniqueName(t, "members")
	linksTable, idemTable := testenv.UniqueName(t, "links"), testenv.UniqueName(t, "idem")
	require.NoError(t, localtable.Create(ctx, db, keysTable, tableschema.Keys()))
	require.NoError(t, localtable.Create(ctx, db, membersTable, tableschema.Members()))
	require.NoError(t, localtable.Links(ctx, db, linksTable, idemTable))

	created := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	keys := map[string]string{ // key -> owner, in the old layout
		"team-a-first-key-0123456789": "team-a", "team-a-second-key-012345678": "team-a", "solo-key-0123456789abcdef": "solo",
	}
	i := 0
	for key, owner := range keys {
		i++
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(keysTable), Item: map[string]types.AttributeValue{
			tableschema.AttrKeyHash:   &types.AttributeValueMemberS{Value: apikey.Hash(key)},
			tableschema.AttrOwner:     &types.AttributeValueMemberS{Value: owner},
			tableschema.AttrStatus:    &types.AttributeValueMemberS{Value: "active"},
			tableschema.AttrCreatedAt: &types.AttributeValueMemberN{Value: fmt.Sprint(created.Add(time.Duration(i) * time.Hour).UnixMilli())},
		}})
		require.NoError(t, err)
	}
	links := dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: linksTable, IdempotencyTable: idemTable, ConsistentReads: true})
	owners := map[string]string{"AbCdE01": "team-a", "AbCdE02": "team-a", "AbCdE03": "solo"}
	for code, owner := range owners {
		now := created.Add(24 * time.Hour)
		require.NoError(t, links.Create(ctx, link.Link{Code: code, URL: "https://example.com/" + code, Owner: owner, CreatedAt: now, UpdatedAt: now,
			ExpiresAt: now.Add(10 * 365 * 24 * time.Hour).Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))
	}
	before := map[string][]map[string]types.AttributeValue{linksTable: scan(t, db, linksTable), keysTable: scan(t, db, keysTable)}

	c := newCLI(t, "http://127.0.0.1:9", map[string]string{
		"SHORTENER_DYNAMODB_ENDPOINT": endpoint, "SHORTENER_KEYS_TABLE": keysTable, "SHORTENER_MEMBERS_TABLE": membersTable,
	})
	var runs []map[string]bool
	for range 2 {
		var out struct {
			Workspaces []migrated `json:"workspaces"`
		}
		require.NoError(t, json.Unmarshal([]byte(c.ok("--json", "migrate", "workspaces")), &out))
		got := map[string]bool{}
		for _, m := range out.Workspaces {
			got[m.Workspace] = m.Created
			assert.Equal(t, workspace.RoleAdmin, m.FirstRole, "%s's first key stays admin", m.Workspace)
		}
		runs = append(runs, got)
	}
	assert.Equal(t, []map[string]bool{{"team-a": true, "solo": true}, {"team-a": false, "solo": false}}, runs, "created once, left alone the second time")

	for table, items := range before {
		assert.Equal(t, items, scan(t, db, table), "no item of %s changed", table)
	}
	members := dynamo.NewMemberStore(db, dynamo.Config{Table: membersTable}, true)
	for _, ws := range []string{"team-a", "solo"} {
		w, err := members.Workspace(ctx, ws)
		require.NoError(t, err)
		assert.Equal(t, "migration", w.CreatedBy)
	}

	// The first admin, by the operator; migrating again keeps them.
	c.ok("members", "add", "--workspace", "team-a", "--user", "alice-sub", "--role", "admin")
	c.ok("migrate", "workspaces")
	w, err := members.Workspace(ctx, "team-a")
	require.NoError(t, err)
	assert.Equal(t, 1, w.Admins)
	assert.Contains(t, c.ok("members", "ls", "--workspace", "team-a"), "alice-sub")

	h := managefn.New(managefn.Options{Store: links, Config: config.Config{BaseURL: "https://sho.rt", ShortDomains: []string{"sho.rt"}},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "manage"),
		Owners: apikey.NewResolver(dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: keysTable}), apikey.ResolverOptions{}), Members: members})
	for key, owner := range keys {
		for code, linkOwner := range owners {
			ev := events.APIGatewayProxyRequest{HTTPMethod: "GET", Resource: managefn.ResourceLink, Path: "/v1/links/" + code,
				PathParameters: map[string]string{"code": code}}
			ev.RequestContext.Identity.APIKey = key
			resp, err := h.Handle(ctx, ev)
			require.NoError(t, err)
			if owner != linkOwner {
				assert.Equal(t, 404, resp.StatusCode, "another workspace's link")
				continue
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			var l linkapi.LinkDetail
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &l))
			assert.Equal(t, "https://example.com/"+code, l.URL)
		}
	}
	assert.True(t, strings.HasPrefix(c.ok("keys", "ls", "--owner", "team-a"), "HASH"))
}

func scan(t *testing.T, db *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Items
}
