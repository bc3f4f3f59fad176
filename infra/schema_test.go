package infra_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	infratables "github.com/shortlink-dev/shortener/infra/tables"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestTablesMatchTheLocalSchema: every table infra/ deploys has the keys,
// attribute definitions, indexes, stream and TTL attribute of the table
// the local run and the tests create on DynamoDB Local
// (localtable.Input and Create, from the same tableschema definition),
// so a green local run speaks of the deployed schema.
func TestTablesMatchTheLocalSchema(t *testing.T) {
	tables := []struct {
		id  string // the logical ID's prefix
		def tableschema.Table
	}{
		{id: "TablesLinks", def: tableschema.Links()},
		{id: "TablesIdempotency", def: tableschema.Idempotency()},
		{id: "TablesAnalytics", def: tableschema.Analytics()},
		{id: "TablesKeys", def: tableschema.Keys()},
		{id: "TablesLinkTags", def: tableschema.LinkTags()},
		{id: "TablesMembers", def: tableschema.Members()},
		// Deployed without TTL unless auditRetentionDays is set.
		{id: "TablesAudit", def: infratables.AuditSchema(0)},
	}
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, tt := range tables {
			t.Run(s.name+"/"+tt.id, func(t *testing.T) {
				var found []resource
				for _, r := range s.data().resources("AWS::DynamoDB::GlobalTable") {
					if strings.HasPrefix(r.ID, tt.id) {
						found = append(found, r)
					}
				}
				require.Len(t, found, 1)

				def := tt.def
				if tt.id == "TablesAudit" {
					def = infratables.AuditSchema(s.cfg.AuditRetentionDays)
				}
				if tt.id == "TablesLinks" && s.cfg.OwnerIndexProjection == "ALL" {
					// An installation recorded before the projection was a
					// setting keeps ALL (ownerIndexProjection); the local
					// run's tables are always new.
					def.Indexes = slices.Clone(def.Indexes)
					for i := range def.Indexes {
						if def.Indexes[i].Name == tableschema.IndexByOwner {
							def.Indexes[i].Projection, def.Indexes[i].NonKeyAttributes = tableschema.ProjectAll, nil
						}
					}
				}
				want := localSchema(localtable.Input("t", def), def.TTLAttribute)
				if want.StreamView == "" && len(asSlice(found[0].Props["Replicas"])) > 1 {
					// A global table with replicas in other Regions replicates
					// through a NEW_AND_OLD_IMAGES stream, which CDK turns on
					// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html);
					// nothing of ours reads it, so the local table has none.
					want.StreamView = "NEW_AND_OLD_IMAGES"
				}
				assert.Equal(t, want, deployedSchema(found[0].Props))
			})
		}
		// The misses table is regional: one per regional stack, no replica.
		for _, region := range s.cfg.Regions {
			t.Run(s.name+"/"+region+"/Misses", func(t *testing.T) {
				var found []resource
				for _, r := range s.regional(region).resources("AWS::DynamoDB::GlobalTable") {
					if strings.HasPrefix(r.ID, "Misses") {
						found = append(found, r)
					}
				}
				require.Len(t, found, 1)
				assert.Len(t, asSlice(found[0].Props["Replicas"]), 1, "this Region's table alone")
				want := localSchema(localtable.Input("t", tableschema.Misses()), tableschema.Misses().TTLAttribute)
				assert.Equal(t, want, deployedSchema(found[0].Props))
			})
		}
		// The webhooks table is the primary Region's, read by every Region.
		t.Run(s.name+"/Webhooks", func(t *testing.T) {
			var found []resource
			for _, r := range s.regional(s.cfg.PrimaryRegion).resources("AWS::DynamoDB::GlobalTable") {
				if strings.HasPrefix(r.ID, "WebhooksSubscriptions") {
					found = append(found, r)
				}
			}
			require.Len(t, found, 1)
			want := localSchema(localtable.Input("t", tableschema.Webhooks()), tableschema.Webhooks().TTLAttribute)
			assert.Equal(t, want, deployedSchema(found[0].Props))
		})
	}
}

// schema is what both sides must agree on, in one comparable shape.
type schema struct {
	KeySchema   string
	Attributes  []string // name:type, sorted
	Indexes     map[string]string
	StreamView  string
	TTL         string
	BillingMode string
}

func localSchema(in *dynamodb.CreateTableInput, ttl string) schema {
	type key struct{ AttributeName, KeyType string }
	keys := func(ks []key) string { return toJSON(ks) }
	s := schema{TTL: ttl, BillingMode: string(in.BillingMode), Indexes: map[string]string{}}
	var ks []key
	for _, k := range in.KeySchema {
		ks = append(ks, key{aws.ToString(k.AttributeName), string(k.KeyType)})
	}
	s.KeySchema = keys(ks)
	for _, a := range in.AttributeDefinitions {
		s.Attributes = append(s.Attributes, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(s.Attributes)
	for _, g := range in.GlobalSecondaryIndexes {
		var gks []key
		for _, k := range g.KeySchema {
			gks = append(gks, key{aws.ToString(k.AttributeName), string(k.KeyType)})
		}
		s.Indexes[aws.ToString(g.IndexName)] = keys(gks) + " " + string(g.Projection.ProjectionType) + " " + toJSON(g.Projection.NonKeyAttributes)
	}
	if in.StreamSpecification != nil && aws.ToBool(in.StreamSpecification.StreamEnabled) {
		s.StreamView = string(in.StreamSpecification.StreamViewType)
	}
	return s
}

func deployedSchema(p map[string]any) schema {
	type key struct{ AttributeName, KeyType string }
	keys := func(v any) string {
		var ks []key
		for _, k := range asSlice(v) {
			ks = append(ks, key{get(k, "AttributeName").(string), get(k, "KeyType").(string)})
		}
		return toJSON(ks)
	}
	s := schema{KeySchema: keys(p["KeySchema"]), Indexes: map[string]string{}}
	if b, ok := p["BillingMode"].(string); ok {
		s.BillingMode = b
	}
	for _, a := range asSlice(p["AttributeDefinitions"]) {
		s.Attributes = append(s.Attributes, get(a, "AttributeName").(string)+":"+get(a, "AttributeType").(string))
	}
	sort.Strings(s.Attributes)
	for _, g := range asSlice(p["GlobalSecondaryIndexes"]) {
		var nonKey []string
		for _, a := range asSlice(get(g, "Projection", "NonKeyAttributes")) {
			nonKey = append(nonKey, a.(string))
		}
		s.Indexes[get(g, "IndexName").(string)] = keys(get(g, "KeySchema")) + " " +
			get(g, "Projection", "ProjectionType").(string) + " " + toJSON(nonKey)
	}
	if v, ok := get(p, "StreamSpecification", "StreamViewType").(string); ok {
		s.StreamView = v
	}
	if get(p, "TimeToLiveSpecification", "Enabled") == true {
		s.TTL, _ = get(p, "TimeToLiveSpecification", "AttributeName").(string)
	}
	return s
}
