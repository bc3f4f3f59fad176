package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
)

// TestOriginLockRefusesAroundTheEdge wires the gateway and the edge as run
// does: a redirect through the edge is answered, the same request sent to
// the gateway (the origin) directly is refused before the redirect
// function runs, with or without a guessed header.
func TestOriginLockRefusesAroundTheEdge(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	lock, err := newOriginLock(config.Config{}, log)
	require.NoError(t, err)
	calls := 0
	redirect := func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		calls++
		return events.APIGatewayProxyResponse{StatusCode: http.StatusFound,
			Headers: map[string]string{"Location": "https://example.com", "Cache-Control": "no-store"}}, nil
	}
	gw, err := localgw.New(localgw.Options{
		Routes: localgw.Routes(localgw.Handlers{Redirect: redirect, OriginAuthorizer: lock.authorizer}),
		Log:    log,
	})
	require.NoError(t, err)
	edge, err := localedge.New(localedge.Options{Origin: gw, Log: log, RedirectOriginHeaders: lock.edgeHeaders()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = edge.Close(context.Background()) })

	get := func(h http.Handler, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/abc1234", nil)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	assert.Equal(t, http.StatusFound, get(edge).Code, "through the edge")
	assert.Equal(t, 1, calls)

	direct := get(gw)
	assert.Equal(t, http.StatusUnauthorized, direct.Code, "straight to the origin, no header")
	assert.JSONEq(t, `{"message":"Unauthorized"}`, direct.Body.String())
	assert.Equal(t, http.StatusForbidden, get(gw, "X-Origin-Verify", "guess").Code, "a guessed secret")
	assert.Equal(t, 1, calls, "the redirect function never ran for them")
	assert.Len(t, lock.secret, 64, "256 random bits")
}
