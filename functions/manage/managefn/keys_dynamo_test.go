package managefn

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestKeysAPIOnDynamoDBLocal: create, list (the by-owner index), rotate
// and revoke against the keys table as deployed, and a resolver over it
// (what the authorizer reads) takes the new key and refuses the old.
func TestKeysAPIOnDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	table := testenv.UniqueName(t, "keys")
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.Keys()))
	store := dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table, Timeout: 10 * time.Second, ConsistentReads: true})
	f := newFixture(t)
	f.h.Keys = store
	_, _, err := apikey.IssueRole(ctx, store, nil, ownerB, "", "theirs", "admin", start)
	require.NoError(t, err)
	resolver := apikey.NewResolver(store, apikey.ResolverOptions{TTL: time.Nanosecond, Now: f.clock.Now})
	admin := func(ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
		return f.do(t, apigwtest.AsRole(ev, ownerA, apigw.RoleAdmin))
	}

	resp := admin(keyEvent(http.MethodPost, ResourceKeys, "", `{"role":"editor","note":"ci","expires_in_days":7}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	created := apigwtest.Decode[KeyCreated](t, resp)
	rec, err := resolver.Lookup(ctx, created.Key)
	require.NoError(t, err, "the new key works at once")
	assert.Equal(t, ownerA, rec.Owner)
	assert.Equal(t, "editor", rec.Role)
	assert.Equal(t, start.AddDate(0, 0, 7), rec.ExpiresAt)

	list := apigwtest.Decode[KeyList](t, admin(keyEvent(http.MethodGet, ResourceKeys, "", "")))
	require.Len(t, list.Keys, 1, "ownerB's key is not listed")
	assert.Equal(t, created.KeyInfo, list.Keys[0])

	f.clock.Add(time.Minute)
	resp = admin(keyEvent(http.MethodPost, ResourceKeyRotate, created.ID, ""))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	rotated := apigwtest.Decode[KeyCreated](t, resp)
	f.clock.Add(time.Second)
	_, err = resolver.Lookup(ctx, created.Key)
	assert.ErrorIs(t, err, apikey.ErrRevoked, "the rotated key is revoked at once")
	_, err = resolver.Lookup(ctx, rotated.Key)
	require.NoError(t, err)

	resp = admin(keyEvent(http.MethodDelete, ResourceKey, rotated.ID, ""))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, resp.Body)
	f.clock.Add(time.Second)
	_, err = resolver.Lookup(ctx, rotated.Key)
	assert.ErrorIs(t, err, apikey.ErrRevoked)

	list = apigwtest.Decode[KeyList](t, admin(keyEvent(http.MethodGet, ResourceKeys, "", "")))
	require.Len(t, list.Keys, 2)
	for _, k := range list.Keys {
		assert.Equal(t, "revoked", k.Status)
		assert.NotEmpty(t, k.RevokedAt)
	}

	f.clock.Set(start.AddDate(0, 0, 8))
	resp = admin(keyEvent(http.MethodPost, ResourceKeys, "", `{"expires_in_days":1}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode, resp.Body)
	short := apigwtest.Decode[KeyCreated](t, resp)
	f.clock.Add(24 * time.Hour)
	_, err = resolver.Lookup(ctx, short.Key)
	assert.ErrorIs(t, err, apikey.ErrExpired)
}
