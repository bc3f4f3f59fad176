package infra_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// versionKeys is the default deployment with edgeVersionKeys on, and
// versionKeysWAF the same with WAF (the function alone on viewer requests
// either way).
var (
	versionKeys    = &synthesized{name: "versionKeys", overrides: map[string]any{infra.CtxEdgeVersionKeys: true}}
	versionKeysWAF = &synthesized{name: "versionKeysWAF", overrides: map[string]any{infra.CtxEdgeVersionKeys: true, infra.CtxWAF: true}}
)

// kvsActions are all manage may do to the store.
var kvsActions = []string{"cloudfront-keyvaluestore:DescribeKeyValueStore", "cloudfront-keyvaluestore:GetKey", "cloudfront-keyvaluestore:PutKey"}

// TestVersionKeysEdge: with edgeVersionKeys the edge stack has one key
// value store, associated with the redirect behaviour's one
// viewer-request function (version-key, whose code is the edgespec
// source), the redirect cache policy keys on the version header, the
// edge parameter names the store, and manage's role may read the store's
// ETag and get and put its keys, on that store alone, and still
// invalidate its distribution (the fallback of a put that fails). cdk-nag
// has nothing to say (TestNagAwsSolutions' rule, here).
func TestVersionKeysEdge(t *testing.T) {
	for _, s := range []*synthesized{versionKeys.get(t), versionKeysWAF.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			e := s.edge()
			stores := e.resources("AWS::CloudFront::KeyValueStore")
			require.Len(t, stores, 1)
			store := stores[0]
			storeARN := `{"Fn::GetAtt":["` + store.ID + `","Arn"]}`

			var fn resource
			for _, f := range e.resources("AWS::CloudFront::Function") {
				if get(f.Props, "FunctionConfig", "KeyValueStoreAssociations") != nil {
					require.Empty(t, fn.ID, "one function reads the store")
					fn = f
				}
			}
			require.NotEmpty(t, fn.ID, "a function has the store associated")
			assocs := asSlice(get(fn.Props, "FunctionConfig", "KeyValueStoreAssociations"))
			require.Len(t, assocs, 1)
			assert.JSONEq(t, storeARN, toJSON(get(assocs[0], "KeyValueStoreARN")))
			assert.Equal(t, edgespec.MustFunctionSource(edgespec.VersionKeyFunction), fn.Props["FunctionCode"])
			assert.Equal(t, "cloudfront-js-2.0", get(fn.Props, "FunctionConfig", "Runtime"))

			dists := e.resources("AWS::CloudFront::Distribution")
			require.Len(t, dists, 1)
			def := get(dists[0].Props, "DistributionConfig", "DefaultCacheBehavior")
			var viewerRequest []string
			for _, a := range asSlice(get(def, "FunctionAssociations")) {
				if get(a, "EventType") == "viewer-request" {
					viewerRequest = append(viewerRequest, toJSON(get(a, "FunctionARN")))
				}
			}
			require.Len(t, viewerRequest, 1, "one viewer-request function per behaviour")
			assert.Contains(t, viewerRequest[0], fn.ID)

			policyID := get(get(def, "CachePolicyId"), "Ref").(string)
			keyConfig := get(e.resource(policyID).Props, "CachePolicyConfig", "ParametersInCacheKeyAndForwardedToOrigin")
			assert.Equal(t, "whitelist", get(keyConfig, "HeadersConfig", "HeaderBehavior"))
			assert.Equal(t, []any{edgespec.VersionHeader}, get(keyConfig, "HeadersConfig", "Headers"))
			assert.Equal(t, "none", get(keyConfig, "QueryStringsConfig", "QueryStringBehavior"))

			var granted int
			for _, p := range e.resources("AWS::IAM::Policy") {
				doc := toJSON(p.Props)
				if !strings.Contains(doc, "cloudfront") || !strings.Contains(doc, "ManageFunctionRole") {
					continue
				}
				stmts := asSlice(get(p.Props, "PolicyDocument", "Statement"))
				require.Len(t, stmts, 2, p.ID)
				assert.Equal(t, "cloudfront:CreateInvalidation", get(stmts[0], "Action"), "the fallback")
				assert.Contains(t, toJSON(get(stmts[0], "Resource")), `{"Ref":"EdgeDistribution`, "this distribution, no wildcard")
				var actions []string
				for _, a := range asSlice(get(stmts[1], "Action")) {
					actions = append(actions, a.(string))
				}
				assert.ElementsMatch(t, kvsActions, actions)
				assert.JSONEq(t, storeARN, toJSON(get(stmts[1], "Resource")), "this store alone")
				granted++
			}
			assert.Equal(t, 1, granted)

			// The edge parameter carries the store's ARN to manage.
			params := toJSON(e.resources("Custom::AWS"))
			assert.Contains(t, params, edgeinfo.KeyVersionStore)
			assert.Contains(t, params, store.ID)

			for name, msgs := range s.messages {
				for _, m := range msgs {
					if data := toJSON(m.Entry.Data); strings.Contains(data, "AwsSolutions-") && m.Level != "INFO" {
						t.Errorf("%s: %s %s: %s", name, m.Level, m.ID, data)
					}
				}
			}
		})
	}
}

// TestVersionKeysRegional: with edgeVersionKeys no Region keeps edge
// marks: no marks table, the redirect writes none and manage fences none;
// manage is told to put versions instead (EDGE_VERSION_KEYS).
func TestVersionKeysRegional(t *testing.T) {
	s := versionKeys.get(t)
	for _, region := range s.cfg.Regions {
		t.Run(region, func(t *testing.T) {
			tp := s.regional(region)
			assert.Empty(t, tp.resourcesNamed("AWS::DynamoDB::GlobalTable", "EdgeMarks"))
			assert.NotContains(t, toJSON(tp), s.cfg.EdgeMarksTableName())
			redirect, ok := tp.function("redirect")
			require.True(t, ok)
			env := get(redirect.Props, "Environment", "Variables").(map[string]any)
			assert.NotContains(t, env, "EDGE_MARKS_TABLE")
			manage, ok := tp.function("manage")
			require.True(t, ok)
			env = get(manage.Props, "Environment", "Variables").(map[string]any)
			assert.NotContains(t, env, "EDGE_MARKS_TABLES")
			assert.Equal(t, "true", env["EDGE_VERSION_KEYS"])
		})
	}
}

// TestVersionKeysOffByDefault: without the context nothing of it is
// there: no store, no function reading one, manage not told.
func TestVersionKeysOffByDefault(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			assert.False(t, s.cfg.EdgeVersionKeys)
			assert.Empty(t, s.edge().resources("AWS::CloudFront::KeyValueStore"))
			assert.NotContains(t, toJSON(s.edge()), "KeyValueStoreAssociations")
			assert.NotContains(t, toJSON(s.edge()), edgeinfo.KeyVersionStore)
			manage, ok := s.regional(s.cfg.PrimaryRegion).function("manage")
			require.True(t, ok)
			assert.NotContains(t, get(manage.Props, "Environment", "Variables").(map[string]any), "EDGE_VERSION_KEYS")
		})
	}
}

// sweepActions are all reclaim may do to the store: the sweep's ETag,
// listing, the re-read of a batch after a conflict, and its deletes.
var sweepActions = []string{"cloudfront-keyvaluestore:DescribeKeyValueStore", "cloudfront-keyvaluestore:ListKeys",
	"cloudfront-keyvaluestore:GetKey", "cloudfront-keyvaluestore:UpdateKeys"}

// TestVersionKeysSweep: with edgeVersionKeys the primary Region's reclaim
// function sweeps the store (EDGE_VERSION_KEYS) it learns from the edge
// parameter (EDGE_PARAMETER, and GetParameter of it), and the edge stack
// lets its role, and no other, list, read and delete keys of that store
// alone; no role anywhere else may list or delete keys.
func TestVersionKeysSweep(t *testing.T) {
	s := versionKeys.get(t)
	e := s.edge()
	stores := e.resources("AWS::CloudFront::KeyValueStore")
	require.Len(t, stores, 1)
	storeARN := `{"Fn::GetAtt":["` + stores[0].ID + `","Arn"]}`

	var sweeps []resource
	for _, p := range e.resources("AWS::IAM::Policy") {
		if strings.Contains(toJSON(p.Props), "cloudfront-keyvaluestore:ListKeys") {
			sweeps = append(sweeps, p)
		}
	}
	require.Len(t, sweeps, 1, "one policy may list the store")
	p := sweeps[0]
	stmts := asSlice(get(p.Props, "PolicyDocument", "Statement"))
	require.Len(t, stmts, 1)
	var actions []string
	for _, a := range asSlice(get(stmts[0], "Action")) {
		actions = append(actions, a.(string))
	}
	assert.ElementsMatch(t, sweepActions, actions)
	assert.Equal(t, "Allow", get(stmts[0], "Effect"))
	assert.JSONEq(t, storeARN, toJSON(get(stmts[0], "Resource")), "this store alone")
	roles := asSlice(p.Props["Roles"])
	require.Len(t, roles, 1, "reclaim's role alone")
	assert.Contains(t, toJSON(roles[0]), "ReclaimFunctionRole")
	assert.NotContains(t, toJSON(roles[0]), "ManageFunctionRole")

	for name, tp := range s.templates {
		if name == s.cfg.AppName+"-Edge" {
			continue
		}
		assert.NotContains(t, toJSON(tp), "cloudfront-keyvaluestore:ListKeys", name)
		assert.NotContains(t, toJSON(tp), "cloudfront-keyvaluestore:UpdateKeys", name)
	}

	primary := s.regional(s.cfg.PrimaryRegion)
	reclaim, ok := primary.function("reclaim")
	require.True(t, ok)
	env := get(reclaim.Props, "Environment", "Variables").(map[string]any)
	assert.Equal(t, "true", env["EDGE_VERSION_KEYS"])
	assert.Equal(t, s.cfg.EdgeParameterName(), env["EDGE_PARAMETER"])
	assert.Equal(t, strconv.Itoa(s.cfg.EdgeTTLSeconds), env["SHORTENER_EDGE_TTL"], "the edge life the sweep waits out")
	stmtsOf, _ := primary.roleStatements(reclaim)
	var reads int
	for _, st := range stmtsOf {
		if slices.Contains(st.Actions, "ssm:GetParameter") {
			reads++
			assert.Contains(t, st.Resources, "parameter"+s.cfg.EdgeParameterName())
		}
	}
	assert.Equal(t, 1, reads, "reclaim reads the edge parameter, nothing else in SSM")
}

// TestNoSweepByDefault: without edgeVersionKeys reclaim sweeps nothing,
// learns no edge parameter, and no role may touch a key value store.
func TestNoSweepByDefault(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			for name, tp := range s.templates {
				assert.NotContains(t, toJSON(tp), "cloudfront-keyvaluestore", name)
			}
			reclaim, ok := s.regional(s.cfg.PrimaryRegion).function("reclaim")
			require.True(t, ok)
			env := get(reclaim.Props, "Environment", "Variables").(map[string]any)
			assert.NotContains(t, env, "EDGE_VERSION_KEYS")
			assert.NotContains(t, env, "EDGE_PARAMETER")
		})
	}
}
