package apiauthfn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// FuzzHandle: whatever the headers and the method ARN, the authorizer
// never panics, and allows only with an owner in its context.
func FuzzHandle(f *testing.F) {
	f.Add(aliceKey, "", methodARN)
	f.Add("", "Bearer good", methodARN)
	f.Add("", "bearer  good ", "arn:aws:execute-api:x:1:api/")
	f.Add(" ", "Basic", "arn:aws:s3:::bucket")
	f.Fuzz(func(t *testing.T, key, authz, arn string) {
		req := fixture(t, map[string]string{"x-api-key": key, "Authorization": authz})
		req.MethodArn = arn
		resp, err := newHandler(t, fakeVerifier{}).Handle(context.Background(), req)
		if err != nil || resp.PolicyDocument.Statement[0].Effect != "Allow" {
			return
		}
		assert.NotEmpty(t, resp.Context["owner"])
	})
}

// FuzzWorkspaceHeader: whatever X-Workspace says, a signed-in user is
// allowed only into their personal workspace or one they are a member
// of, with that membership's role.
func FuzzWorkspaceHeader(f *testing.F) {
	for _, s := range []string{"", "team-a", "user:solo-sub", "user:other", "team a", "TEAM-A", "team-a\x00", "\u00e9quipe"} {
		f.Add(s)
	}
	members := workspace.NewMemory()
	if err := members.Put(context.Background(), workspace.Member{Workspace: "team-a", User: "solo-sub", Role: workspace.RoleViewer}); err != nil {
		f.Fatal(err)
	}
	h := apiauthfn.New(apiauthfn.Options{Keys: apikey.NewResolver(apikey.NewMemory(nil), apikey.ResolverOptions{}), Members: members,
		Verifier: fakeVerifier{"solo": {Subject: "solo-sub"}}, UsageKey: usageKey})
	f.Fuzz(func(t *testing.T, ws string) {
		req := fixture(t, map[string]string{"Authorization": "Bearer solo", "X-Workspace": ws})
		resp, err := h.Handle(context.Background(), req)
		if err != nil || resp.PolicyDocument.Statement[0].Effect != "Allow" {
			return
		}
		switch resp.Context["owner"] {
		case "team-a":
			assert.Equal(t, "viewer", resp.Context["role"])
		case "user:solo-sub":
			assert.Equal(t, "admin", resp.Context["role"])
		default:
			t.Fatalf("allowed into %v with X-Workspace %q", resp.Context["owner"], ws)
		}
	})
}
