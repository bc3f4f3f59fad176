package managefn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
)

// TestRoles: per route and role, a viewer reads (a link, the listing, the
// QR code) and an editor also changes and deletes; a refusal is the 403
// missing-role naming the role needed, and changes nothing.
func TestRoles(t *testing.T) {
	routes := []struct {
		fixture string
		body    string
		need    string
	}{
		{"get-link.json", "", apigw.RoleViewer},
		{"list-links.json", "", apigw.RoleViewer},
		{"qr-link.json", "", apigw.RoleViewer},
		{"patch-link.json", `{"url":"https://example.com/changed"}`, apigw.RoleEditor},
		{"delete-link.json", "", apigw.RoleEditor},
	}
	for _, rt := range routes {
		for _, role := range []string{apigw.RoleViewer, apigw.RoleEditor, apigw.RoleAdmin, "stranger"} {
			t.Run(rt.fixture+"/"+role, func(t *testing.T) {
				f := newFixture(t)
				before := f.seed(t, code, "", ownerA)
				ev := apigwtest.AsRole(event(t, rt.fixture), ownerA, role)
				if rt.body != "" {
					ev = apigwtest.WithBody(ev, rt.body)
				}
				resp, err := f.h.Handle(context.Background(), ev)
				require.NoError(t, err)
				allowed := role == apigw.RoleAdmin || role == apigw.RoleEditor || role == rt.need
				if role == "stranger" {
					allowed = false
				}
				if !allowed {
					assert.True(t, apigwtest.RoleRefused(t, resp, rt.need), "%d %s", resp.StatusCode, resp.Body)
					assert.Equal(t, before, f.stored(t, code), "a refused call changes nothing")
					return
				}
				assert.Less(t, resp.StatusCode, 300, "%s", resp.Body)
			})
		}
	}
}
