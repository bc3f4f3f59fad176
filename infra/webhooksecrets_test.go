package infra_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookSecretsOnlyForAPIAndDelivery: the functions that only fan
// events out (webhookstream, clicks) may read the webhooks table only
// under an IAM condition that names the attributes they may read, none of
// them the signing secret, and asks for SPECIFIC_ATTRIBUTES; their GetItem
// is held to the version item. The webhooks API and the delivery function
// keep unconditioned grants (they write and sign with the secret).
func TestWebhookSecretsOnlyForAPIAndDelivery(t *testing.T) {
	s := defaults.get(t)
	tp := s.regional(s.cfg.PrimaryRegion)
	hooks := "webhookssubscriptions"
	for _, name := range []string{"webhookstream", "clicks"} {
		t.Run(name, func(t *testing.T) {
			fn, ok := tp.function(name)
			require.True(t, ok)
			stmts, _ := tp.roleStatements(fn)
			reads := 0
			for _, st := range stmts {
				if !strings.Contains(strings.ToLower(st.Resources), hooks) {
					continue
				}
				for _, a := range st.Actions {
					if !strings.HasPrefix(a, "dynamodb:") {
						continue
					}
					reads++
					assert.Contains(t, []string{"dynamodb:Query", "dynamodb:GetItem"}, a, "reads only")
					all, _ := st.Condition["ForAllValues:StringEquals"].(map[string]any)
					require.NotNil(t, all, "%s on the webhooks table is conditioned", a)
					var attrs []string
					for _, v := range asSlice(all["dynamodb:Attributes"]) {
						attrs = append(attrs, v.(string))
					}
					require.NotEmpty(t, attrs, "%s names the attributes it may read", a)
					assert.NotContains(t, attrs, "secret")
					assert.Subset(t, attrs, []string{"owner_id", "sk", "url", "events"})
					switch a {
					case "dynamodb:Query":
						assert.Equal(t, map[string]any{"dynamodb:Select": "SPECIFIC_ATTRIBUTES"}, st.Condition["StringEquals"],
							"a Query that names no attributes returns them all: it must ask for specific ones")
					case "dynamodb:GetItem":
						assert.Equal(t, []any{" subscriptions"}, asSlice(all["dynamodb:LeadingKeys"]), "the version item only")
					}
				}
			}
			assert.Equal(t, 2, reads, "Query and GetItem")
		})
	}
	for _, name := range []string{"webhooks", "webhookdelivery"} {
		fn, ok := tp.function(name)
		require.True(t, ok)
		stmts, _ := tp.roleStatements(fn)
		assert.True(t, slices.ContainsFunc(stmts, func(st statement) bool {
			return strings.Contains(strings.ToLower(st.Resources), hooks) && slices.Contains(st.Actions, "dynamodb:GetItem") && st.Condition == nil
		}), "%s reads whole subscriptions", name)
	}
}
