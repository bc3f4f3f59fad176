package managefn

import (
	"context"
	"errors"
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
)

func (f *fixture) withAudit() *audit.Memory {
	log := &audit.Memory{Now: f.clock.Now}
	f.h.Audit, f.h.AuditLog = log, log
	return log
}

func TestEditsAndDeletesAreOnTheAuditLog(t *testing.T) {
	f := newFixture(t)
	log := f.withAudit()
	l := f.seed(t, "aB3dE5f", "", ownerA)

	patch := apigwtest.WithBody(at(event(t, "patch-link.json"), l.Code), `{"url":"https://new.example/","password":"s3cret-s3cret"}`)
	patch = apigwtest.WithHeader(patch, "X-Shortener-Client", "console")
	resp := f.do(t, patch)
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	resp = f.do(t, at(event(t, "delete-link.json"), l.Code))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, resp.Body)

	entries := log.All(ownerA)
	require.Len(t, entries, 2)
	up, del := entries[0], entries[1]
	assert.Equal(t, audit.ActionUpdate, up.Action)
	assert.Equal(t, audit.SourceConsole, up.Source)
	assert.Equal(t, "aB3dE5f", up.TargetID)
	assert.Contains(t, string(up.Before), l.URL)
	assert.Contains(t, string(up.After), "https://new.example/")
	assert.Contains(t, string(up.After), `"password":"[redacted]"`)
	assert.NotContains(t, string(up.After), "argon2")
	assert.NotContains(t, string(up.After), "s3cret")
	assert.Regexp(t, `^key:[0-9a-f]{8}$`, up.Actor.ID)

	assert.Equal(t, audit.ActionDelete, del.Action)
	assert.Equal(t, audit.SourceAPI, del.Source)
	assert.Contains(t, string(del.Before), "https://new.example/")
	assert.Contains(t, string(del.After), `"status":"tombstone"`)
}

func TestRefusedAndEmptyChangesAreNotOnTheLog(t *testing.T) {
	f := newFixture(t)
	log := f.withAudit()
	l := f.seed(t, "aB3dE5f", "", ownerA)
	f.seed(t, "bB3dE5f", "", ownerB)
	// Unchanged: no write, no entry.
	resp := f.do(t, apigwtest.WithBody(at(event(t, "patch-link.json"), l.Code), `{"url":"`+l.URL+`"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	// Stale If-Match: 412.
	resp = f.do(t, withIfMatch(apigwtest.WithBody(at(event(t, "patch-link.json"), l.Code), `{"url":"https://x.example/"}`), `"7"`))
	require.Equal(t, http.StatusPreconditionFailed, resp.StatusCode, resp.Body)
	// Someone else's link: 404.
	resp = f.do(t, at(event(t, "delete-link.json"), "bB3dE5f"))
	require.Equal(t, http.StatusNotFound, resp.StatusCode, resp.Body)
	assert.Empty(t, log.All(ownerA))
	assert.Empty(t, log.All(ownerB))
}

func TestAnAuditFailureDoesNotFailTheEdit(t *testing.T) {
	f := newFixture(t)
	log := f.withAudit()
	log.Fail = errors.New("down")
	l := f.seed(t, "aB3dE5f", "", ownerA)
	resp := f.do(t, apigwtest.WithBody(at(event(t, "patch-link.json"), l.Code), `{"url":"https://new.example/"}`))
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	assert.Equal(t, "https://new.example/", f.stored(t, l.Code).URL)
	assert.Contains(t, f.logs.String(), "audit entry not written")
}

func auditEvent(t *testing.T, role, owner string, query map[string]string) events.APIGatewayProxyRequest {
	ev := event(t, "audit-log.json")
	ev.RequestContext.Authorizer["role"] = role
	ev.RequestContext.Authorizer["owner"] = owner
	ev.QueryStringParameters, ev.MultiValueQueryStringParameters = query, nil
	return ev
}

func TestReadingTheAuditLog(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	log := f.withAudit()
	for i, owner := range []string{ownerA, ownerA, ownerA, ownerB} {
		require.NoError(t, log.Record(ctx, audit.Entry{Workspace: owner, At: start.Add(time.Duration(i) * time.Second), Action: audit.ActionCreate,
			Target: audit.TargetLink, TargetID: "code" + string(rune('0'+i)), Actor: audit.Actor{ID: "user:7d1c", Username: "ana"},
			After: []byte(`{"url":"https://a.example/","secret":"whsec_abc"}`)}))
	}

	resp := f.do(t, auditEvent(t, "admin", ownerA, map[string]string{"limit": "2"}))
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	page := apigwtest.Decode[AuditPage](t, resp)
	require.Len(t, page.Entries, 2)
	assert.Equal(t, "code2", page.Entries[0].Target.ID, "newest first")
	assert.Equal(t, AuditActor{ID: "user:7d1c", Username: "ana"}, page.Entries[0].Actor)
	assert.NotContains(t, resp.Body, "whsec_")
	require.NotEmpty(t, page.NextCursor)

	resp = f.do(t, auditEvent(t, "admin", ownerA, map[string]string{"limit": "2", "cursor": page.NextCursor}))
	page = apigwtest.Decode[AuditPage](t, resp)
	require.Len(t, page.Entries, 1)
	assert.Equal(t, "code0", page.Entries[0].Target.ID)
	assert.Empty(t, page.NextCursor)

	resp = f.do(t, auditEvent(t, "admin", ownerB, nil))
	page = apigwtest.Decode[AuditPage](t, resp)
	require.Len(t, page.Entries, 1, "an admin reads only their own workspace's log")
	assert.Equal(t, "code3", page.Entries[0].Target.ID)

	resp = f.do(t, auditEvent(t, "admin", ownerA, map[string]string{"target": "code1"}))
	page = apigwtest.Decode[AuditPage](t, resp)
	require.Len(t, page.Entries, 1)
}

func TestTheAuditLogIsForAdmins(t *testing.T) {
	tests := []struct {
		name   string
		role   string
		query  map[string]string
		method string
		status int
		field  string
	}{
		{name: "admin", role: "admin", status: 200},
		{name: "editor", role: "editor", status: 403},
		{name: "viewer", role: "viewer", status: 403},
		{name: "bad filter", role: "admin", query: map[string]string{"target_type": "team"}, status: 400, field: "target_type"},
		{name: "bad cursor", role: "admin", query: map[string]string{"cursor": "bm9wZQ"}, status: 400, field: "cursor"},
		{name: "no writes", role: "admin", method: http.MethodDelete, status: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.withAudit()
			ev := auditEvent(t, tt.role, ownerA, tt.query)
			if tt.method != "" {
				ev.HTTPMethod = tt.method
			}
			resp := f.do(t, ev)
			if tt.status == 200 {
				require.Equal(t, 200, resp.StatusCode, resp.Body)
				assert.JSONEq(t, `{"entries":[]}`, resp.Body)
				return
			}
			if tt.status == 403 {
				// The role check before anything is read (apigw.RequireRole).
				require.Equal(t, 403, resp.StatusCode, resp.Body)
				got := apigwtest.Decode[apigw.Problem](t, resp)
				assert.True(t, strings.HasSuffix(got.Type, "#missing-role"), got.Type)
				assert.Contains(t, got.Detail, "admin")
				return
			}
			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
		})
	}
}
