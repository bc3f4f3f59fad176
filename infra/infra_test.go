package infra_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/infra/edge"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

var (
	primaryOnly = []string{"reclaim", "clicks", "webhookdelivery", "webhookstream"}
	// v1Functions are in every Region of infra.V1Regions: all of them
	// with the reservation table, the primary without.
	v1Functions = []string{"create", "manage", "stats", "webhooks", "apiauth"}
	everyRegion = []string{"redirect", "originauth", "ttlstream"}
)

func TestFunctionsRuntimeAndPlacement(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			primary := region == s.cfg.PrimaryRegion
			t.Run(s.name+"/"+region, func(t *testing.T) {
				v1 := slices.Contains(infra.V1Regions(s.cfg), region)
				for _, name := range slices.Concat(everyRegion, primaryOnly, v1Functions) {
					fn, ok := tp.function(name)
					want := primary || slices.Contains(everyRegion, name) || v1 && slices.Contains(v1Functions, name)
					require.Equal(t, want, ok, "%s in %s (primary %v)", name, region, primary)
					if !ok {
						continue
					}
					assert.Equal(t, "provided.al2023", fn.Props["Runtime"], name)
					assert.Equal(t, []any{"arm64"}, fn.Props["Architectures"], name)
					assert.Equal(t, "bootstrap", fn.Props["Handler"], name)
					// Its own log group, with a retention.
					lg := tp.resource(get(fn.Props, "LoggingConfig", "LogGroup", "Ref").(string))
					assert.Equal(t, float64(s.cfg.LogRetentionDays), lg.Props["RetentionInDays"], name)
					vars := get(fn.Props, "Environment", "Variables").(map[string]any)
					assert.Equal(t, s.cfg.PrimaryRegion, vars["PRIMARY_REGION"], name)
					assert.Contains(t, []any{nil, s.cfg.BaseURL()}, vars["SHORTENER_BASE_URL"])
				}
				want := 3 + 1 // redirect, originauth, ttlstream and CDK's DescribeTable provider
				if v1 {
					want += len(v1Functions)
				}
				if primary {
					want += len(primaryOnly) - 1 // the primary knows its stream: no provider
				}
				assert.Len(t, tp.resources("AWS::Lambda::Function"), want)
			})
		}
	}
}

func TestFunctionEnvironment(t *testing.T) {
	s := custom.get(t)
	tp := s.regional(s.cfg.PrimaryRegion)
	vars := func(name string) map[string]any {
		fn, ok := tp.function(name)
		require.True(t, ok, name)
		return get(fn.Props, "Environment", "Variables").(map[string]any)
	}
	r := vars("redirect")
	assert.Equal(t, "9", r["SHORTENER_CODE_LENGTH"])
	assert.Equal(t, "86400", r["SHORTENER_EDGE_TTL"])
	assert.Equal(t, "https://sho.rt", r["SHORTENER_BASE_URL"])
	assert.NotContains(t, r, "IDEMPOTENCY_TABLE", "a function gets only the tables it uses")
	assert.NotContains(t, r, "ANALYTICS_TABLE")
	assert.NotContains(t, vars("create"), "IDEMPOTENCY_TABLE",
		"Idempotency-Key claims live in the reservation table: no name, no grant")
	assert.Contains(t, r, "COUNTERS_TABLE", "click limits and password attempts, in the primary Region")
	fail := s.regional(s.cfg.FailoverRegion)
	if fn, ok := fail.function("redirect"); ok {
		assert.NotContains(t, get(fn.Props, "Environment", "Variables"), "COUNTERS_TABLE", "one counter table, in the primary")
	}
	for _, name := range []string{"create", "manage", "stats"} {
		assert.Contains(t, vars(name), "KEYS_TABLE", "%s resolves API keys to owners", name)
	}
	for _, name := range []string{"redirect", "ttlstream", "reclaim", "clicks"} {
		assert.NotContains(t, vars(name), "KEYS_TABLE", name)
	}
	assert.Contains(t, vars("clicks"), "ANALYTICS_TABLE")
	// Only to find a code's owner for link.clicked webhooks (GetItem).
	assert.Contains(t, vars("clicks"), "LINKS_TABLE")
	for _, name := range []string{"webhooks", "webhookdelivery", "webhookstream", "clicks"} {
		assert.Contains(t, vars(name), "WEBHOOKS_TABLE", name)
	}
	for _, name := range []string{"webhookdelivery", "webhookstream", "clicks"} {
		assert.Contains(t, vars(name), "WEBHOOK_QUEUE_URL", name)
	}
	assert.Contains(t, vars("webhookdelivery"), "WEBHOOK_DLQ_URL")
	for _, name := range []string{"webhooks", "webhookdelivery", "webhookstream", "clicks"} {
		assert.NotContains(t, vars(name), "WEBHOOK_ALLOW_LOOPBACK", "a deployed stack never allows loopback receivers")
	}
	// manage invalidates: it learns the distribution from the edge
	// stack's parameter, named here, read when first needed. create
	// invalidates nothing, but beside the custom domain the distribution's
	// own host serves the short links too: it reads the parameter to
	// refuse long URLs on that host.
	assert.Equal(t, "/Shortener/edge", vars("manage")["EDGE_PARAMETER"])
	assert.Equal(t, "/Shortener/edge", vars("create")["EDGE_PARAMETER"])
	for _, name := range []string{"redirect", "originauth", "stats", "ttlstream", "reclaim", "clicks"} {
		assert.NotContains(t, vars(name), "EDGE_PARAMETER", "%s: the redirect path never reads it", name)
	}
}

// TestNoFunctionCarriesAPlaceholderForTheDistribution: one deploy, no
// second pass. No function's environment holds a distribution ID or a
// value standing in for one, and without a custom domain none holds a
// base URL: the distribution's host comes from the edge parameter.
func TestNoFunctionCarriesAPlaceholderForTheDistribution(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			for _, fn := range s.regional(region).resources("AWS::Lambda::Function") {
				v, ok := get(fn.Props, "Environment", "Variables").(map[string]any)
				if !ok {
					continue
				}
				assert.NotContains(t, v, "DISTRIBUTION_ID", fn.ID)
				for k, val := range v {
					text := strings.ToLower(toJSON(val))
					for _, placeholder := range []string{"cloudfront.net", "placeholder", "changeme", "e2example", "tbd"} {
						assert.NotContains(t, text, placeholder, "%s %s=%s", fn.ID, k, text)
					}
				}
				if s.cfg.DomainName == "" {
					assert.NotContains(t, v, "SHORTENER_BASE_URL", fn.ID)
				}
			}
		}
	}
}

func TestLinksTableIsAnMRECGlobalTableWithTTLAndStream(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		var links, others, linkTags []resource
		for _, r := range s.data().resources("AWS::DynamoDB::GlobalTable") {
			switch {
			case strings.HasPrefix(r.ID, "TablesLinks"):
				links = append(links, r)
			case strings.HasPrefix(r.ID, "TablesLinkTags"):
				linkTags = append(linkTags, r)
			case strings.HasPrefix(r.ID, "TablesKeys"):
				// TestKeysTable
			case strings.HasPrefix(r.ID, "TablesMembers"):
				// TestMembersTable
			case strings.HasPrefix(r.ID, "TablesReservations"):
				// TestReservationTableIsMRSC
			case strings.HasPrefix(r.ID, "TablesAudit"):
				// TestAuditTable
			default:
				others = append(others, r)
			}
		}
		require.Len(t, links, 1)
		p := links[0].Props
		assert.Equal(t, "EVENTUAL", p["MultiRegionConsistency"], "MRSC supports neither TTL nor transactions")
		assert.Nil(t, p["WitnessRegion"])
		assert.Equal(t, map[string]any{"AttributeName": tableschema.AttrPurgeAt, "Enabled": true}, p["TimeToLiveSpecification"],
			"TTL a day after the expiry: the reclaim run tombstones expired links in place first")
		assert.Equal(t, "NEW_AND_OLD_IMAGES", get(p, "StreamSpecification", "StreamViewType"))
		assert.Equal(t, "PAY_PER_REQUEST", p["BillingMode"])
		assert.Equal(t, []any{map[string]any{"AttributeName": "code", "KeyType": "HASH"}}, p["KeySchema"])

		var regions []string
		for _, r := range asSlice(p["Replicas"]) {
			regions = append(regions, get(r, "Region").(string))
			assert.Equal(t, get(r, "Region") == s.cfg.PrimaryRegion,
				get(r, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"), "PITR on the primary replica only (pitrLinks=primary)")
			assert.Equal(t, true, get(r, "DeletionProtectionEnabled"))
		}
		sort.Strings(regions)
		want := slices.Clone(s.cfg.Regions)
		sort.Strings(want)
		assert.Equal(t, want, regions, "one replica per configured region")

		indexes := map[string]string{}
		for _, g := range asSlice(p["GlobalSecondaryIndexes"]) {
			indexes[get(g, "IndexName").(string)] = toJSON(get(g, "KeySchema")) + " " + toJSON(get(g, "Projection", "ProjectionType"))
		}
		assert.Equal(t, map[string]string{
			tableschema.IndexByOwner:       `[{"AttributeName":"owner_id","KeyType":"HASH"},{"AttributeName":"created_at","KeyType":"RANGE"}] "` + s.cfg.OwnerIndexProjection + `"`,
			tableschema.IndexDueTombstones: `[{"AttributeName":"tomb_shard","KeyType":"HASH"},{"AttributeName":"reclaim_after","KeyType":"RANGE"}] "KEYS_ONLY"`,
			tableschema.IndexExpiringLinks: `[{"AttributeName":"exp_shard","KeyType":"HASH"},{"AttributeName":"expires_at","KeyType":"RANGE"}] "INCLUDE"`,
			tableschema.IndexByOwnerAll:    `[{"AttributeName":"owner_id","KeyType":"HASH"},{"AttributeName":"created_at","KeyType":"RANGE"}] "ALL"`,
		}, indexes)

		// The tags table is written in the links' transactions: an MREC
		// global table with a replica wherever the links table has one.
		require.Len(t, linkTags, 1)
		assert.Equal(t, "EVENTUAL", linkTags[0].Props["MultiRegionConsistency"])
		var tagRegions []string
		for _, r := range asSlice(linkTags[0].Props["Replicas"]) {
			tagRegions = append(tagRegions, get(r, "Region").(string))
		}
		sort.Strings(tagRegions)
		assert.Equal(t, want, tagRegions)

		// Idempotency and analytics live in the primary region only.
		require.Len(t, others, 2)
		for _, r := range others {
			replicas := asSlice(r.Props["Replicas"])
			require.Len(t, replicas, 1, r.ID)
			assert.Equal(t, s.cfg.PrimaryRegion, get(replicas[0], "Region"), r.ID)
			assert.Equal(t, "expires_at", get(r.Props, "TimeToLiveSpecification", "AttributeName"), r.ID)
		}
	}
	data := map[string]any(defaults.get(t).data())
	assertCDK(t, "analytics key", func() {
		assertions.Template_FromJSON(&data, nil).HasResourceProperties(
			jsii.String("AWS::DynamoDB::GlobalTable"), map[string]any{
				"KeySchema": []any{
					map[string]any{"AttributeName": "code", "KeyType": "HASH"},
					map[string]any{"AttributeName": "bucket", "KeyType": "RANGE"},
				},
			})
	})
}

func TestStreamConsumers(t *testing.T) {
	ttlPattern := `{"eventName":["REMOVE"],"userIdentity":{"principalId":["dynamodb.amazonaws.com"],"type":["Service"]}}`
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			esms := tp.resources("AWS::Lambda::EventSourceMapping")
			want := map[bool]int{true: 4, false: 1}[region == s.cfg.PrimaryRegion]
			require.Len(t, esms, want, region)
			for _, e := range esms {
				p := e.Props
				if strings.HasPrefix(e.ID, "WebhookdeliveryFunction") {
					// The delivery queue's mapping: partial failures, a
					// bounded concurrency, and the queue's own redrive to
					// a dead-letter queue with an alarm.
					assert.Equal(t, []any{"ReportBatchItemFailures"}, p["FunctionResponseTypes"], e.ID)
					assert.Equal(t, float64(20), get(p, "ScalingConfig", "MaximumConcurrency"))
					q := tp.resource(get(p, "EventSourceArn", "Fn::GetAtt", 0).(string))
					assert.Equal(t, true, q.Props["SqsManagedSseEnabled"])
					dlq := get(q.Props, "RedrivePolicy", "deadLetterTargetArn", "Fn::GetAtt", 0).(string)
					assert.Equal(t, float64(5), get(q.Props, "RedrivePolicy", "maxReceiveCount"))
					assertAlarmOn(t, tp, dlq, "ApproximateNumberOfMessagesVisible")
					continue
				}
				assert.Equal(t, []any{"ReportBatchItemFailures"}, p["FunctionResponseTypes"], e.ID)
				assert.Equal(t, true, p["BisectBatchOnFunctionError"], e.ID)
				assert.Equal(t, float64(10), p["MaximumRetryAttempts"], e.ID)
				assert.Positive(t, p["MaximumRecordAgeInSeconds"], e.ID)
				assert.Less(t, p["MaximumRecordAgeInSeconds"], float64(24*3600), "records leave either stream after 24 h")
				assert.Nil(t, p["ParallelizationFactor"], "one batch per shard: clicks checkpoints per shard")
				dlq := get(p, "DestinationConfig", "OnFailure", "Destination", "Fn::GetAtt", 0).(string)
				q := tp.resource(dlq)
				require.Equal(t, "AWS::SQS::Queue", q.Type, e.ID)
				assert.Equal(t, true, q.Props["SqsManagedSseEnabled"], "dead letters encrypted")
				assertAlarmOn(t, tp, dlq, "ApproximateNumberOfMessagesVisible")
				switch {
				case strings.HasPrefix(e.ID, "TtlstreamFunction"):
					assert.Equal(t, ttlPattern, get(p, "FilterCriteria", "Filters", 0, "Pattern"), "only TTL deletions")
					assert.Len(t, asSlice(get(p, "FilterCriteria", "Filters")), 1)
				case strings.HasPrefix(e.ID, "ClicksFunction"):
					assert.Nil(t, p["FilterCriteria"])
					assert.Contains(t, toJSON(p["EventSourceArn"]), "ClicksClickLog")
				case strings.HasPrefix(e.ID, "WebhookstreamFunction"):
					assert.Nil(t, p["FilterCriteria"], "every link change")
					assert.Contains(t, toJSON(p["EventSourceArn"]), "TablesLinks")
				default:
					t.Errorf("unexpected mapping %s", e.ID)
				}
			}
		}
	}
}

// assertAlarmOn checks an alarm watches metric of the resource logicalID.
func assertAlarmOn(t *testing.T, tp tpl, logicalID, metric string) {
	t.Helper()
	for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
		j := toJSON(a.Props)
		if strings.Contains(j, `"`+logicalID+`"`) && strings.Contains(j, metric) {
			assert.NotEmpty(t, a.Props["AlarmActions"], "alarm %s notifies", a.ID)
			return
		}
	}
	t.Errorf("no %s alarm on %s", metric, logicalID)
}

func TestAlarmsAndDashboard(t *testing.T) {
	s := defaults.get(t)
	tp := s.regional(s.cfg.PrimaryRegion)
	metrics := map[string]bool{}
	for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
		metrics[toJSON(a.Props["MetricName"])+toJSON(a.Props["Metrics"])] = true
		assert.NotEmpty(t, a.Props["AlarmActions"], a.ID)
	}
	all := strings.Join(slices.Collect(func(yield func(string) bool) {
		for k := range metrics {
			if !yield(k) {
				return
			}
		}
	}), " ")
	for _, m := range []string{`"Errors"`, `"Throttles"`, `"IteratorAge"`, `"ApproximateNumberOfMessagesVisible"`, `"5xx"`, `"5XXError"`, `"ExecutionsFailed"`, `"ReadThrottleEvents"`} {
		assert.Contains(t, all, m)
	}
	assert.Len(t, tp.resources("AWS::CloudWatch::Dashboard"), 1)
	topic := tp.resources("AWS::SNS::Topic")
	require.Len(t, topic, 1)
	assert.NotNil(t, topic[0].Props["KmsMasterKeyId"], "alarm topic encrypted")
	assert.Contains(t, toJSON(s.edge().resources("AWS::CloudWatch::Alarm")), "5xxErrorRate")
}

func TestDistribution(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		dists := s.edge().resources("AWS::CloudFront::Distribution")
		require.Len(t, dists, 1)
		d := dists[0].Props["DistributionConfig"].(map[string]any)
		origins := map[string]map[string]any{}
		for _, o := range asSlice(d["Origins"]) {
			origins[get(o, "Id").(string)] = o.(map[string]any)
		}
		primaryStack := s.cfg.AppName + "-Regional-" + s.cfg.PrimaryRegion

		// Redirects: cached by path only, honouring the origin.
		def := d["DefaultCacheBehavior"].(map[string]any)
		assert.Equal(t, "redirect-to-https", def["ViewerProtocolPolicy"])
		assert.Equal(t, []any{"GET", "HEAD"}, def["AllowedMethods"], "an origin group's behaviour takes no POST")
		// The redirect rules' headers reach the origin outside the cache key.
		rorp := s.edge().resource(get(def, "OriginRequestPolicyId", "Ref").(string))
		rheaders := get(rorp.Props, "OriginRequestPolicyConfig", "HeadersConfig").(map[string]any)
		assert.Equal(t, "whitelist", rheaders["HeaderBehavior"])
		var rnames []string
		for _, h := range asSlice(rheaders["Headers"]) {
			rnames = append(rnames, strings.ToLower(h.(string)))
		}
		assert.ElementsMatch(t, []string{"cloudfront-viewer-country", "cloudfront-is-android-viewer", "cloudfront-is-desktop-viewer",
			"cloudfront-is-ios-viewer", "cloudfront-is-mobile-viewer", "cloudfront-is-tablet-viewer",
			"accept-language", "user-agent", "content-type", "cloudfront-viewer-address"}, rnames, "no SmartTV header: 10 is CloudFront's quota per policy")
		assert.Equal(t, "all", get(rorp.Props, "OriginRequestPolicyConfig", "QueryStringsConfig", "QueryStringBehavior"),
			"the query reaches the origin for the password form, outside the cache key (below)")
		assert.Equal(t, "none", get(rorp.Props, "OriginRequestPolicyConfig", "CookiesConfig", "CookieBehavior"))
		policy := s.edge().resource(get(def, "CachePolicyId", "Ref").(string))
		cfg := policy.Props["CachePolicyConfig"].(map[string]any)
		assert.Equal(t, float64(0), cfg["MinTTL"])
		assert.Equal(t, float64(365*24*3600), cfg["MaxTTL"])
		assert.LessOrEqual(t, cfg["DefaultTTL"], float64(300))
		assert.Equal(t, map[string]any{
			"CookiesConfig":              map[string]any{"CookieBehavior": "none"},
			"HeadersConfig":              map[string]any{"HeaderBehavior": "none"},
			"QueryStringsConfig":         map[string]any{"QueryStringBehavior": "none"},
			"EnableAcceptEncodingGzip":   false,
			"EnableAcceptEncodingBrotli": false,
		}, cfg["ParametersInCacheKeyAndForwardedToOrigin"])
		assert.NotNil(t, def["ResponseHeadersPolicyId"])
		assert.NotNil(t, def["RealtimeLogConfigArn"])

		// Redirect origin: the primary region, failing over to another.
		groups := asSlice(get(d, "OriginGroups", "Items"))
		require.Len(t, groups, 1)
		assert.Equal(t, get(groups[0], "Id"), def["TargetOriginId"])
		assert.Equal(t, []any{500.0, 502.0, 503.0, 504.0}, get(groups[0], "FailoverCriteria", "StatusCodes", "Items"))
		members := asSlice(get(groups[0], "Members", "Items"))
		require.Len(t, members, 2)
		first := toJSON(origins[get(members[0], "OriginId").(string)]["DomainName"])
		second := toJSON(origins[get(members[1], "OriginId").(string)]["DomainName"])
		assert.Contains(t, first, `"StackName":"`+primaryStack+`"`)
		assert.Contains(t, first, "RedirectApi")
		assert.Contains(t, second, `"StackName":"`+s.cfg.AppName+"-Regional-"+s.cfg.FailoverRegion+`"`)

		// /v1: uncached, all methods; the primary region's REST API, or
		// with a hosted zone the name every region's API answers at
		// (TestV1FailsOverByDNSWithAHostedZone).
		behaviors := asSlice(d["CacheBehaviors"])
		require.Len(t, behaviors, 5, "/v1/*, /unlock/* and the console's three (TestConsole)")
		byPattern := map[string]map[string]any{}
		for _, b := range behaviors {
			byPattern[get(b, "PathPattern").(string)] = b.(map[string]any)
		}
		v1 := byPattern[edge.ManagementPathPattern]
		require.NotNil(t, v1)

		// The password forms' POSTs: the primary's redirect API alone (not
		// the origin group, which CloudFront refuses POST for), uncached,
		// with the redirects' origin request policy and real-time log.
		unlock := byPattern["/unlock/*"]
		require.NotNil(t, unlock)
		assert.ElementsMatch(t, []any{"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}, unlock["AllowedMethods"])
		assert.Equal(t, "4135ea2d-6df8-44a3-9df3-4b5a84be39ad", unlock["CachePolicyId"], "managed CachingDisabled")
		assert.Equal(t, def["OriginRequestPolicyId"], unlock["OriginRequestPolicyId"])
		assert.Equal(t, def["RealtimeLogConfigArn"], unlock["RealtimeLogConfigArn"], "its 303s are clicks")
		assert.Equal(t, "https-only", unlock["ViewerProtocolPolicy"])
		viewerResponse := func(b map[string]any) []any {
			var out []any
			for _, a := range asSlice(b["FunctionAssociations"]) {
				if get(a, "EventType") == "viewer-response" {
					out = append(out, a)
				}
			}
			return out
		}
		require.Len(t, viewerResponse(def), 1)
		assert.Equal(t, viewerResponse(def), viewerResponse(unlock), "the 303 of the right password merges the query the form posted, as the redirects do")
		uo, ok := origins[unlock["TargetOriginId"].(string)]
		require.True(t, ok, "a single origin, not the group")
		assert.Contains(t, toJSON(uo["DomainName"]), `"StackName":"`+primaryStack+`"`)
		assert.Contains(t, toJSON(uo["DomainName"]), "RedirectApi")
		assert.Equal(t, edge.ManagementPathPattern, v1["PathPattern"])
		assert.Equal(t, "https-only", v1["ViewerProtocolPolicy"])
		assert.ElementsMatch(t, []any{"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}, v1["AllowedMethods"])
		assert.Equal(t, "4135ea2d-6df8-44a3-9df3-4b5a84be39ad", v1["CachePolicyId"], "managed CachingDisabled")
		api := origins[v1["TargetOriginId"].(string)]
		if s.cfg.APIDomainName != "" {
			assert.Equal(t, s.cfg.APIDomainName, api["DomainName"])
			assert.Nil(t, api["OriginPath"])
		} else {
			assert.Contains(t, toJSON(api["DomainName"]), `"StackName":"`+primaryStack+`"`)
			assert.Contains(t, toJSON(api["DomainName"]), "ManagementApi")
			assert.Contains(t, toJSON(api["DomainName"]), ".execute-api."+s.cfg.PrimaryRegion+".")
			assert.Equal(t, "/prod", api["OriginPath"])
		}
		// The managed AllViewerExceptHostHeader: every viewer header but
		// Host (API Gateway needs its own), Authorization included, which
		// no origin request policy of our own may list; Accept, by which
		// the REST API chooses binary answers; the query string.
		assert.Equal(t, "b689b0a8-53d0-40ab-baf2-68738e2966ac", v1["OriginRequestPolicyId"], "managed AllViewerExceptHostHeader")

		for id, o := range origins {
			if _, s3 := o["S3OriginConfig"]; s3 {
				continue // the console's bucket (TestConsole)
			}
			assert.Equal(t, "https-only", get(o, "CustomOriginConfig", "OriginProtocolPolicy"), id)
		}
		rhp := s.edge().resource(get(def, "ResponseHeadersPolicyId", "Ref").(string))
		sec := get(rhp.Props, "ResponseHeadersPolicyConfig", "SecurityHeadersConfig").(map[string]any)
		for _, h := range []string{"StrictTransportSecurity", "ContentTypeOptions", "FrameOptions", "ReferrerPolicy", "ContentSecurityPolicy"} {
			assert.Contains(t, sec, h)
		}
	}
}

func TestCustomDomainAndWAFSwitch(t *testing.T) {
	d := defaults.get(t)
	dc := d.edge().resources("AWS::CloudFront::Distribution")[0].Props["DistributionConfig"].(map[string]any)
	assert.Nil(t, dc["Aliases"])
	assert.Empty(t, d.edge().resources("AWS::WAFv2::WebACL"), "WAF off by default")
	assert.Nil(t, dc["WebACLId"])

	c := custom.get(t)
	require.Len(t, c.edge().resources("AWS::WAFv2::WebACL"), 1, "waf=true")
	acl := c.edge().resources("AWS::WAFv2::WebACL")[0]
	cc := c.edge().resources("AWS::CloudFront::Distribution")[0].Props["DistributionConfig"].(map[string]any)
	assert.Equal(t, "CLOUDFRONT", acl.Props["Scope"])
	assert.Equal(t, `{"Fn::GetAtt":["`+acl.ID+`","Arn"]}`, toJSON(cc["WebACLId"]))
	rule := get(acl.Props, "Rules", 0).(map[string]any)
	assert.Equal(t, infra.DefaultConfig().WAFRateLimit, int(get(rule, "Statement", "RateBasedStatement", "Limit").(float64)))
	assert.Equal(t, "IP", get(rule, "Statement", "RateBasedStatement", "AggregateKeyType"))
	assert.Contains(t, get(rule, "Action"), "Block")
	assert.Equal(t, "/v1/", get(rule, "Statement", "RateBasedStatement", "ScopeDownStatement", "NotStatement", "Statement", "ByteMatchStatement", "SearchString"))
	assert.Equal(t, []any{"sho.rt"}, cc["Aliases"])
	assert.Equal(t, "TLSv1.2_2021", get(cc, "ViewerCertificate", "MinimumProtocolVersion"))
	assert.Equal(t, "sni-only", get(cc, "ViewerCertificate", "SslSupportMethod"))
	assert.Equal(t, c.cfg.CertificateARN, get(cc, "ViewerCertificate", "AcmCertificateArn"))
}

func TestRealtimeLogConfig(t *testing.T) {
	s := defaults.get(t)
	cfgs := s.edge().resources("AWS::CloudFront::RealtimeLogConfig")
	require.Len(t, cfgs, 1)
	var fields []string
	for _, f := range asSlice(cfgs[0].Props["Fields"]) {
		fields = append(fields, f.(string))
	}
	assert.Equal(t, clicklog.Fields, fields, "parser and config share one list")
	assert.Equal(t, float64(100), cfgs[0].Props["SamplingRate"])
	ep := get(cfgs[0].Props, "EndPoints", 0).(map[string]any)
	assert.Equal(t, "Kinesis", ep["StreamType"])
	stream := toJSON(get(ep, "KinesisStreamConfig", "StreamArn"))
	assert.Contains(t, stream, `"StackName":"Shortener-Regional-`+s.cfg.PrimaryRegion+`"`)
	assert.Contains(t, stream, "ClicksClickLog")

	role := s.edge().resource(get(ep, "KinesisStreamConfig", "RoleArn", "Fn::GetAtt", 0).(string))
	assert.Equal(t, "cloudfront.amazonaws.com", get(role.Props, "AssumeRolePolicyDocument", "Statement", 0, "Principal", "Service"))

	ks := s.regional(s.cfg.PrimaryRegion).resources("AWS::Kinesis::Stream")
	require.Len(t, ks, 1)
	assert.Equal(t, "ON_DEMAND", get(ks[0].Props, "StreamModeDetails", "StreamMode"))
	assert.Equal(t, "alias/aws/kinesis", get(ks[0].Props, "StreamEncryption", "KeyId"))
}

func TestManagementAPI(t *testing.T) {
	s := defaults.get(t)
	// The same API, usage plan and routes in every region with /v1.
	require.Len(t, infra.V1Regions(s.cfg), len(s.cfg.Regions))
	for _, region := range infra.V1Regions(s.cfg) {
		tp := s.regional(region)
		plans := tp.resources("AWS::ApiGateway::UsagePlan")
		require.Len(t, plans, 1)
		assert.Equal(t, map[string]any{"RateLimit": s.cfg.APIRateLimit, "BurstLimit": s.cfg.APIBurstLimit}, plans[0].Props["Throttle"])
		assert.Equal(t, map[string]any{"Limit": s.cfg.APIQuotaPerDay, "Period": "DAY"}, plans[0].Props["Quota"])
		// Keys are issued with shortener keys add, never put in a plan:
		// the plan's one key is the stack's, which the authorizer returns.
		assert.Len(t, tp.resources("AWS::ApiGateway::ApiKey"), 1, "the usage-plan key")
		assert.Len(t, tp.resources("AWS::ApiGateway::UsagePlanKey"), 1)
		outputs := tp["Outputs"].(map[string]any)
		assert.Contains(t, outputs, "UsagePlanId")
		assert.NotContains(t, outputs, "FirstApiKeyId")

		routes := map[string]bool{}
		pages := 0
		for _, m := range tp.resources("AWS::ApiGateway::Method") {
			routes[m.Props["HttpMethod"].(string)+" "+m.ID] = true
			if get(m.Props, "Integration", "Type") == "MOCK" {
				// GET /v1/problems: the page every problem type refers to,
				// answered by API Gateway itself, readable without a key.
				pages++
				assert.Equal(t, false, m.Props["ApiKeyRequired"], m.ID)
				assert.Equal(t, "GET", m.Props["HttpMethod"], m.ID)
				assert.Equal(t, apigw.ProblemsPage(), get(m.Props, "Integration", "IntegrationResponses", 0, "ResponseTemplates", "text/html"))
				assert.Equal(t, "'text/html; charset=utf-8'", get(m.Props, "Integration", "IntegrationResponses", 0, "ResponseParameters", "method.response.header.Content-Type"))
				continue
			}
			if get(m.Props, "Integration", "Type") == "AWS" {
				// GET /v1/health: Route 53's checkers carry no key
				// (TestHealthEndpointRunsNoFunctionAndWritesNothing).
				assert.Equal(t, false, m.Props["ApiKeyRequired"], m.ID)
				assert.Contains(t, m.ID, "v1healthGET")
				continue
			}
			assert.Equal(t, true, m.Props["ApiKeyRequired"], "every /v1 method with a function behind it needs an API key: %s", m.ID)
		}
		assert.Equal(t, 1, pages, "one static page: GET /v1/problems")
		assert.Len(t, routes, 24, "POST/GET /v1/links, POST batch, GET/PATCH/DELETE /v1/links/{code}, GET qr, GET stats, GET /v1/stats, GET problems, "+
			"GET health, POST/GET /v1/webhooks, DELETE /v1/webhooks/{id}, GET /v1/webhooks/{id}/deliveries, GET /v1/tags, "+
			"GET /v1/members, PUT/DELETE /v1/members/{user}, GET /v1/audit, POST/GET /v1/keys, DELETE /v1/keys/{id}, POST /v1/keys/{id}/rotate")
		var ids []string
		for r := range routes {
			ids = append(ids, r)
		}
		for _, want := range []string{"linksbatchPOST", "linkscodeqrGET", "linkscodestatsGET", "tagsGET"} {
			assert.True(t, slices.ContainsFunc(ids, func(id string) bool { return strings.Contains(id, want) }), "%s routed: %v", want, ids)
		}
		responses := map[string]any{}
		for _, r := range tp.resources("AWS::ApiGateway::GatewayResponse") {
			responses[r.Props["ResponseType"].(string)] = get(r.Props, "ResponseParameters", "gatewayresponse.header.Content-Type")
		}
		for _, kind := range []string{"INVALID_API_KEY", "MISSING_AUTHENTICATION_TOKEN", "QUOTA_EXCEEDED", "THROTTLED"} {
			assert.Equal(t, "'application/problem+json'", responses[kind], "API Gateway's own %s answers problem+json", kind)
		}
		for _, st := range tp.resources("AWS::ApiGateway::Stage") {
			assert.NotNil(t, st.Props["AccessLogSetting"])
		}
		rest := tp.resources("AWS::ApiGateway::RestApi")
		require.Len(t, rest, 1)
		assert.Equal(t, []any{"REGIONAL"}, get(rest[0].Props, "EndpointConfiguration", "Types"))
		// A REST API decodes a base64 answer only for a request whose first
		// Accept matches: "*/*" is the only list that matches every Accept
		// (curl's */*, a browser's text/html first, none at all).
		assert.Equal(t, []any{"*/*"}, rest[0].Props["BinaryMediaTypes"], "QR PNGs leave API Gateway as bytes for any Accept")
	}

	// The redirect origin: an HTTP API, payload 1.0, GET and HEAD /{code}.
	for _, region := range s.cfg.Regions {
		tp := s.regional(region)
		var keys []string
		for _, r := range tp.resources("AWS::ApiGatewayV2::Route") {
			keys = append(keys, r.Props["RouteKey"].(string))
		}
		assert.ElementsMatch(t, []string{"GET /{code}", "HEAD /{code}", "POST /unlock/{code}"}, keys, region)
		for _, i := range tp.resources("AWS::ApiGatewayV2::Integration") {
			assert.Equal(t, "1.0", i.Props["PayloadFormatVersion"], region)
			assert.Equal(t, "AWS_PROXY", i.Props["IntegrationType"], region)
		}
		assert.Len(t, tp.resources("AWS::ApiGateway::RestApi"), map[bool]int{true: 1, false: 0}[slices.Contains(infra.V1Regions(s.cfg), region)],
			"/v1 is served by every region with the reservation table, by the primary without")
	}
}

// writeActions are the DynamoDB actions that change data.
var writeActions = []string{"dynamodb:Put", "dynamodb:Update", "dynamodb:Delete", "dynamodb:BatchWrite", "dynamodb:TransactWrite", "dynamodb:PartiQLInsert", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete", "dynamodb:*", "*"}

func TestIAMPerFunction(t *testing.T) {
	logs := []string{"logs:CreateLogStream", "logs:PutLogEvents"}
	streamRead := []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}
	dlq := []string{"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"}
	kinesisRead := []string{"kinesis:DescribeStream", "kinesis:DescribeStreamConsumer", "kinesis:DescribeStreamSummary",
		"kinesis:GetRecords", "kinesis:GetShardIterator", "kinesis:ListShards", "kinesis:ListStreams", "kinesis:SubscribeToShard"}
	// grant is what a function may do: actions -> a fragment every
	// resource of the statement must contain.
	type grant map[string]string
	links, idem, analytics, keysTable := "tableslinks", "tablesidempotency", "tablesanalytics", "tableskeys"
	linkTags := "tableslinktags"
	reservations := "tablesreservations"

	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		primary := s.cfg.PrimaryRegion
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			here := "arn:aws:dynamodb:" + region + ":"
			want := map[string]grant{
				// Reads this region's replica; counts misses in this
				// region's misses table, one UpdateItem each.
				"redirect": {"dynamodb:GetItem": links + "|" + here, "dynamodb:UpdateItem": "misses"},
				// GetItem: an expired link's tags, removed from the tags
				// table (DeleteItem, UpdateItem: the counter) with it.
				"ttlstream": {"dynamodb:UpdateItem": "arn:aws:dynamodb:" + primary + ":", "dynamodb:GetItem": links + "|arn:aws:dynamodb:" + primary + ":",
					"dynamodb:DeleteItem": linkTags + "|arn:aws:dynamodb:" + primary + ":"},
				// The origin secret's replica in this region only.
				"originauth": {"secretsmanager:GetSecretValue": ":secretsmanager:" + region + ":", "secretsmanager:DescribeSecret": ":secretsmanager:" + region + ":"},
			}
			hooks := "webhookssubscriptions"
			inPrimary := "arn:aws:dynamodb:" + primary + ":"
			if region == primary {
				// And the counters of click limits and password attempts
				// (the idempotency table), beside the misses table.
				want["redirect"] = grant{"dynamodb:GetItem": "", "dynamodb:UpdateItem": ""}
			}
			if slices.Contains(infra.V1Regions(s.cfg), region) {
				// The edge parameter in this region, exactly; the links and
				// keys tables' replicas in this region.
				param := "arn:aws:ssm:" + region + ":" + testAccount + ":parameter/" + s.cfg.AppName + "/edge"
				// create reads the parameter with a custom domain too: the
				// distribution's own host is refused as a long URL beside it.
				want["create"] = grant{"dynamodb:GetItem": here, "dynamodb:PutItem": here, "ssm:GetParameter": param,
					"dynamodb:UpdateItem": linkTags + "|" + here}
				// Query: by-owner, by-owner-all and the tags table; the
				// tags table's writes move a link's tags with its edits.
				want["manage"] = grant{"dynamodb:GetItem": here, "dynamodb:PutItem": here,
					"dynamodb:Query": here, "ssm:GetParameter": param,
					"dynamodb:DescribeTable": links + "|" + here,
					"dynamodb:UpdateItem":    "", "dynamodb:DeleteItem": linkTags + "|" + here}
				// The counts are in the primary's analytics table only.
				// And the owner's links, for GET /v1/stats: the by-owner
				// index of this region's replica.
				want["stats"] = grant{"dynamodb:GetItem": "", "dynamodb:Query": ""}
				// The /v1 authorizer: one key's record in this region's
				// replica of the keys table, and nothing else.
				// (And its members table's, TestMembersTableGrants.)
				want["apiauth"] = grant{"dynamodb:GetItem": keysTable + "|" + here, "dynamodb:Query": ""}
				// The subscriptions are in the primary's webhooks table only.
				// PutItem: the subscriptions and their audit entries, both in
				// the primary (TestAuditTableGrants).
				want["webhooks"] = grant{"dynamodb:GetItem": "", "dynamodb:PutItem": "", "dynamodb:DeleteItem": hooks, "dynamodb:Query": hooks,
					"dynamodb:UpdateItem": hooks}
				if region != primary {
					for _, a := range []string{"dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:UpdateItem"} {
						want["webhooks"][a] = hooks + "|" + inPrimary
					}
				}
			}
			if region == primary {
				want["reclaim"] = grant{"dynamodb:Query": "/index/", "dynamodb:UpdateItem": "", "dynamodb:DeleteItem": "",
					"dynamodb:GetItem": links}
				// GetItem: its checkpoints and compaction state, and a code's
				// owner for link.clicked; Query: the analytics table's rollups,
				// segments and day items, and the owner's subscriptions.
				want["clicks"] = grant{"dynamodb:UpdateItem": analytics, "dynamodb:PutItem": analytics, "dynamodb:DeleteItem": analytics,
					"dynamodb:GetItem": "", "dynamodb:Query": ""}
				want["webhookdelivery"] = grant{"dynamodb:GetItem": hooks, "dynamodb:UpdateItem": hooks, "dynamodb:PutItem": hooks}
				want["webhookstream"] = grant{"dynamodb:Query": hooks, "dynamodb:GetItem": hooks}
			}
			res, _ := s.cfg.Reservation()
			resv := res.Enabled()
			if resv {
				// The reservation table's replica in this region
				// (infra/reservations.go): create reserves, confirms, gives
				// back and reads; manage advances; reclaim releases, after
				// reading the tombstone.
				// (UpdateItem also on the tags table's counters.)
				want["create"]["dynamodb:UpdateItem"] = here
				want["create"]["dynamodb:DeleteItem"] = reservations + "|" + here
				want["manage"]["dynamodb:UpdateItem"] = here
				want["manage"]["dynamodb:DeleteItem"] = here
				want["manage"]["dynamodb:PutItem"] = "" // the links table's, and the reservation table's (adoption)
				if region == primary {
					want["reclaim"]["dynamodb:DeleteItem"] = ""
					want["reclaim"]["dynamodb:GetItem"] = links
				}
			}
			if g, ok := want["manage"]; ok {
				// The members API's, on the primary's members table
				// (TestMembersTableGrants checks those statements).
				for _, a := range []string{"dynamodb:UpdateItem", "dynamodb:DeleteItem"} {
					if _, set := g[a]; !set {
						g[a] = ""
					}
				}
			}
			for name, g := range want {
				t.Run(s.name+"/"+region+"/"+name, func(t *testing.T) {
					fn, ok := tp.function(name)
					require.True(t, ok)
					stmts, managed := tp.roleStatements(fn)
					assert.Empty(t, managed, "no managed policies (AWSLambdaBasicExecutionRole may write any log group)")
					got := map[string]bool{}
					for _, st := range stmts {
						require.Equal(t, "Allow", st.Effect)
						res := strings.ToLower(s.resolvedResources(st))
						assert.NotContains(t, st.Resources, `"*"`, "no wildcard resource for %v", st.Actions)
						if strings.Contains(res, "tablesmembers") || name == "manage" && strings.Contains(res, "tableskeys") {
							// TestMembersTableGrants' and TestKeysTableGrants' to check.
							for _, a := range st.Actions {
								got[a] = true
							}
							continue
						}
						for _, a := range st.Actions {
							got[a] = true
							// manage's UpdateItem on the origin Regions' edge-marks
							// tables (the fence) is TestEdgeMarksEstate's to check.
							fence := name == "manage" && a == "dynamodb:UpdateItem" && strings.Contains(res, "edge-marks")
							if frag, ok := g[a]; ok && frag != "" && !fence {
								for _, f := range strings.Split(frag, "|") {
									assert.Contains(t, res, strings.ToLower(f), "%s on %s", a, st.Resources)
								}
							}
							if name == "stats" && a == "dynamodb:Query" {
								// The counts in the primary's analytics table, the
								// owner's links in this region's by-owner index, or
								// a tag's links in this region's tags table.
								assert.True(t, strings.Contains(res, analytics) && strings.Contains(res, inPrimary) ||
									strings.Contains(res, links) && strings.Contains(res, strings.ToLower("/index/"+tableschema.IndexByOwner)) && strings.Contains(res, here) ||
									strings.Contains(res, linkTags) && strings.Contains(res, here) && !strings.Contains(res, "/index/"), st.Resources)
							}
							if name == "manage" && a == "dynamodb:Query" {
								assert.True(t, strings.Contains(res, "/index/"+tableschema.IndexByOwner) || strings.Contains(res, "tablesaudit") || strings.Contains(res, linkTags) || strings.Contains(res, "tablesmembers"), st.Resources)
							}
							if name == "webhooks" && a == "dynamodb:PutItem" {
								assert.True(t, strings.Contains(res, hooks) || strings.Contains(res, "tablesaudit"), st.Resources)
							}
							if name == "manage" && a == "dynamodb:GetItem" {
								assert.True(t, strings.Contains(res, links) || strings.Contains(res, keysTable), st.Resources)
							}
							if name == "redirect" && a == "dynamodb:GetItem" {
								assert.True(t, strings.Contains(res, links) && strings.Contains(res, here) || strings.Contains(res, idem), st.Resources)
							}
							if name == "create" && strings.HasPrefix(a, "dynamodb:") {
								assert.True(t, strings.Contains(res, links) || strings.Contains(res, idem) || strings.Contains(res, keysTable) ||
									strings.Contains(res, reservations) || strings.Contains(res, linkTags) || strings.Contains(res, "tablesaudit"), st.Resources)
							}
							if name == "create" && resv {
								assert.NotContains(t, res, idem, "claims live in the reservation table: no grant on the idempotency table")
							}
							// stats Queries the links table's by-owner index too
							// (GET /v1/stats), which the check above pins.
							if name == "clicks" || name == "stats" && a != "dynamodb:Query" || strings.HasPrefix(name, "webhook") {
								if strings.HasPrefix(a, "dynamodb:") && a != "dynamodb:GetItem" && !slices.Contains(streamRead, a) {
									assert.NotContains(t, res, links, "%s touches only analytics with %s", name, a)
								}
							}
						}
					}
					wantActions := slices.Concat(logs, keys(g))
					switch name {
					case "ttlstream":
						wantActions = slices.Concat(wantActions, streamRead, dlq)
					case "clicks":
						wantActions = slices.Concat(wantActions, kinesisRead, dlq)
					case "webhookstream":
						wantActions = slices.Concat(wantActions, streamRead, dlq)
					case "webhookdelivery":
						// Consumes the queue; sends retries to it and spent ones to the DLQ.
						wantActions = slices.Concat(wantActions, dlq, []string{"sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:DeleteMessage"})
					}
					assert.ElementsMatch(t, wantActions, keys(got))
				})
			}

			// The redirect role may read the links table and write
			// nothing but the miss counters (UpdateItem on the misses
			// table) and, in the primary, the counter items of the
			// idempotency table; never the links.
			fn, _ := tp.function("redirect")
			stmts, _ := tp.roleStatements(fn)
			for _, st := range stmts {
				for _, a := range st.Actions {
					if a == "dynamodb:UpdateItem" {
						assert.NotContains(t, strings.ToLower(st.Resources), links, "redirect may update only the misses and counter items")
						assert.True(t, strings.Contains(st.Resources, "Misses") || region == primary && strings.Contains(strings.ToLower(st.Resources), idem), st.Resources)
						continue
					}
					for _, w := range writeActions {
						assert.False(t, strings.HasPrefix(a, w), "redirect may not %s on %s", a, st.Resources)
					}
				}
			}
		}
		// Only the edge stack grants invalidations, to manage.
		for _, region := range s.cfg.Regions {
			for _, p := range s.regional(region).resources("AWS::IAM::Policy") {
				assert.NotContains(t, toJSON(p.Props), "cloudfront:", p.ID)
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestNagAwsSolutions(t *testing.T) {
	// An unsuppressed error fails the synthesis itself (get reports it
	// with CDK's validation report); warnings must be fixed or suppressed
	// with a reason too.
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for name, msgs := range s.messages {
			for _, m := range msgs {
				data := fmt.Sprint(m.Entry.Data)
				if strings.HasPrefix(data, "AwsSolutions-") && m.Level != "INFO" {
					t.Errorf("%s: %s %s: %s", name, m.Level, m.ID, data)
				}
			}
		}
	}
	for _, sup := range infra.Suppressions {
		assert.Greater(t, len(sup.Reason), 60, "%s (%s) needs a reason", sup.Rule, sup.Where)
		assert.True(t, strings.HasPrefix(sup.Rule, "AwsSolutions-"), sup.Rule)
	}
	// The suppressions applied carry their reasons into the template.
	md := toJSON(defaults.get(t).edge())
	assert.Contains(t, md, "AwsSolutions-CFR3")
	assert.NotContains(t, toJSON(custom.get(t).edge()), "AwsSolutions-CFR4", "with a custom domain TLS is enforced, nothing to suppress")
}

func TestReclaimStateMachine(t *testing.T) {
	s := defaults.get(t)
	tp := s.regional(s.cfg.PrimaryRegion)
	sms := tp.resources("AWS::StepFunctions::StateMachine")
	require.Len(t, sms, 1)
	sm := sms[0].Props
	assert.Equal(t, "STANDARD", sm["StateMachineType"])
	assert.Equal(t, "ALL", get(sm, "LoggingConfiguration", "Level"))
	assert.Equal(t, true, get(sm, "TracingConfiguration", "Enabled"))

	// The definition as deployed: the Fn::Join CDK made of the ASL with the
	// function's ARN in it, joined with a concrete ARN.
	arn := "arn:aws:lambda:" + s.cfg.PrimaryRegion + ":" + testAccount + ":function:reclaim"
	var def strings.Builder
	for _, part := range asSlice(get(sm, "DefinitionString", "Fn::Join", 1)) {
		if str, ok := part.(string); ok {
			def.WriteString(str)
			continue
		}
		require.Contains(t, toJSON(part), "ReclaimFunction", "only the function ARN is a token")
		def.WriteString(arn)
	}
	var parsed map[string]any
	require.NoError(t, json.Unmarshal([]byte(def.String()), &parsed))
	assert.Contains(t, def.String(), arn)

	path := filepath.Join(t.TempDir(), "reclaim.asl.json")
	require.NoError(t, os.WriteFile(path, []byte(def.String()), 0o644))
	npx, err := exec.LookPath("npx")
	require.NoError(t, err, "asl-validator runs through npx (Node.js); install Node to run the infra tests")
	cmd := exec.Command(npx, "--no-install", "asl-validator", "--json-path", path)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "NPM_CONFIG_UPDATE_NOTIFIER=false")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "asl-validator: %s", out)

	schedules := tp.resources("AWS::Scheduler::Schedule")
	require.Len(t, schedules, 1)
	assert.Equal(t, s.cfg.ReclaimSchedule, schedules[0].Props["ScheduleExpression"])
	assert.Equal(t, `{"Ref":"`+sms[0].ID+`"}`, toJSON(get(schedules[0].Props, "Target", "Arn")))
	for _, region := range s.cfg.SecondaryRegions() {
		assert.Empty(t, s.regional(region).resources("AWS::StepFunctions::StateMachine"), "reclaim runs in the primary only")
	}
}

// CloudFront caches /%61bcdefg apart from /abcdefg, the HTTP API origin
// decodes both to the same code, and an invalidation of /abcdefg misses
// the first: the web ACL refuses every redirect path with a "%" in it,
// before the cache, and leaves /v1 alone.
func TestWAFRefusesPercentEncodedRedirectPaths(t *testing.T) {
	d := custom.get(t) // WAF on
	acls := d.edge().resources("AWS::WAFv2::WebACL")
	require.Len(t, acls, 1)
	acl := acls[0]
	var rule map[string]any
	priorities := map[float64]bool{}
	for _, r := range asSlice(acl.Props["Rules"]) {
		priorities[get(r, "Priority").(float64)] = true
		if get(r, "Name") == edge.WAFCanonicalPathRuleName {
			rule = r.(map[string]any)
		}
	}
	require.NotNil(t, rule, "no %s rule", edge.WAFCanonicalPathRuleName)
	assert.Len(t, priorities, len(asSlice(acl.Props["Rules"])), "rule priorities are distinct")

	assert.Equal(t, 400.0, get(rule, "Action", "Block", "CustomResponse", "ResponseCode"))
	key := get(rule, "Action", "Block", "CustomResponse", "CustomResponseBodyKey").(string)
	assert.Equal(t, edge.NonCanonicalPathBody, get(acl.Props, "CustomResponseBodies", key, "Content"))
	assert.Equal(t, edge.NonCanonicalPathBody, localedge.NonCanonicalPathBody, "the local edge answers as the web ACL does")

	statements := asSlice(get(rule, "Statement", "AndStatement", "Statements"))
	require.Len(t, statements, 2)
	assert.Equal(t, "/v1/", get(statements[0], "NotStatement", "Statement", "ByteMatchStatement", "SearchString"), "/v1 is not a redirect path")
	match := get(statements[1], "ByteMatchStatement").(map[string]any)
	assert.Equal(t, "%", match["SearchString"])
	assert.Equal(t, "CONTAINS", match["PositionalConstraint"])
	assert.Contains(t, get(match, "FieldToMatch"), "UriPath")
	assert.Equal(t, []any{map[string]any{"Priority": 0.0, "Type": "NONE"}}, match["TextTransformations"], "the path as sent, not decoded")
}

// TestWebhooksTable: the subscriptions hold signing secrets, so the table
// is encrypted with a KMS key, and its attempts expire.
func TestWebhooksTable(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			hooks := s.regional(region).resourcesNamed("AWS::DynamoDB::GlobalTable", "WebhooksSubscriptions")
			if region != s.cfg.PrimaryRegion {
				assert.Empty(t, hooks, "webhooks live in the primary region only")
				continue
			}
			require.Len(t, hooks, 1)
			p := hooks[0].Props
			assert.Equal(t, "KMS", get(p, "SSESpecification", "SSEType"))
			assert.Equal(t, true, get(p, "SSESpecification", "SSEEnabled"))
			assert.Equal(t, "expires_at", get(p, "TimeToLiveSpecification", "AttributeName"))
		}
	}
}

// TestMissBudgetEstate: the enumeration defence that pays only for misses.
// Every region's redirect counts unknown codes in its own misses table
// (MISSES_TABLE) with the budget the context sets; CloudFront sends it the
// viewer's address and nothing else the cache key lacks; with WAF off a
// viewer-request function refuses percent-encoded spellings as the web
// ACL would, and with WAF on there is no function.
func TestMissBudgetEstate(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			tp := s.regional(region)
			fn, ok := tp.function("redirect")
			require.True(t, ok)
			env := get(fn.Props, "Environment", "Variables").(map[string]any)
			assert.Contains(t, toJSON(env["MISSES_TABLE"]), "Misses", "%s/%s", s.name, region)
			assert.Equal(t, strconv.Itoa(s.cfg.MissBudget), env["SHORTENER_MISS_BUDGET"])
			assert.Equal(t, s.cfg.MissWindow.String(), env["SHORTENER_MISS_WINDOW"])
		}

		dist := s.edge().resources("AWS::CloudFront::Distribution")[0]
		def := get(dist.Props, "DistributionConfig", "DefaultCacheBehavior").(map[string]any)
		orp := s.edge().resource(get(def, "OriginRequestPolicyId", "Ref").(string))
		require.Equal(t, "AWS::CloudFront::OriginRequestPolicy", orp.Type, s.name)
		cfg := get(orp.Props, "OriginRequestPolicyConfig").(map[string]any)
		assert.Equal(t, "whitelist", get(cfg, "HeadersConfig", "HeaderBehavior"))
		headers := asSlice(get(cfg, "HeadersConfig", "Headers"))
		assert.Contains(t, headers, edge.ViewerAddressHeader)
		// CloudFront's quota: 10 headers per origin request policy
		// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html).
		assert.LessOrEqual(t, len(headers), 10, "%s: %v", s.name, headers)
		assert.Equal(t, "all", get(cfg, "QueryStringsConfig", "QueryStringBehavior"), "for the password form (TestDistribution)")
		assert.Equal(t, "none", get(cfg, "CookiesConfig", "CookieBehavior"))
		cache := s.edge().resource(get(def, "CachePolicyId", "Ref").(string))
		assert.Equal(t, "none", get(cache.Props, "CachePolicyConfig", "ParametersInCacheKeyAndForwardedToOrigin", "HeadersConfig", "HeaderBehavior"),
			"the viewer's address is never in the cache key")

		var fns []resource
		for _, f := range s.edge().resources("AWS::CloudFront::Function") {
			if strings.Contains(f.ID, "CanonicalPath") {
				fns = append(fns, f)
			}
		}
		// The viewer-response function that merges the visitor's query
		// runs with WAF on or off (TestQueryForwardEstate).
		var requestAssocs []any
		for _, a := range asSlice(def["FunctionAssociations"]) {
			if get(a, "EventType") == "viewer-request" {
				requestAssocs = append(requestAssocs, a)
			}
		}
		if s.cfg.WAF {
			assert.Empty(t, fns, "%s: the web ACL refuses the spellings", s.name)
			assert.Empty(t, requestAssocs)
			continue
		}
		require.Len(t, fns, 1, s.name)
		assert.Equal(t, edge.CanonicalPathFunctionCode, fns[0].Props["FunctionCode"])
		assert.Equal(t, "cloudfront-js-2.0", get(fns[0].Props, "FunctionConfig", "Runtime"))
		assocs := requestAssocs
		require.Len(t, assocs, 1)
		assert.Equal(t, "viewer-request", get(assocs[0], "EventType"))
		assert.Contains(t, toJSON(get(assocs[0], "FunctionARN")), fns[0].ID)
		for _, b := range asSlice(get(dist.Props, "DistributionConfig", "CacheBehaviors")) {
			assert.NotContains(t, toJSON(get(b, "FunctionAssociations")), fns[0].ID, "only the redirect behaviour runs it")
		}
	}
}

// TestQueryForwardEstate: the redirect behaviour, with WAF on or off, runs
// the query-forward function on the viewer response, and its cache key
// holds no query string, so one cached redirect serves every query; of
// the other behaviours only the password forms' runs it, for the 303 of
// the right password.
func TestQueryForwardEstate(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		var fns []resource
		for _, f := range s.edge().resources("AWS::CloudFront::Function") {
			if f.Props["FunctionCode"] == edge.QueryForwardFunctionCode {
				fns = append(fns, f)
			}
		}
		require.Len(t, fns, 1, s.name)
		dist := s.edge().resources("AWS::CloudFront::Distribution")[0]
		def := get(dist.Props, "DistributionConfig", "DefaultCacheBehavior").(map[string]any)
		var events []any
		for _, a := range asSlice(def["FunctionAssociations"]) {
			if strings.Contains(toJSON(get(a, "FunctionARN")), fns[0].ID) {
				events = append(events, get(a, "EventType"))
			}
		}
		assert.Equal(t, []any{"viewer-response"}, events, s.name)
		cache := s.edge().resource(get(def, "CachePolicyId", "Ref").(string))
		assert.Equal(t, "none", get(cache.Props, "CachePolicyConfig", "ParametersInCacheKeyAndForwardedToOrigin", "QueryStringsConfig", "QueryStringBehavior"),
			"%s: the query is never in the redirects' cache key", s.name)
		for _, b := range asSlice(get(dist.Props, "DistributionConfig", "CacheBehaviors")) {
			if get(b, "PathPattern") == "/unlock/*" {
				assert.Contains(t, toJSON(get(b, "FunctionAssociations")), fns[0].ID, "the password forms' 303")
				continue
			}
			assert.NotContains(t, toJSON(get(b, "FunctionAssociations")), fns[0].ID, "only the redirect and unlock behaviours run it")
		}
	}
}

// TestCanonicalPathFunction runs the function's code under Node as
// CloudFront Functions would call it: a redirect path passes untouched, a
// percent-encoded one gets the web ACL's 400 and body, never cached.
func TestCanonicalPathFunction(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the function runs under Node.js; install Node to run the infra tests")
	script := edge.CanonicalPathFunctionCode + `
const out = {};
for (const uri of ["/abc1234", "/%61bc1234", "/abc123%34", "/ab%20cd"]) {
  out[uri] = handler({ request: { method: "GET", uri: uri, headers: {}, querystring: {}, cookies: {} } });
}
process.stdout.write(JSON.stringify(out));
`
	cmd := exec.Command(node, "-e", script)
	raw, err := cmd.Output()
	require.NoError(t, err)
	var got map[string]map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "/abc1234", got["/abc1234"]["uri"], "the canonical path is passed on")
	for _, uri := range []string{"/%61bc1234", "/abc123%34", "/ab%20cd"} {
		r := got[uri]
		assert.Equal(t, 400.0, r["statusCode"], uri)
		assert.Equal(t, edge.NonCanonicalPathBody, get(r, "body", "data"), uri)
		assert.Equal(t, "no-store", get(r, "headers", "cache-control", "value"), uri)
	}
}

// TestStorageAndLogLevers: the cost levers' defaults (docs/cost-model.md)
// and their context switches.
func TestStorageAndLogLevers(t *testing.T) {
	tables := func(s *synthesized) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, r := range s.data().resources("AWS::DynamoDB::GlobalTable") {
			for _, name := range []string{"Links", "Keys", "Analytics", "Idempotency"} {
				if strings.HasPrefix(r.ID, "Tables"+name) {
					out[name] = r.Props
				}
			}
		}
		return out
	}
	class := func(p map[string]any) map[string]any {
		out := map[string]any{}
		for _, r := range asSlice(p["Replicas"]) {
			out[get(r, "Region").(string)] = get(r, "TableClass")
		}
		return out
	}
	pitr := func(p map[string]any) map[string]bool {
		out := map[string]bool{}
		for _, r := range asSlice(p["Replicas"]) {
			out[get(r, "Region").(string)], _ = get(r, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled").(bool)
		}
		return out
	}
	d := defaults.get(t)
	dt := tables(d)
	assert.Equal(t, map[string]any{"us-east-1": "STANDARD_INFREQUENT_ACCESS", "us-west-2": "STANDARD_INFREQUENT_ACCESS"},
		class(dt["Links"]), "links: storage dominates")
	assert.Equal(t, map[string]any{"us-east-1": "STANDARD"}, class(dt["Analytics"]), "analytics: writes dominate")
	assert.Equal(t, map[string]bool{"us-east-1": true, "us-west-2": false}, pitr(dt["Links"]), "PITR on the primary replica only")
	assert.Equal(t, map[string]bool{"us-east-1": true, "us-west-2": true}, pitr(dt["Keys"]))
	assert.Equal(t, map[string]bool{"us-east-1": false}, pitr(dt["Analytics"]))
	assert.Equal(t, map[string]bool{"us-east-1": false}, pitr(dt["Idempotency"]))
	for _, g := range asSlice(dt["Links"]["GlobalSecondaryIndexes"]) {
		if get(g, "IndexName") == tableschema.IndexByOwner {
			assert.Equal(t, "INCLUDE", get(g, "Projection", "ProjectionType"))
			assert.ElementsMatch(t, tableschema.ByOwnerAttributes, get(g, "Projection", "NonKeyAttributes"))
		}
	}
	fn, ok := d.regional("us-east-1").function("redirect")
	require.True(t, ok)
	assert.Equal(t, "WARN", get(fn.Props, "LoggingConfig", "SystemLogLevel"), "no START/END/REPORT lines")
	assert.Equal(t, "JSON", get(fn.Props, "LoggingConfig", "LogFormat"))
	stream := d.regional("us-east-1").resources("AWS::Kinesis::Stream")[0]
	assert.Equal(t, "ON_DEMAND", get(stream.Props, "StreamModeDetails", "StreamMode"))

	l := levers.get(t)
	lt := tables(l)
	assert.Equal(t, map[string]any{"us-east-1": "STANDARD", "us-west-2": "STANDARD"}, class(lt["Links"]))
	assert.Equal(t, map[string]any{"us-east-1": "STANDARD_INFREQUENT_ACCESS"}, class(lt["Analytics"]))
	assert.Equal(t, map[string]bool{"us-east-1": true, "us-west-2": true}, pitr(lt["Links"]))
	assert.Equal(t, map[string]bool{"us-east-1": true}, pitr(lt["Analytics"]))
	for _, g := range asSlice(lt["Links"]["GlobalSecondaryIndexes"]) {
		if get(g, "IndexName") == tableschema.IndexByOwner {
			assert.Equal(t, "ALL", get(g, "Projection", "ProjectionType"))
		}
	}
	fn, ok = l.regional("us-east-1").function("redirect")
	require.True(t, ok)
	assert.Equal(t, "INFO", get(fn.Props, "LoggingConfig", "SystemLogLevel"))
	stream = l.regional("us-east-1").resources("AWS::Kinesis::Stream")[0]
	assert.Equal(t, "PROVISIONED", get(stream.Props, "StreamModeDetails", "StreamMode"))
	assert.Equal(t, 12.0, stream.Props["ShardCount"])
}

var levers = &synthesized{name: "levers", overrides: map[string]any{
	infra.CtxLinksTableClass: "STANDARD", infra.CtxAnalyticsTableClass: "STANDARD_INFREQUENT_ACCESS",
	infra.CtxPITRLinks: "all", infra.CtxPITRAnalytics: true, infra.CtxOwnerIndexProjection: "ALL",
	infra.CtxPITRReservations: "all",
	infra.CtxSystemLogLevel:   "INFO", infra.CtxKinesisShards: 12, infra.CtxNag: false,
}}

// TestStatsQueriesTheTagsTable: GET /v1/stats?tag= reads a tag's links
// from this region's tags table, so the stats function may Query it and
// is told its name; without the grant AWS would deny every ?tag=.
func TestStatsQueriesTheTagsTable(t *testing.T) {
	s := defaults.get(t)
	for _, region := range infra.V1Regions(s.cfg) {
		tp := s.regional(region)
		fn, ok := tp.function("stats")
		require.True(t, ok)
		assert.Contains(t, toJSON(get(fn.Props, "Environment", "Variables", "LINK_TAGS_TABLE")), "TablesLinkTags", region)
		stmts, _ := tp.roleStatements(fn)
		found := false
		for _, st := range stmts {
			res := strings.ToLower(s.resolvedResources(st))
			if slices.Contains(st.Actions, "dynamodb:Query") && strings.Contains(res, "tableslinktags") && strings.Contains(res, "arn:aws:dynamodb:"+region+":") {
				found = true
			}
		}
		assert.True(t, found, "%s: Query on this region's tags table", region)
	}
}
