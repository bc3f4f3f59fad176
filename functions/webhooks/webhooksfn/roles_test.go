package webhooksfn_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// TestRoles: webhooks are an admin's, every route of them: a viewer and
// an editor are refused with the 403 missing-role naming admin, and
// nothing is written.
func TestRoles(t *testing.T) {
	routes := []struct{ method, resource, id, body string }{
		{"POST", webhooksfn.ResourceWebhooks, "", `{"url":"https://hooks.example.com/in","events":["link.created"]}`},
		{"GET", webhooksfn.ResourceWebhooks, "", ""},
		{"DELETE", webhooksfn.ResourceWebhook, "wh_0123456789abcdef", ""},
		{"GET", webhooksfn.ResourceDeliveries, "wh_0123456789abcdef", ""},
	}
	for _, rt := range routes {
		for _, role := range []string{apigw.RoleViewer, apigw.RoleEditor, apigw.RoleAdmin} {
			t.Run(rt.method+" "+rt.resource+"/"+role, func(t *testing.T) {
				store := webhook.NewMemory()
				req := apigwtest.AsRole(request(rt.method, rt.resource, "", rt.id, rt.body), "alice", role)
				resp, err := newHandler(t, store, io.Discard).Handle(context.Background(), req)
				require.NoError(t, err)
				refused := apigwtest.RoleRefused(t, resp, apigw.RoleAdmin)
				assert.Equal(t, role != apigw.RoleAdmin, refused, "%d %s", resp.StatusCode, resp.Body)
				if refused {
					subs, err := store.List(context.Background(), "alice")
					require.NoError(t, err)
					assert.Empty(t, subs)
				}
			})
		}
	}
}
