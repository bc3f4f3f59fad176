package infra_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestKeysTable: the API keys table (key hash -> owner) is a global table
// with a replica in every region, like the links table, so an owner is the
// same wherever the API runs; it is kept (PITR, deletion protection,
// retained), since losing it would orphan every owner's links.
func TestKeysTable(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			found := s.data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesKeys")
			require.Len(t, found, 1)
			p := found[0].Props
			assert.Equal(t, []any{map[string]any{"AttributeName": tableschema.AttrKeyHash, "KeyType": "HASH"}}, p["KeySchema"])
			assert.Equal(t, "EVENTUAL", p["MultiRegionConsistency"])
			assert.Equal(t, "PAY_PER_REQUEST", p["BillingMode"])
			assert.Nil(t, p["TimeToLiveSpecification"], "keys never expire by themselves")
			gsis := asSlice(p["GlobalSecondaryIndexes"])
			require.Len(t, gsis, 1, "the by-owner index, for GET /v1/keys")
			assert.Equal(t, tableschema.IndexKeysByOwner, get(gsis[0], "IndexName"))
			assert.Equal(t, "ALL", get(gsis[0], "Projection", "ProjectionType"))

			var regions []string
			for _, r := range asSlice(p["Replicas"]) {
				regions = append(regions, get(r, "Region").(string))
				assert.Equal(t, true, get(r, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"))
				assert.Equal(t, true, get(r, "DeletionProtectionEnabled"))
			}
			sort.Strings(regions)
			want := slices.Clone(s.cfg.Regions)
			sort.Strings(want)
			assert.Equal(t, want, regions, "a replica in every region, as the links table")

			raw := s.data()["Resources"].(map[string]any)[found[0].ID].(map[string]any)
			assert.Equal(t, "Retain", raw["DeletionPolicy"])
			assert.Contains(t, s.data()["Outputs"], "KeysTableName", "the CLI's keys commands need its name")
		})
	}
}

// TestKeysTableGrants: the /v1 authorizer and the /v1 functions may
// GetItem on their own region's replica of the keys table, and nothing
// else of it; no other function touches it. The manage function (the
// keys API) also writes the primary Region's replica: GetItem, PutItem
// and UpdateItem on its items and Query on its by-owner index, nothing
// else (no Scan, no DeleteItem, no other index).
func TestKeysTableGrants(t *testing.T) {
	readers := []string{"create", "manage", "stats", "webhooks", "apiauth"}
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			t.Run(s.name+"/"+region, func(t *testing.T) {
				for _, name := range slices.Concat(everyRegion, primaryOnly, v1Functions) {
					fn, ok := tp.function(name)
					if !ok {
						continue
					}
					stmts, _ := tp.roleStatements(fn)
					reads := false
					var writes []string
					for _, st := range stmts {
						res := strings.ToLower(st.Resources)
						if !strings.Contains(res, "tableskeys") {
							continue
						}
						if name == "manage" && strings.Contains(res, "arn:aws:dynamodb:"+s.cfg.PrimaryRegion+":") &&
							(region != s.cfg.PrimaryRegion || len(st.Actions) > 1 || strings.Contains(res, "/index/")) {
							if strings.Contains(res, "/index/") {
								assert.Contains(t, res, "/index/"+tableschema.IndexKeysByOwner)
								assert.Equal(t, []string{"dynamodb:Query"}, st.Actions)
							} else {
								assert.ElementsMatch(t, []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}, st.Actions)
							}
							writes = append(writes, st.Actions...)
							// In the primary, its own replica's GetItem
							// may be merged into the writes' statement.
							reads = reads || region == s.cfg.PrimaryRegion && slices.Contains(st.Actions, "dynamodb:GetItem")
							continue
						}
						assert.Equal(t, []string{"dynamodb:GetItem"}, st.Actions, "%s may only read a key", name)
						assert.Contains(t, res, "arn:aws:dynamodb:"+region+":", "%s reads its own region's replica", name)
						assert.NotContains(t, res, "/index/")
						reads = true
					}
					assert.Equal(t, slices.Contains(readers, name), reads, "%s reads the keys table", name)
					if name == "manage" {
						assert.ElementsMatch(t, []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"}, writes,
							"the keys API writes the primary Region's replica")
					} else {
						assert.Empty(t, writes)
					}
				}
			})
		}
	}
}

// TestMembersTableGrants: the /v1 authorizer may GetItem on its own
// Region's replica of the members table and Query its by-user index, and
// nothing else of it; the manage function (the members API) reads and
// writes the primary Region's replica, its items and no index; no other
// function touches it.
func TestMembersTableGrants(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			t.Run(s.name+"/"+region, func(t *testing.T) {
				for _, name := range slices.Concat(everyRegion, primaryOnly, v1Functions) {
					fn, ok := tp.function(name)
					if !ok {
						continue
					}
					stmts, _ := tp.roleStatements(fn)
					var actions []string
					for _, st := range stmts {
						res := strings.ToLower(st.Resources)
						if !strings.Contains(res, "tablesmembers") {
							continue
						}
						switch name {
						case "apiauth":
							assert.Contains(t, res, "arn:aws:dynamodb:"+region+":", "the authorizer reads its own Region's replica")
							if strings.Contains(res, "/index/") {
								assert.Contains(t, res, "/index/"+tableschema.IndexByUser)
								assert.Equal(t, []string{"dynamodb:Query"}, st.Actions)
							} else {
								assert.Equal(t, []string{"dynamodb:GetItem"}, st.Actions)
							}
						case "manage":
							assert.Contains(t, res, "arn:aws:dynamodb:"+s.cfg.PrimaryRegion+":", "the members API writes in the primary Region")
							assert.NotContains(t, res, "/index/")
							assert.ElementsMatch(t, []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"}, st.Actions)
						}
						actions = append(actions, st.Actions...)
					}
					if name == "apiauth" || name == "manage" {
						assert.NotEmpty(t, actions, "%s uses the members table", name)
					} else {
						assert.Empty(t, actions, "%s has no business with the members table", name)
					}
				}
			})
		}
	}
}

// TestMembersTable: the members table is kept as the keys table is (a
// global table in every Region, PITR, deletion protection, retained),
// keyed by workspace and sort key, with its by-user index.
func TestMembersTable(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			found := s.data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesMembers")
			require.Len(t, found, 1)
			p := found[0].Props
			assert.Equal(t, []any{map[string]any{"AttributeName": tableschema.AttrWorkspace, "KeyType": "HASH"},
				map[string]any{"AttributeName": tableschema.AttrSK, "KeyType": "RANGE"}}, p["KeySchema"])
			assert.Equal(t, "EVENTUAL", p["MultiRegionConsistency"])
			assert.Nil(t, p["TimeToLiveSpecification"], "members never expire by themselves")
			require.Len(t, asSlice(p["GlobalSecondaryIndexes"]), 1)
			assert.Equal(t, tableschema.IndexByUser, get(asSlice(p["GlobalSecondaryIndexes"])[0], "IndexName"))
			var regions []string
			for _, r := range asSlice(p["Replicas"]) {
				regions = append(regions, get(r, "Region").(string))
				assert.Equal(t, true, get(r, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"))
				assert.Equal(t, true, get(r, "DeletionProtectionEnabled"))
			}
			sort.Strings(regions)
			want := slices.Clone(s.cfg.Regions)
			sort.Strings(want)
			assert.Equal(t, want, regions)
			raw := s.data()["Resources"].(map[string]any)[found[0].ID].(map[string]any)
			assert.Equal(t, "Retain", raw["DeletionPolicy"])
			assert.Contains(t, s.data()["Outputs"], "MembersTableName", "the CLI's members commands need its name")
		})
	}
}
