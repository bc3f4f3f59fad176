package statsfn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
)

// TestRoles: every role reads stats, a viewer's included; a credential
// with no known role reads nothing.
func TestRoles(t *testing.T) {
	for _, tt := range []struct {
		role    string
		allowed bool
	}{{apigw.RoleViewer, true}, {apigw.RoleEditor, true}, {apigw.RoleAdmin, true}, {"stranger", false}} {
		t.Run(tt.role, func(t *testing.T) {
			f := newFixture(t, seededClicks(t))
			resp, err := f.h.Handle(context.Background(), apigwtest.AsRole(event(t, "stats-default.json"), owner, tt.role))
			require.NoError(t, err)
			if !tt.allowed {
				assert.True(t, apigwtest.RoleRefused(t, resp, apigw.RoleViewer), "%d %s", resp.StatusCode, resp.Body)
				return
			}
			assert.Equal(t, 200, resp.StatusCode, resp.Body)
		})
	}
}
