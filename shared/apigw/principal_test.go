package apigw_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
)

// TestCallerFromTheAuthorizer: behind the /v1 authorizer the owner is the
// authorizer's, whatever identity.apiKey holds (with API key source
// AUTHORIZER it is the deployment's usage-plan key, which no owner has);
// without it, the key is looked up as before.
func TestCallerFromTheAuthorizer(t *testing.T) {
	ctx := context.Background()
	const aliceKey = "alice-key-0123456789abcdef"
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{aliceKey: "alice"}), apikey.ResolverOptions{})

	tests := []struct {
		name       string
		authorizer map[string]any
		apiKey     string
		want       apigw.Principal
		wantStatus int
	}{
		{
			name:       "a user the authorizer let in",
			authorizer: map[string]any{"owner": "bob", "role": "editor", "actor": "user:sub-1", "username": "bob", "principalId": "user:sub-1"},
			want:       apigw.Principal{Owner: "bob", Role: "editor", Actor: "user:sub-1", Username: "bob"},
		},
		{
			name:       "the authorizer wins over identity.apiKey",
			authorizer: map[string]any{"owner": "bob", "role": "admin", "actor": "key:12345678"},
			apiKey:     aliceKey,
			want:       apigw.Principal{Owner: "bob", Role: "admin", Actor: "key:12345678"},
		},
		{
			name:       "no role is admin",
			authorizer: map[string]any{"owner": "bob", "actor": "key:12345678"},
			want:       apigw.Principal{Owner: "bob", Role: "admin", Actor: "key:12345678"},
		},
		{
			name:   "no authorizer: the key's owner",
			apiKey: aliceKey,
			want:   apigw.Principal{Owner: "alice", Role: "admin", Actor: "key:" + apikey.Hash(aliceKey)[:8]},
		},
		{
			name:       "an authorizer context without an owner falls back to the key",
			authorizer: map[string]any{"principalId": "x"},
			wantStatus: 401,
		},
		{name: "an unknown key", apiKey: "unknown-key-0123456789ab", wantStatus: 403},
		{name: "nothing", wantStatus: 401},
		{name: "an owner that is not a string", authorizer: map[string]any{"owner": 7}, wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := events.APIGatewayProxyRequest{}
			req.RequestContext.Authorizer = tt.authorizer
			req.RequestContext.Identity.APIKey = tt.apiKey

			got, err := apigw.Resolve(ctx, &req, owners)
			owner, ownerErr := apigw.Owner(ctx, &req, owners)

			if tt.wantStatus != 0 {
				require.Error(t, err)
				require.Error(t, ownerErr)
				assert.Equal(t, tt.wantStatus, apigw.ProblemFor(err).Status)
				assert.Empty(t, owner)
				return
			}
			require.NoError(t, err)
			require.NoError(t, ownerErr)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want.Owner, owner)
		})
	}
}

// TestRequireRole: each role allows what the roles below it do, and a
// refusal is a 403 missing-role naming the role needed.
func TestRequireRole(t *testing.T) {
	tests := []struct {
		have, need string
		ok         bool
	}{
		{apigw.RoleViewer, apigw.RoleViewer, true},
		{apigw.RoleViewer, apigw.RoleEditor, false},
		{apigw.RoleViewer, apigw.RoleAdmin, false},
		{apigw.RoleEditor, apigw.RoleEditor, true},
		{apigw.RoleEditor, apigw.RoleAdmin, false},
		{apigw.RoleAdmin, apigw.RoleAdmin, true},
		{apigw.RoleAdmin, apigw.RoleViewer, true},
		{"", apigw.RoleViewer, false},
		{"superuser", apigw.RoleViewer, false},
	}
	for _, tt := range tests {
		t.Run(tt.have+"/"+tt.need, func(t *testing.T) {
			err := apigw.RequireRole(apigw.Principal{Owner: "team", Role: tt.have}, tt.need)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			p := apigw.ProblemFor(err)
			assert.Equal(t, 403, p.Status)
			assert.True(t, strings.HasSuffix(p.Type, "#missing-role"), p.Type)
			assert.Contains(t, p.Detail, "the "+tt.need+" role")
		})
	}
}
