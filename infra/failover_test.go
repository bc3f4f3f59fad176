package infra_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/failover"
)

// TestV1FailsOverByDNSWithAHostedZone: with a hosted zone (custom), every
// region whose stack has the /v1 API has a health check on its own API's
// health endpoint and a latency record for the shared name that carries the
// check; CloudFront's /v1 origin is that name. Without one (defaults), no
// record or check exists and /v1 stays on the primary region's API.
func TestV1FailsOverByDNSWithAHostedZone(t *testing.T) {
	s := custom.get(t)
	const name = "api.sho.rt"
	regions := 0
	for _, region := range s.cfg.Regions {
		tp := s.regional(region)
		if len(tp.resources("AWS::ApiGateway::RestApi")) == 0 {
			assert.Empty(t, tp.resources("AWS::Route53::RecordSet"), "%s has no /v1 API to route to", region)
			continue
		}
		regions++
		t.Run(region, func(t *testing.T) {
			checks := tp.resources("AWS::Route53::HealthCheck")
			require.Len(t, checks, 1)
			hc := get(checks[0].Props, "HealthCheckConfig").(map[string]any)
			assert.Equal(t, "HTTPS", hc["Type"])
			assert.Equal(t, "/prod/v1/health", hc["ResourcePath"])
			assert.Equal(t, float64(failover.RequestIntervalSeconds), hc["RequestInterval"])
			assert.Equal(t, float64(failover.FailureThreshold), hc["FailureThreshold"])
			assert.Equal(t, true, hc["EnableSNI"])
			assert.Len(t, asSlice(hc["Regions"]), 3, "the fewest checker locations: each polls on its own")
			fqdn := toJSON(hc["FullyQualifiedDomainName"])
			assert.Contains(t, fqdn, `.execute-api.`+region+`.`, "the check asks this region's own API, not the shared name")
			assert.Contains(t, fqdn, `{"Ref":"ManagementApi`, "this stack's /v1 API")

			records := tp.resources("AWS::Route53::RecordSet")
			require.Len(t, records, 1)
			r := records[0].Props
			assert.Equal(t, name+".", r["Name"])
			assert.Equal(t, "CNAME", r["Type"])
			assert.Equal(t, region, r["Region"], "latency routing")
			assert.Equal(t, region, r["SetIdentifier"])
			assert.Equal(t, "Z0123456789EXAMPLE", r["HostedZoneId"])
			assert.Equal(t, "60", r["TTL"])
			assert.Equal(t, map[string]any{"Ref": checks[0].ID}, r["HealthCheckId"], "the record is answered only while its region is healthy")
			assert.Contains(t, toJSON(r["ResourceRecords"]), "RegionalDomainName", "to this region's custom domain")

			domains := tp.resources("AWS::ApiGateway::DomainName")
			require.Len(t, domains, 1)
			d := domains[0].Props
			assert.Equal(t, name, d["DomainName"])
			assert.Equal(t, map[string]any{"Types": []any{"REGIONAL"}}, d["EndpointConfiguration"])
			assert.Equal(t, "TLS_1_2", d["SecurityPolicy"])
			certs := tp.resources("AWS::CertificateManager::Certificate")
			require.Len(t, certs, 1)
			assert.Equal(t, name, certs[0].Props["DomainName"])
			assert.Equal(t, "DNS", certs[0].Props["ValidationMethod"])
			mappings := tp.resources("AWS::ApiGateway::BasePathMapping")
			require.Len(t, mappings, 1)
			assert.Nil(t, mappings[0].Props["BasePath"], "the stage at the root: CloudFront sends /v1/... as it is")
		})
	}
	require.Equal(t, len(s.cfg.Regions), regions, "with the reservation table every region has /v1, a record and a check")

	// Route 53 publishes check status in us-east-1: the edge stack alarms
	// when a region leaves the answers.
	alarms := alarmsOn(s.edge(), "AWS/Route53", "HealthCheckStatus")
	assert.Len(t, alarms, regions)
	for _, a := range alarms {
		assert.Equal(t, "LessThanThreshold", a.Props["ComparisonOperator"])
		assert.Equal(t, 1.0, a.Props["Threshold"])
		assert.Equal(t, "Minimum", a.Props["Statistic"])
		assert.Contains(t, dimension(a, "HealthCheckId"), "Fn::GetStackOutput", "the check of a regional stack")
		assert.NotEmpty(t, a.Props["AlarmActions"])
	}
	assert.Empty(t, alarmsOn(defaults.get(t).edge(), "AWS/Route53", "HealthCheckStatus"))

	origin := v1Origin(t, s)
	assert.Equal(t, name, origin["DomainName"])
	assert.Nil(t, origin["OriginPath"])

	d := defaults.get(t)
	for _, region := range d.cfg.Regions {
		assert.Empty(t, d.regional(region).resources("AWS::Route53::HealthCheck"), region)
		assert.Empty(t, d.regional(region).resources("AWS::Route53::RecordSet"), region)
	}
	origin = v1Origin(t, d)
	assert.Contains(t, toJSON(origin["DomainName"]), "execute-api.us-east-1", "without a zone /v1 is the primary's")
	assert.Equal(t, "/prod", origin["OriginPath"])
}

// v1Origin is the origin of the distribution's /v1/* behaviour.
func v1Origin(t *testing.T, s *synthesized) map[string]any {
	t.Helper()
	dists := s.edge().resources("AWS::CloudFront::Distribution")
	require.Len(t, dists, 1)
	cfg := get(dists[0].Props, "DistributionConfig").(map[string]any)
	var originID string
	for _, b := range asSlice(cfg["CacheBehaviors"]) {
		b := b.(map[string]any)
		if b["PathPattern"] == "/v1/*" {
			originID = b["TargetOriginId"].(string)
			assert.Contains(t, toJSON(b["AllowedMethods"]), "POST", "/v1 takes writes")
		}
	}
	require.NotEmpty(t, originID)
	for _, o := range asSlice(cfg["Origins"]) {
		o := o.(map[string]any)
		if o["Id"] == originID {
			assert.Nil(t, get(o, "OriginGroups"), "a plain origin, never an origin group")
			return o
		}
	}
	t.Fatalf("no origin %s", originID)
	return nil
}

// TestHealthEndpointRunsNoFunctionAndWritesNothing: GET /v1/health, which
// Route 53 calls about once a second per region, needs no key and is one
// eventually consistent GetItem made by API Gateway itself.
func TestHealthEndpointRunsNoFunctionAndWritesNothing(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		tp := s.regional(s.cfg.PrimaryRegion)
		var health resource
		for _, r := range tp.resources("AWS::ApiGateway::Resource") {
			if r.Props["PathPart"] == "health" {
				health = r
			}
		}
		require.NotEmpty(t, health.ID, s.name)
		var found bool
		for _, m := range tp.resources("AWS::ApiGateway::Method") {
			if toJSON(m.Props["ResourceId"]) != `{"Ref":"`+health.ID+`"}` {
				continue
			}
			found = true
			assert.Equal(t, "GET", m.Props["HttpMethod"])
			assert.Equal(t, "NONE", m.Props["AuthorizationType"])
			assert.Equal(t, false, m.Props["ApiKeyRequired"])
			in := m.Props["Integration"].(map[string]any)
			assert.Equal(t, "AWS", in["Type"], "a service integration: no Lambda")
			assert.Contains(t, toJSON(in["Uri"]), ":dynamodb:action/GetItem")
			assert.Contains(t, toJSON(in["RequestTemplates"]), `\"ConsistentRead\":false`)
			role := tp.resource(get(in, "Credentials", "Fn::GetAtt").([]any)[0].(string))
			require.NotEmpty(t, role.ID)
			var actions []string
			for _, p := range tp.resources("AWS::IAM::Policy") {
				if !strings.Contains(toJSON(p.Props["Roles"]), role.ID) {
					continue
				}
				for _, st := range asSlice(get(p.Props, "PolicyDocument", "Statement")) {
					for _, a := range asSlice(st.(map[string]any)["Action"]) {
						actions = append(actions, a.(string))
					}
				}
			}
			assert.Equal(t, []string{"dynamodb:GetItem"}, actions)
		}
		assert.True(t, found, s.name)
	}
}
