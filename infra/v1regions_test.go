package infra_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
)

// TestV1InEveryRegion: with the reservation table (custom: three Regions of
// one MRSC set and a hosted zone), every Region's stack has the /v1 API and
// its functions on its own replicas, its own usage plan, and a latency
// record for the shared /v1 name that carries its health check.
func TestV1InEveryRegion(t *testing.T) {
	s := custom.get(t)
	require.Equal(t, s.cfg.Regions, infra.V1Regions(s.cfg))
	for _, region := range s.cfg.Regions {
		t.Run(region, func(t *testing.T) {
			tp := s.regional(region)
			require.Len(t, tp.resources("AWS::ApiGateway::RestApi"), 1)
			require.Len(t, tp.resources("AWS::ApiGateway::UsagePlan"), 1, "API Gateway keys and plans are per Region")
			assert.Contains(t, tp["Outputs"], "UsagePlanId")
			vars := map[string]map[string]any{}
			for _, name := range v1Functions {
				fn, ok := tp.function(name)
				require.True(t, ok, "%s in %s", name, region)
				vars[name] = get(fn.Props, "Environment", "Variables").(map[string]any)
				assert.Contains(t, vars[name], "KEYS_TABLE", "%s resolves keys from this Region's replica", name)
			}
			for _, name := range []string{"create", "manage"} {
				assert.Contains(t, vars[name], "RESERVATION_TABLE", "%s reserves in this Region's replica", name)
			}
			assert.Equal(t, "/Shortener/edge", vars["manage"]["EDGE_PARAMETER"])
			// The custom domain is create's host, but the distribution's
			// own host serves the links too: create refuses links to it.
			assert.Equal(t, "/Shortener/edge", vars["create"]["EDGE_PARAMETER"])
			assert.NotContains(t, vars["create"], "IDEMPOTENCY_TABLE", "claims live in the reservation table")
			assert.Contains(t, vars["stats"], "ANALYTICS_TABLE")
			assert.Contains(t, vars["webhooks"], "WEBHOOKS_TABLE")

			records := tp.resources("AWS::Route53::RecordSet")
			require.Len(t, records, 1)
			assert.Equal(t, region, records[0].Props["Region"])
			checks := tp.resources("AWS::Route53::HealthCheck")
			require.Len(t, checks, 1)
			assert.Equal(t, map[string]any{"Ref": checks[0].ID}, records[0].Props["HealthCheckId"])
		})
	}
	// The edge stack lets every Region's manage invalidate.
	invalidators := 0
	for _, p := range s.edge().resources("AWS::IAM::Policy") {
		if strings.Contains(toJSON(p.Props), "cloudfront:CreateInvalidation") {
			invalidators += len(asSlice(p.Props["Roles"]))
		}
	}
	assert.Equal(t, len(s.cfg.Regions), invalidators)
}

// TestV1WithoutReservationsStaysInThePrimary: with the reservation table
// switched off, codes are unique only because one Region writes: the /v1
// API is the primary's alone, create keeps the idempotency table.
func TestV1WithoutReservationsStaysInThePrimary(t *testing.T) {
	cfg := infra.DefaultConfig()
	assert.Equal(t, cfg.Regions, infra.V1Regions(cfg))
	cfg.NoReservations = true
	assert.Equal(t, []string{cfg.PrimaryRegion}, infra.V1Regions(cfg))
	cfg = infra.DefaultConfig()
	cfg.Regions = []string{"us-east-1"}
	cfg.FailoverRegion = ""
	assert.Equal(t, []string{"us-east-1"}, infra.V1Regions(cfg))
}

// TestV1RegionWithoutReservationReplicaIsRefused: a Region that would take
// creates but has no replica of the reservation table would check codes
// against nothing; synthesis refuses it rather than build it.
func TestV1RegionWithoutReservationReplicaIsRefused(t *testing.T) {
	require.NoError(t, setup())
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	built := infra.DefaultConfig() // us-east-1 and us-west-2, witness us-east-2
	built.Account, built.AssetDir = testAccount, assetDir
	data := infra.NewDataStack(app, built)
	require.Equal(t, []string{"us-east-1", "us-west-2"}, data.Reservation.Replicas)

	grown := built
	grown.Regions = []string{"us-east-1", "us-west-2", "us-east-2"}
	require.True(t, slices.Contains(infra.V1Regions(grown), "us-east-2"))
	_, err := infra.NewRegionalStack(app, grown, "us-east-2", data, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "us-east-2 would have the /v1 API, but the reservation table has no replica there")
}

// TestNoTableIsRenamedByACrossRegionReference: CDK gives a table read by
// name from another Region a generated physical name, and CloudFormation
// replaces a table whose name changes. Only the links table, read from
// every Region since its first release, has one (and each Region's edge
// marks table has a fixed one, chosen, not generated); the tables the /v1
// functions of the other Regions now read (keys, reservations, analytics,
// webhooks) keep the names CloudFormation gave them.
func TestNoTableIsRenamedByACrossRegionReference(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		stacks := []tpl{s.data()}
		for _, r := range s.cfg.Regions {
			stacks = append(stacks, s.regional(r))
		}
		for _, tp := range stacks {
			for _, r := range tp.resources("AWS::DynamoDB::GlobalTable") {
				if strings.HasPrefix(r.ID, "TablesLinks") {
					continue
				}
				if strings.HasPrefix(r.ID, "EdgeMarks") {
					// Named on purpose, the same in every Region
					// (tables.NewEdgeMarks), from appName alone, which
					// names the stacks too: no reference generates it.
					assert.Equal(t, s.cfg.EdgeMarksTableName(), r.Props["TableName"], "%s/%s", s.name, r.ID)
					continue
				}
				assert.Nil(t, r.Props["TableName"], "%s/%s: a new name would replace the table", s.name, r.ID)
			}
		}
	}
}
