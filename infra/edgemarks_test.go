package infra_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestEdgeMarksEstate: every Region has its own edge marks table
// (shared/edgemarks), named the same everywhere, regional, on demand, with
// its TTL and no stream or point-in-time recovery; its redirect may only
// UpdateItem it, and no other Region's; each management API may only
// UpdateItem (fence, which returns the mark it replaced) the marks tables
// of the Regions the edge's redirect origin group reaches, by exact ARN,
// which EDGE_MARKS_TABLES lists.
func TestEdgeMarksEstate(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		name := s.cfg.EdgeMarksTableName()
		origins := infra.RedirectOriginRegions(s.cfg)
		require.Contains(t, origins, s.cfg.PrimaryRegion)
		for _, region := range s.cfg.Regions {
			t.Run(s.name+"/"+region, func(t *testing.T) {
				tp := s.regional(region)
				tables := tp.resourcesNamed("AWS::DynamoDB::GlobalTable", "EdgeMarks")
				require.Len(t, tables, 1)
				marks := tables[0]
				assert.Equal(t, name, marks.Props["TableName"])
				replicas := asSlice(marks.Props["Replicas"])
				require.Len(t, replicas, 1, "this Region's table alone")
				assert.NotEqual(t, true, get(replicas[0], "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"))
				assert.Equal(t, localSchema(localtable.Input("t", tableschema.EdgeMarks()), tableschema.AttrHeldUntil), deployedSchema(marks.Props))

				redirect, ok := tp.function("redirect")
				require.True(t, ok)
				env := get(redirect.Props, "Environment", "Variables").(map[string]any)
				assert.Contains(t, toJSON(env["EDGE_MARKS_TABLE"]), marks.ID)
				stmts, _ := tp.roleStatements(redirect)
				marked := false
				for _, st := range stmts {
					if strings.Contains(st.Resources, marks.ID) {
						marked = true
						assert.Equal(t, []string{"dynamodb:UpdateItem"}, st.Actions, "the redirect only writes marks")
					}
					assert.NotContains(t, st.Resources, name, "no other Region's marks table")
				}
				assert.True(t, marked, "the redirect may write its Region's marks")

				manage, ok := tp.function("manage")
				if !slices.Contains(infra.V1Regions(s.cfg), region) {
					assert.False(t, ok)
					return
				}
				require.True(t, ok)
				env = get(manage.Props, "Environment", "Variables").(map[string]any)
				list := toJSON(env["EDGE_MARKS_TABLES"])
				stmts, _ = tp.roleStatements(manage)
				for _, r := range origins {
					arn := ":dynamodb:" + r + ":"
					assert.Contains(t, list, arn, "EDGE_MARKS_TABLES names %s's table", r)
					read := false
					for _, st := range stmts {
						if strings.Contains(st.Resources, arn) && strings.Contains(st.Resources, "table/"+name) {
							read = true
							assert.Equal(t, []string{"dynamodb:UpdateItem"}, st.Actions, "manage only fences marks")
						}
					}
					assert.True(t, read, "manage may fence %s's marks", r)
				}
				assert.Equal(t, len(origins), strings.Count(list, "table/"+name), "the origin group's Regions, no others")
				for _, st := range stmts {
					if strings.Contains(st.Resources, "table/"+name) {
						for _, r := range s.cfg.Regions {
							if !slices.Contains(origins, r) {
								assert.NotContains(t, st.Resources, ":dynamodb:"+r+":table/"+name)
							}
						}
					}
				}
			})
		}
	}
}
