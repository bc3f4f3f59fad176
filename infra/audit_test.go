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

// TestAuditTable: the audit log is a global table in every Region, kept
// (PITR in the primary, deletion protection, retained), Standard-IA, with
// TTL only when the context sets a retention.
func TestAuditTable(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			found := s.data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesAudit")
			require.Len(t, found, 1)
			p := found[0].Props
			assert.Equal(t, []any{
				map[string]any{"AttributeName": tableschema.AttrOwner, "KeyType": "HASH"},
				map[string]any{"AttributeName": tableschema.AttrSK, "KeyType": "RANGE"},
			}, p["KeySchema"])
			assert.Equal(t, "EVENTUAL", p["MultiRegionConsistency"])
			if s.cfg.AuditRetentionDays == 0 {
				assert.Nil(t, p["TimeToLiveSpecification"], "by default entries are kept")
			} else {
				assert.Equal(t, map[string]any{"AttributeName": tableschema.AttrPurgeAt, "Enabled": true}, p["TimeToLiveSpecification"])
			}
			var regions []string
			for _, r := range asSlice(p["Replicas"]) {
				region := get(r, "Region").(string)
				regions = append(regions, region)
				assert.Equal(t, region == s.cfg.PrimaryRegion, get(r, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"),
					"PITR in the primary's replica only: %s", region)
				assert.Equal(t, true, get(r, "DeletionProtectionEnabled"))
				assert.Equal(t, "STANDARD_INFREQUENT_ACCESS", get(r, "TableClass"), "written once, rarely read: storage dominates")
			}
			sort.Strings(regions)
			want := slices.Clone(s.cfg.Regions)
			sort.Strings(want)
			assert.Equal(t, want, regions)
			raw := s.data()["Resources"].(map[string]any)[found[0].ID].(map[string]any)
			assert.Equal(t, "Retain", raw["DeletionPolicy"])
		})
	}
}

// TestAuditTableGrants: the writers (create, manage, webhooks) may only
// PutItem on the audit table, the reader (manage) Query besides; nobody
// may update or delete an entry, and no other function touches it.
func TestAuditTableGrants(t *testing.T) {
	want := map[string][]string{
		"create":   {"dynamodb:PutItem"},
		"manage":   {"dynamodb:PutItem", "dynamodb:Query"},
		"webhooks": {"dynamodb:PutItem"},
	}
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
						if !strings.Contains(res, "tablesaudit") {
							continue
						}
						assert.NotContains(t, res, "/index/")
						wantRegion := region
						if name == "webhooks" {
							wantRegion = s.cfg.PrimaryRegion // in the subscriptions' transactions
						}
						assert.Contains(t, res, "arn:aws:dynamodb:"+wantRegion+":", "%s writes the replica of its change's Region", name)
						actions = append(actions, st.Actions...)
					}
					sort.Strings(actions)
					assert.Equal(t, want[name], actions, "%s on the audit table", name)
					env := get(fn.Props, "Environment", "Variables").(map[string]any)
					if want[name] != nil {
						assert.NotEmpty(t, env["AUDIT_TABLE"], name)
					}
					if s.cfg.AuditRetentionDays > 0 && want[name] != nil {
						assert.Equal(t, "400", env["AUDIT_RETENTION_DAYS"], name)
					}
				}
			})
		}
	}
}
