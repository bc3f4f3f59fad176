package infra_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEdgeStackPublishesTheDistributionInEveryRegion: one deploy. The edge
// stack, deployed last, writes the distribution's ID and domain into the
// edge parameter of every region, so the functions created before it learn
// them without a second pass; its writer may touch exactly those
// parameters.
func TestEdgeStackPublishesTheDistributionInEveryRegion(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			e := s.edge()
			name := "/" + s.cfg.AppName + "/edge"
			var regions []string
			for _, w := range e.resources("Custom::AWS") {
				create := toJSON(w.Props["Create"])
				if !strings.Contains(create, "putParameter") {
					continue
				}
				var call struct {
					Region string `json:"region"`
				}
				// The region is in the literal part of the joined call.
				for _, part := range asSlice(get(w.Props, "Create", "Fn::Join", 1)) {
					if str, ok := part.(string); ok && strings.Contains(str, `"region":`) {
						i := strings.Index(str, `"physicalResourceId"`)
						require.NoError(t, json.Unmarshal([]byte("{"+str[i:]), &call), str)
					}
				}
				regions = append(regions, call.Region)
				assert.Contains(t, create, `\"Name\":\"`+name+`\"`)
				assert.Contains(t, create, `EdgeDistribution`, "the value is the distribution's, resolved at deploy time")
				assert.Contains(t, create, `distributionId`)
				assert.Contains(t, create, `domainName`)
				assert.Equal(t, toJSON(w.Props["Create"]), toJSON(w.Props["Update"]), "an update rewrites it (a replaced distribution)")
				assert.Contains(t, toJSON(w.Props["Delete"]), "deleteParameter")
			}
			assert.ElementsMatch(t, s.cfg.Regions, regions, "one writer per region")

			// The writer's role: put and delete those parameters, nothing else.
			var resources []string
			for _, p := range e.resources("AWS::IAM::Policy") {
				if !strings.HasPrefix(p.ID, "PublishParameter") {
					continue
				}
				for _, st := range asSlice(get(p.Props, "PolicyDocument", "Statement")) {
					st := st.(map[string]any)
					assert.ElementsMatch(t, []any{"ssm:DeleteParameter", "ssm:PutParameter"}, st["Action"])
					resources = append(resources, st["Resource"].(string))
				}
			}
			var want []string
			for _, r := range s.cfg.Regions {
				want = append(want, "arn:aws:ssm:"+r+":"+testAccount+":parameter"+name)
			}
			assert.ElementsMatch(t, want, resources)
		})
	}
}

// TestEdgeStackLetsManageInvalidateItsDistributionOnly: the
// distribution's ID is not known to the regional stacks, so the edge stack
// grants the invalidation, on its one distribution, to the roles of the
// function that invalidates (manage) and to no other: create invalidates
// nothing (docs/lifecycle.md, section 6).
func TestEdgeStackLetsManageInvalidateItsDistributionOnly(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			e := s.edge()
			var granted []string
			for _, p := range e.resources("AWS::IAM::Policy") {
				if !strings.Contains(toJSON(p.Props), "cloudfront:") {
					continue
				}
				stmts := asSlice(get(p.Props, "PolicyDocument", "Statement"))
				require.Len(t, stmts, 1, p.ID)
				st := stmts[0].(map[string]any)
				assert.Equal(t, "cloudfront:CreateInvalidation", st["Action"])
				assert.Contains(t, toJSON(st["Resource"]), `arn:aws:cloudfront::`+testAccount+`:distribution/`)
				assert.Contains(t, toJSON(st["Resource"]), `{"Ref":"EdgeDistribution`, "this distribution, no wildcard")
				for _, r := range asSlice(p.Props["Roles"]) {
					out := toJSON(get(r, "Fn::GetStackOutput", "OutputName"))
					granted = append(granted, out)
				}
			}
			var fns []string
			for _, g := range granted {
				switch {
				case strings.Contains(g, "ManageFunctionRole"):
					fns = append(fns, "manage")
				default:
					t.Errorf("invalidation granted to %s", g)
				}
			}
			require.NotEmpty(t, fns)
			for _, fn := range fns {
				assert.Equal(t, "manage", fn)
			}
		})
	}
}

// TestSynthesisWarnsOfNothing: cdk.json's context as shipped, which a
// first deploy uses, synthesizes without a single warning: there is no
// second pass to remind anyone of.
func TestSynthesisWarnsOfNothing(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for name, msgs := range s.messages {
			for _, m := range msgs {
				if level := strings.ToUpper(m.Level); level == "WARNING" || level == "ERROR" {
					t.Errorf("%s/%s: %s %s: %v", s.name, name, m.Level, m.ID, m.Entry.Data)
				}
			}
		}
	}
}
