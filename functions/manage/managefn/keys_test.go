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
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
)

func keyEvent(method, resource, id, body string) events.APIGatewayProxyRequest {
	path := strings.Replace(resource, "{id}", id, 1)
	ev := events.APIGatewayProxyRequest{HTTPMethod: method, Resource: resource, Path: path, Body: body,
		Headers: map[string]string{"Content-Type": "application/json"}}
	if id != "" {
		ev.PathParameters = map[string]string{"id": id}
	}
	return ev
}

// keysFixture: ownerA has one admin key (adminKey), ownerB one key.
func keysFixture(t *testing.T) (*fixture, *apikey.Memory, string) {
	t.Helper()
	f := newFixture(t)
	keys := apikey.NewMemory(nil)
	f.h.Keys = keys
	ctx := context.Background()
	adminKey, _, err := apikey.IssueRole(ctx, keys, nil, ownerA, "", "first", "admin", start.Add(-time.Hour))
	require.NoError(t, err)
	_, _, err = apikey.IssueRole(ctx, keys, nil, ownerB, "", "theirs", "admin", start.Add(-time.Hour))
	require.NoError(t, err)
	return f, keys, adminKey
}

func idOf(key string) string { return apikey.Hash(key)[:8] }

// TestKeysRoles: only an admin creates, lists, rotates and revokes keys;
// the others are 403 missing-role, and nothing changes.
func TestKeysRoles(t *testing.T) {
	for _, role := range []string{apigw.RoleViewer, apigw.RoleEditor} {
		f, keys, adminKey := keysFixture(t)
		routes := []events.APIGatewayProxyRequest{
			keyEvent(http.MethodGet, ResourceKeys, "", ""),
			keyEvent(http.MethodPost, ResourceKeys, "", `{"role":"admin"}`),
			keyEvent(http.MethodPost, ResourceKeyRotate, idOf(adminKey), ""),
			keyEvent(http.MethodDelete, ResourceKey, idOf(adminKey), ""),
		}
		for _, ev := range routes {
			t.Run(ev.HTTPMethod+" "+ev.Resource+"/"+role, func(t *testing.T) {
				resp := f.do(t, apigwtest.AsRole(ev, ownerA, role))
				assert.True(t, apigwtest.RoleRefused(t, resp, apigw.RoleAdmin), "%d %s", resp.StatusCode, resp.Body)
				recs, err := keys.List(context.Background(), ownerA)
				require.NoError(t, err)
				require.Len(t, recs, 1, "a refused call changes nothing")
				assert.Equal(t, apikey.StatusActive, recs[0].Status)
			})
		}
	}
}

func TestKeysAPI(t *testing.T) {
	f, keys, adminKey := keysFixture(t)
	log := f.withAudit()
	admin := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		return f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
	}
	ctx := context.Background()

	// Create: the key once, its ID the hash's first 8 hex digits.
	resp := admin(keyEvent(http.MethodPost, ResourceKeys, "", `{"role":"viewer","note":"dashboards","expires_in_days":30}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"])
	created := apigwtest.Decode[KeyCreated](t, resp)
	require.Len(t, created.Key, apikey.GeneratedLength)
	assert.Equal(t, KeyInfo{ID: idOf(created.Key), Role: "viewer", Note: "dashboards", Status: "active",
		CreatedAt: start.Format(time.RFC3339), ExpiresAt: start.AddDate(0, 0, 30).Format(time.RFC3339)}, created.KeyInfo)
	rec, err := keys.Get(ctx, apikey.Hash(created.Key))
	require.NoError(t, err, "the key works: its hash is in the table")
	assert.Equal(t, ownerA, rec.Owner)

	// No body: an editor key that never expires.
	resp = admin(keyEvent(http.MethodPost, ResourceKeys, "", ""))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	plain := apigwtest.Decode[KeyCreated](t, resp)
	assert.Equal(t, DefaultKeyRole, plain.Role)
	assert.Empty(t, plain.ExpiresAt)

	// List: this workspace's keys only, never a key or a hash.
	resp = admin(keyEvent(http.MethodGet, ResourceKeys, "", ""))
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Body)
	assert.NotContains(t, resp.Body, created.Key)
	assert.NotContains(t, resp.Body, apikey.Hash(created.Key))
	list := apigwtest.Decode[KeyList](t, resp)
	assert.Equal(t, ownerA, list.Workspace)
	var ids []string
	for _, k := range list.Keys {
		ids = append(ids, k.ID)
	}
	assert.ElementsMatch(t, []string{idOf(adminKey), created.ID, plain.ID}, ids)

	// Rotate: a new key with the same role, note and lifetime; the old
	// one revoked at once.
	f.clock.Add(time.Hour)
	resp = admin(keyEvent(http.MethodPost, ResourceKeyRotate, created.ID, ""))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	rotated := apigwtest.Decode[KeyCreated](t, resp)
	assert.Equal(t, created.ID, rotated.Replaces)
	assert.Equal(t, "viewer", rotated.Role)
	assert.Equal(t, "dashboards", rotated.Note)
	assert.Equal(t, start.Add(time.Hour).AddDate(0, 0, 30).Format(time.RFC3339), rotated.ExpiresAt)
	old, err := keys.Get(ctx, apikey.Hash(created.Key))
	require.NoError(t, err)
	assert.Equal(t, apikey.StatusRevoked, old.Status)
	resp = admin(keyEvent(http.MethodPost, ResourceKeyRotate, created.ID, ""))
	apigwtest.RequireProblem(t, resp, http.StatusConflict, "")

	// Revoke.
	resp = admin(keyEvent(http.MethodDelete, ResourceKey, rotated.ID, ""))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, resp.Body)
	gone, err := keys.Get(ctx, apikey.Hash(rotated.Key))
	require.NoError(t, err)
	assert.Equal(t, apikey.StatusRevoked, gone.Status)
	assert.Equal(t, http.StatusNoContent, admin(keyEvent(http.MethodDelete, ResourceKey, rotated.ID, "")).StatusCode, "again: still revoked")

	// The audit log names the key by its ID, and holds neither key nor hash.
	var got []string
	for _, e := range log.All(ownerA) {
		assert.Equal(t, audit.TargetKey, e.Target)
		for _, secret := range []string{created.Key, rotated.Key, apikey.Hash(created.Key), apikey.Hash(rotated.Key)} {
			assert.NotContains(t, string(e.Before)+string(e.After), secret)
		}
		got = append(got, e.Action+" "+e.TargetID)
	}
	assert.ElementsMatch(t, []string{"create " + created.ID, "create " + plain.ID, "create " + rotated.ID, "delete " + created.ID, "delete " + rotated.ID}, got)
}

func TestKeysRefusals(t *testing.T) {
	tests := []struct {
		name   string
		ev     func(adminKey string) events.APIGatewayProxyRequest
		status int
		field  string
	}{
		{"a role that is none", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"role":"owner"}`)
		}, 400, "role"},
		{"a note too long", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"note":"`+strings.Repeat("n", MaxKeyNoteLength+1)+`"}`)
		}, 400, "note"},
		{"a note with a control character", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"note":"a\nb"}`)
		}, 400, "note"},
		{"no days", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"expires_in_days":0}`)
		}, 400, "expires_in_days"},
		{"too many days", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"expires_in_days":3651}`)
		}, 400, "expires_in_days"},
		{"a field that is none", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeys, "", `{"key":"my-own-key-0123456789"}`)
		}, 400, "key"},
		{"not an ID", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodDelete, ResourceKey, "ABCDEF01", "")
		}, 400, "id"},
		{"an ID nobody has", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodDelete, ResourceKey, "00000000", "")
		}, 404, ""},
		{"another workspace's key is not found", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPost, ResourceKeyRotate, "", "")
		}, 404, ""},
		{"the wrong method", func(string) events.APIGatewayProxyRequest {
			return keyEvent(http.MethodPut, ResourceKeys, "", "")
		}, 405, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, keys, adminKey := keysFixture(t)
			ev := tt.ev(adminKey)
			if tt.name == "another workspace's key is not found" {
				theirs, err := keys.List(context.Background(), ownerB)
				require.NoError(t, err)
				ev = keyEvent(http.MethodPost, ResourceKeyRotate, theirs[0].ID(), "")
			}
			resp := f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
			all, err := keys.List(context.Background(), "")
			require.NoError(t, err)
			assert.Len(t, all, 2, "nothing was added")
			for _, r := range all {
				assert.Equal(t, apikey.StatusActive, r.Status, "nothing was revoked")
			}
		})
	}
}

// TestAKeyCannotRevokeItself: the request's own key is refused (409), and
// keeps working; it may be rotated, which answers its successor.
func TestAKeyCannotRevokeItself(t *testing.T) {
	f, keys, adminKey := keysFixture(t)
	ev := apigwtest.AsRole(keyEvent(http.MethodDelete, ResourceKey, idOf(adminKey), ""), ownerA, apigw.RoleAdmin)
	ev.RequestContext.Authorizer[apigw.AuthorizerActor] = apigw.KeyActor(apikey.Hash(adminKey))
	resp := f.do(t, ev)
	p := apigwtest.RequireProblem(t, resp, http.StatusConflict, "")
	assert.Contains(t, p.Detail, "rotate")
	rec, err := keys.Get(context.Background(), apikey.Hash(adminKey))
	require.NoError(t, err)
	assert.Equal(t, apikey.StatusActive, rec.Status)

	ev.HTTPMethod, ev.Resource = http.MethodPost, ResourceKeyRotate
	resp = f.do(t, ev)
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
}

func TestAnExpiredKeyIsListedSo(t *testing.T) {
	f, _, _ := keysFixture(t)
	admin := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		return f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
	}
	resp := admin(keyEvent(http.MethodPost, ResourceKeys, "", `{"expires_in_days":1}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	id := apigwtest.Decode[KeyCreated](t, resp).ID
	f.clock.Add(24 * time.Hour)
	list := apigwtest.Decode[KeyList](t, admin(keyEvent(http.MethodGet, ResourceKeys, "", "")))
	for _, k := range list.Keys {
		if k.ID == id {
			assert.Equal(t, "expired", k.Status)
			return
		}
	}
	t.Fatalf("key %s not listed", id)
}

// FuzzCreateKey: whatever the body, POST /v1/keys answers 201 with a key
// or a 400/413/415 problem, and never stores a key it refused.
func FuzzCreateKey(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"role":"viewer","note":"ci","expires_in_days":30}`, `{"role":"admin"}`,
		`{"expires_in_days":3650}`, `{"expires_in_days":-1}`, `{"note":"\u0000"}`, `{"role":null}`, `[]`, `{"note":1}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		fx, keys, _ := keysFixture(t)
		resp := fx.do(t, apigwtest.AsRole(keyEvent(http.MethodPost, ResourceKeys, "", body), ownerA, apigw.RoleAdmin))
		recs, err := keys.List(context.Background(), ownerA)
		require.NoError(t, err)
		switch resp.StatusCode {
		case http.StatusCreated:
			assert.Len(t, recs, 2)
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
			assert.Len(t, recs, 1, "a refused body stores nothing")
		default:
			t.Fatalf("POST /v1/keys %q: %d %s", body, resp.StatusCode, resp.Body)
		}
	})
}
