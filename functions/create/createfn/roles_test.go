package createfn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
)

// TestRoles: creating a link, one or a batch, needs an editor; a viewer
// is refused with the 403 missing-role naming it, and nothing is written.
func TestRoles(t *testing.T) {
	for _, fixture := range []string{"create-request.json", "batch-request.json"} {
		for _, tt := range []struct {
			role    string
			allowed bool
		}{{apigw.RoleViewer, false}, {apigw.RoleEditor, true}, {apigw.RoleAdmin, true}, {"", true}, {"stranger", false}} {
			t.Run(fixture+"/"+tt.role, func(t *testing.T) {
				f := newFixture(t, "Ab3dE5g", "Bc4eF6h", "Cd5fG7i")
				ev := apigwtest.AsRole(event(t, fixture), "p6r4ocs3d1", tt.role)
				resp, err := f.h.Handle(context.Background(), ev)
				require.NoError(t, err)
				if !tt.allowed {
					assert.True(t, apigwtest.RoleRefused(t, resp, apigw.RoleEditor), "%d %s", resp.StatusCode, resp.Body)
					links, _, err := f.store.List(context.Background(), "p6r4ocs3d1", 10, "")
					require.NoError(t, err)
					assert.Empty(t, links, "a refused create writes nothing")
					return
				}
				// A role the authorizer leaves empty is an admin's (a key
				// written before keys had roles).
				assert.Less(t, resp.StatusCode, 300, "%s", resp.Body)
			})
		}
	}
}
