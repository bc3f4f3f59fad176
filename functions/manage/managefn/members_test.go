package managefn

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

func memberEvent(method, user, body string) events.APIGatewayProxyRequest {
	ev := events.APIGatewayProxyRequest{HTTPMethod: method, Resource: ResourceMembers, Path: ResourceMembers, Body: body,
		Headers: map[string]string{"Content-Type": "application/json"}}
	if user != "" {
		ev.Resource, ev.Path = ResourceMember, "/v1/members/"+user
		ev.PathParameters = map[string]string{"user": user}
	}
	return ev
}

func membersFixture(t *testing.T) (*fixture, *workspace.Memory) {
	t.Helper()
	f := newFixture(t)
	members := workspace.NewMemory()
	f.h.Members = members
	require.NoError(t, members.Put(context.Background(), workspace.Member{Workspace: ownerA, User: "alice", Role: workspace.RoleAdmin, AddedAt: start, AddedBy: "operator"}))
	require.NoError(t, members.Put(context.Background(), workspace.Member{Workspace: ownerB, User: "bob", Role: workspace.RoleAdmin, AddedAt: start, AddedBy: "operator"}))
	return f, members
}

// TestMembersRoles: only an admin lists, puts and removes members.
func TestMembersRoles(t *testing.T) {
	routes := []events.APIGatewayProxyRequest{
		memberEvent(http.MethodGet, "", ""),
		memberEvent(http.MethodPut, "carol", `{"role":"viewer"}`),
		memberEvent(http.MethodDelete, "alice", ""),
	}
	for _, ev := range routes {
		for _, role := range []string{apigw.RoleViewer, apigw.RoleEditor} {
			t.Run(ev.HTTPMethod+"/"+role, func(t *testing.T) {
				f, members := membersFixture(t)
				resp := f.do(t, apigwtest.AsRole(ev, ownerA, role))
				assert.True(t, apigwtest.RoleRefused(t, resp, apigw.RoleAdmin), "%d %s", resp.StatusCode, resp.Body)
				ms, err := members.List(context.Background(), ownerA)
				require.NoError(t, err)
				assert.Len(t, ms, 1, "a refused call changes nothing")
			})
		}
	}
}

func TestMembersAPI(t *testing.T) {
	f, members := membersFixture(t)
	admin := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		return f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
	}

	resp := admin(memberEvent(http.MethodPut, "carol", `{"role":"editor"}`))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, Member{User: "carol", Role: "editor", AddedAt: start.Format(time.RFC3339), AddedBy: "user:test-admin"}, apigwtest.Decode[Member](t, resp))

	resp = admin(memberEvent(http.MethodGet, "", ""))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	list := apigwtest.Decode[MemberList](t, resp)
	assert.Equal(t, ownerA, list.Workspace)
	require.Len(t, list.Members, 2)
	assert.Equal(t, []string{"alice", "carol"}, []string{list.Members[0].User, list.Members[1].User}, "only this workspace's members")

	t.Run("the last admin is kept", func(t *testing.T) {
		for _, ev := range []events.APIGatewayProxyRequest{
			memberEvent(http.MethodDelete, "alice", ""), memberEvent(http.MethodPut, "alice", `{"role":"viewer"}`),
		} {
			resp := admin(ev)
			require.Equal(t, 409, resp.StatusCode, resp.Body)
			got := apigwtest.Decode[apigw.Problem](t, resp)
			assert.True(t, strings.HasSuffix(got.Type, "#last-admin"), got.Type)
		}
		m, err := members.Get(context.Background(), ownerA, "alice")
		require.NoError(t, err)
		assert.Equal(t, workspace.RoleAdmin, m.Role)
	})

	t.Run("bad requests name the field", func(t *testing.T) {
		for body, field := range map[string]string{`{"role":"owner"}`: "role", `{}`: "role", `{"role":"viewer","x":1}`: "x", `nope`: "body"} {
			resp := admin(memberEvent(http.MethodPut, "dave", body))
			got := apigwtest.Decode[apigw.Problem](t, resp)
			assert.Equal(t, 400, resp.StatusCode, body)
			assert.Equal(t, field, got.Field, body)
		}
		ev := memberEvent(http.MethodPut, "dave", `{"role":"viewer"}`)
		ev.PathParameters["user"] = "has space"
		apigwtest.RequireProblem(t, admin(ev), 400, "user")
		_, err := members.Get(context.Background(), ownerA, "dave")
		assert.ErrorIs(t, err, workspace.ErrNotMember, "nothing written")
	})

	t.Run("another workspace's member is not found", func(t *testing.T) {
		apigwtest.RequireProblem(t, admin(memberEvent(http.MethodDelete, "bob", "")), 404, "")
		_, err := members.Get(context.Background(), ownerB, "bob")
		assert.NoError(t, err)
	})

	resp = admin(memberEvent(http.MethodDelete, "carol", ""))
	assert.Equal(t, 204, resp.StatusCode, resp.Body)
	_, err := members.Get(context.Background(), ownerA, "carol")
	assert.ErrorIs(t, err, workspace.ErrNotMember)
	apigwtest.RequireProblem(t, admin(memberEvent(http.MethodDelete, "carol", "")), 404, "")
	apigwtest.RequireProblem(t, admin(memberEvent(http.MethodPost, "", "{}")), 405, "")
}

// TestMemberChangesAreAudited: adding a member, changing their role and
// removing them are on the workspace's audit log, with the admin who did
// it and the member before and after; a refused change is not.
func TestMemberChangesAreAudited(t *testing.T) {
	f, _ := membersFixture(t)
	log := &audit.Memory{}
	f.h.Audit = log
	admin := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		return f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
	}
	require.Equal(t, 200, admin(memberEvent(http.MethodPut, "carol", `{"role":"editor"}`)).StatusCode)
	require.Equal(t, 200, admin(memberEvent(http.MethodPut, "carol", `{"role":"viewer"}`)).StatusCode)
	require.Equal(t, 409, admin(memberEvent(http.MethodDelete, "alice", "")).StatusCode, "the last admin")
	require.Equal(t, 204, admin(memberEvent(http.MethodDelete, "carol", "")).StatusCode)

	page, err := log.Query(context.Background(), ownerA, audit.Filter{Target: audit.TargetMember, Limit: 10})
	require.NoError(t, err)
	var got []string
	for _, e := range page.Entries {
		assert.Equal(t, "user:test-admin", e.Actor.ID)
		assert.Equal(t, "carol", e.TargetID)
		got = append(got, e.Action+" "+string(e.Before)+" -> "+string(e.After))
	}
	assert.ElementsMatch(t, []string{
		`create  -> {"added_at":"` + start.Format(time.RFC3339) + `","added_by":"user:test-admin","role":"editor","user":"carol"}`,
		`update {"added_at":"` + start.Format(time.RFC3339) + `","added_by":"user:test-admin","role":"editor","user":"carol"} -> {"added_at":"` + start.Format(time.RFC3339) + `","added_by":"user:test-admin","role":"viewer","user":"carol"}`,
		`delete {"added_at":"` + start.Format(time.RFC3339) + `","added_by":"user:test-admin","role":"viewer","user":"carol"} -> `,
	}, got)
	other, err := log.Query(context.Background(), ownerB, audit.Filter{Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, other.Entries, "another workspace's log has none of it")
}
