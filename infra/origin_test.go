package infra_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/infra/api"
	"github.com/shortlink-dev/shortener/infra/edge"
)

// TestOriginLockDown: only CloudFront gets a redirect out of a redirect
// origin. Every redirect origin of the distribution carries the secret
// header, resolved from Secrets Manager at deploy time (never a literal);
// every route of every redirect API runs the authorizer on that header,
// and the API has no other route (no $default) that could answer.
func TestOriginLockDown(t *testing.T) {
	assert.Equal(t, originauthfn.HeaderName, edge.OriginVerifyHeader, "CloudFront sends the header the authorizer reads")
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			d := s.edge().resources("AWS::CloudFront::Distribution")[0].Props["DistributionConfig"].(map[string]any)
			groups := asSlice(get(d, "OriginGroups", "Items"))
			require.Len(t, groups, 1)
			redirectOrigins := map[string]bool{}
			for _, m := range asSlice(get(groups[0], "Members", "Items")) {
				redirectOrigins[get(m, "OriginId").(string)] = true
			}
			require.Len(t, redirectOrigins, 2)
			// And the password forms' behaviour's, the primary alone.
			for _, b := range asSlice(d["CacheBehaviors"]) {
				if get(b, "PathPattern") == edge.UnlockPathPattern {
					redirectOrigins[get(b, "TargetOriginId").(string)] = true
				}
			}
			require.Len(t, redirectOrigins, 3)
			for _, o := range asSlice(d["Origins"]) {
				id := get(o, "Id").(string)
				headers := asSlice(get(o, "OriginCustomHeaders"))
				if !redirectOrigins[id] {
					assert.Empty(t, headers, "the /v1 origin keeps its API keys only: %s", id)
					continue
				}
				require.Len(t, headers, 1, id)
				assert.Equal(t, edge.OriginVerifyHeader, get(headers[0], "HeaderName"))
				value := toJSON(get(headers[0], "HeaderValue"))
				assert.Contains(t, value, "{{resolve:secretsmanager:", "a dynamic reference, resolved by CloudFormation")
				assert.Contains(t, toJSON(s.withOutputs(get(headers[0], "HeaderValue"))), ":secretsmanager:"+infra.EdgeRegion+":",
					"the replica in the edge stack's region")
				assert.Contains(t, value, `Fn::GetStackOutput`, "the secret's ARN comes from the data stack")
				if s.cfg.OriginSecretVersion != "" {
					assert.Contains(t, value, ":SecretString:::"+s.cfg.OriginSecretVersion+"}}", "pinned to the rotated version")
				} else {
					assert.Contains(t, value, ":SecretString:::}}", "AWSCURRENT")
				}
			}
			assert.NotContains(t, toJSON(s.edge()), "SecretString\":", "no secret value in the template")

			for _, region := range s.cfg.Regions {
				tp := s.regional(region)
				auths := tp.resources("AWS::ApiGatewayV2::Authorizer")
				require.Len(t, auths, 1, region)
				a := auths[0].Props
				assert.Equal(t, "REQUEST", a["AuthorizerType"])
				assert.Equal(t, []any{originauthfn.IdentitySource}, a["IdentitySource"], "401 without invoking anything when the header is missing")
				assert.Equal(t, true, a["EnableSimpleResponses"])
				assert.Equal(t, "2.0", a["AuthorizerPayloadFormatVersion"])
				assert.Equal(t, api.OriginAuthorizerTTL.Seconds(), a["AuthorizerResultTtlInSeconds"], "cached per header value")
				assert.Contains(t, toJSON(a["AuthorizerUri"]), "OriginauthFunction")

				routes := tp.resources("AWS::ApiGatewayV2::Route")
				require.NotEmpty(t, routes)
				for _, r := range routes {
					assert.Equal(t, "CUSTOM", r.Props["AuthorizationType"], "%s %s", region, r.Props["RouteKey"])
					assert.Equal(t, map[string]any{"Ref": auths[0].ID}, r.Props["AuthorizerId"], r.Props["RouteKey"])
					assert.NotEqual(t, "$default", r.Props["RouteKey"], "no catch-all route answers around the authorizer")
				}
				// API Gateway may invoke the authorizer; nothing else is granted.
				var invokers []string
				for _, p := range tp.resources("AWS::Lambda::Permission") {
					if strings.Contains(toJSON(p.Props["FunctionName"]), "OriginauthFunction") {
						invokers = append(invokers, p.Props["Principal"].(string))
					}
				}
				assert.Equal(t, []string{"apigateway.amazonaws.com"}, slices.Compact(invokers), region)

				fn, ok := tp.function("originauth")
				require.True(t, ok, region)
				id := toJSON(s.withOutputs(get(fn.Props, "Environment", "Variables", "ORIGIN_SECRET_ID")))
				assert.Contains(t, id, ":secretsmanager:"+region+":", "reads the replica in its own region")
				stmts, _ := tp.roleStatements(fn)
				var actions []string
				for _, st := range stmts {
					for _, act := range st.Actions {
						if strings.HasPrefix(act, "secretsmanager:") {
							actions = append(actions, act)
							assert.Contains(t, s.resolvedResources(st), ":secretsmanager:"+region+":", "only this region's replica")
						}
					}
				}
				sort.Strings(actions)
				assert.Equal(t, []string{"secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"}, actions)
			}

			secrets := s.data().resources("AWS::SecretsManager::Secret")
			require.Len(t, secrets, 1)
			sp := secrets[0].Props
			assert.Nil(t, sp["SecretString"], "generated by Secrets Manager, in no template")
			assert.Equal(t, float64(64), get(sp, "GenerateSecretString", "PasswordLength"))
			assert.Equal(t, true, get(sp, "GenerateSecretString", "ExcludePunctuation"))
			var replicas []string
			for _, r := range asSlice(sp["ReplicaRegions"]) {
				replicas = append(replicas, get(r, "Region").(string))
			}
			want := s.cfg.SecondaryRegions()
			if s.cfg.PrimaryRegion != infra.EdgeRegion && !slices.Contains(want, infra.EdgeRegion) {
				want = append(want, infra.EdgeRegion)
			}
			assert.ElementsMatch(t, want, replicas, "every reader's region has a copy")
		})
	}
}
