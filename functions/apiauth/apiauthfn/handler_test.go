package apiauthfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/authn"
	"github.com/shortlink-dev/shortener/shared/link"
)

// fakeVerifier knows a fixed set of tokens.
type fakeVerifier map[string]authn.Claims

func (f fakeVerifier) Verify(_ context.Context, token string) (authn.Claims, error) {
	switch token {
	case "jwks-down":
		return authn.Claims{}, errors.New("fetch jwks: connection refused")
	}
	c, ok := f[token]
	if !ok {
		return authn.Claims{}, fmt.Errorf("%w: signature", authn.ErrInvalidToken)
	}
	return c, nil
}

type downKeys struct{}

func (downKeys) Lookup(context.Context, string) (apikey.Record, error) {
	return apikey.Record{}, fmt.Errorf("get api key: %w", link.ErrUnavailable)
}

const (
	aliceKey   = "alice-key-0123456789abcdef"
	revokedKey = "revoked-key-0123456789ab"
	usageKey   = "shortener-usage-key-eu-west-1"
	apiARN     = "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/*"
	methodARN  = "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/prod/POST/v1/links"
)

func fixture(t *testing.T, headers map[string]string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	t.Helper()
	raw, err := os.ReadFile("testdata/authorizer-request.json")
	require.NoError(t, err)
	var req events.APIGatewayCustomAuthorizerRequestTypeRequest
	require.NoError(t, json.Unmarshal(raw, &req))
	for k, v := range headers {
		req.Headers[k] = v
		req.MultiValueHeaders[k] = []string{v}
	}
	return req
}

func newHandler(t *testing.T, v authn.Verifier) *apiauthfn.Handler {
	keys := apikey.NewMemory(map[string]string{aliceKey: "alice", revokedKey: "alice"})
	_, err := keys.Revoke(context.Background(), apikey.Hash(revokedKey), time.Now())
	require.NoError(t, err)
	return apiauthfn.New(apiauthfn.Options{Keys: apikey.NewResolver(keys, apikey.ResolverOptions{}), Verifier: v, UsageKey: usageKey})
}

func TestHandle(t *testing.T) {
	verifier := fakeVerifier{
		"good":     {Subject: "5f1c-sub", Username: "bob", ClientID: "app", TokenUse: "access"},
		"by-email": {Subject: "9a9a-sub", Email: "carol@example.com", TokenUse: "id"},
		"no-sub":   {Username: "ghost"},
	}
	aliceActor := "key:" + apikey.Hash(aliceKey)[:8]
	tests := []struct {
		name     string
		headers  map[string]string
		verifier authn.Verifier
		// want is the allowed caller's context; nil when not allowed.
		want      map[string]any
		wantDeny  bool
		wantErr   error // ErrUnauthorized: 401
		wantFault bool  // any other error: API Gateway's 500
	}{
		{name: "an API key", headers: map[string]string{"x-api-key": aliceKey},
			want: map[string]any{"owner": "alice", "role": "admin", "actor": aliceActor, "username": ""}},
		{name: "the key header in another case", headers: map[string]string{"X-API-Key": aliceKey},
			want: map[string]any{"owner": "alice", "role": "admin", "actor": aliceActor, "username": ""}},
		{name: "a revoked key", headers: map[string]string{"x-api-key": revokedKey}, wantDeny: true},
		{name: "an unknown key", headers: map[string]string{"x-api-key": "unknown-key-0123456789ab"}, wantDeny: true},
		{name: "a user's token", headers: map[string]string{"Authorization": "Bearer good"}, verifier: verifier,
			want: map[string]any{"owner": "user:5f1c-sub", "role": "admin", "actor": "user:5f1c-sub", "username": "bob"}},
		{name: "the scheme in lower case", headers: map[string]string{"authorization": "bearer by-email"}, verifier: verifier,
			want: map[string]any{"owner": "user:9a9a-sub", "role": "admin", "actor": "user:9a9a-sub", "username": "carol@example.com"}},
		{name: "an invalid token", headers: map[string]string{"Authorization": "Bearer forged"}, verifier: verifier, wantErr: apiauthfn.ErrUnauthorized},
		{name: "a token without a subject", headers: map[string]string{"Authorization": "Bearer no-sub"}, verifier: verifier, wantErr: apiauthfn.ErrUnauthorized},
		{name: "a token and no issuer configured", headers: map[string]string{"Authorization": "Bearer good"}, wantErr: apiauthfn.ErrUnauthorized},
		{name: "basic auth", headers: map[string]string{"Authorization": "Basic YTpi"}, verifier: verifier, wantErr: apiauthfn.ErrUnauthorized},
		{name: "bearer without a token", headers: map[string]string{"Authorization": "Bearer "}, verifier: verifier, wantErr: apiauthfn.ErrUnauthorized},
		{name: "both credentials", headers: map[string]string{"x-api-key": aliceKey, "Authorization": "Bearer good"}, verifier: verifier, wantErr: apiauthfn.ErrUnauthorized},
		{name: "neither", wantErr: apiauthfn.ErrUnauthorized},
		{name: "the issuer's keys unreachable", headers: map[string]string{"Authorization": "Bearer jwks-down"}, verifier: verifier, wantFault: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, tt.verifier)
			if tt.verifier == nil {
				h = newHandler(t, nil)
			}
			resp, err := h.Handle(context.Background(), fixture(t, tt.headers))
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, "Unauthorized", err.Error(), "API Gateway answers 401 only for this exact message")
				return
			case tt.wantFault:
				require.Error(t, err)
				assert.NotEqual(t, "Unauthorized", err.Error())
				return
			}
			require.NoError(t, err)
			stmt := resp.PolicyDocument.Statement
			require.Len(t, stmt, 1)
			assert.Equal(t, "2012-10-17", resp.PolicyDocument.Version)
			assert.Equal(t, []string{"execute-api:Invoke"}, stmt[0].Action)
			if tt.wantDeny {
				assert.Equal(t, "Deny", stmt[0].Effect)
				assert.Equal(t, []string{methodARN}, stmt[0].Resource)
				assert.Empty(t, resp.Context, "a denied caller is nobody")
				assert.Empty(t, resp.UsageIdentifierKey)
				return
			}
			assert.Equal(t, "Allow", stmt[0].Effect)
			assert.Equal(t, []string{apiARN}, stmt[0].Resource)
			assert.Equal(t, tt.want, resp.Context)
			assert.Equal(t, tt.want["actor"], resp.PrincipalID)
			assert.Equal(t, usageKey, resp.UsageIdentifierKey)
		})
	}
}

// TestTheFunctionsReadTheAuthorizersContext: what the authorizer returns
// is what apigw.Caller reads once API Gateway has put it in
// requestContext.authorizer (its values as strings, plus principalId).
func TestTheFunctionsReadTheAuthorizersContext(t *testing.T) {
	resp, err := newHandler(t, nil).Handle(context.Background(), fixture(t, map[string]string{"x-api-key": aliceKey}))
	require.NoError(t, err)
	req := events.APIGatewayProxyRequest{}
	req.RequestContext.Authorizer = map[string]any{"principalId": resp.PrincipalID}
	for k, v := range resp.Context {
		req.RequestContext.Authorizer[k] = v
	}
	p, ok := apigw.Caller(&req)
	require.True(t, ok)
	assert.Equal(t, apigw.Principal{Owner: "alice", Role: "admin", Actor: resp.PrincipalID}, p)
}

func TestTheKeysTableDown(t *testing.T) {
	h := apiauthfn.New(apiauthfn.Options{Keys: downKeys{}, UsageKey: usageKey})
	_, err := h.Handle(context.Background(), fixture(t, map[string]string{"x-api-key": aliceKey}))
	require.ErrorIs(t, err, link.ErrUnavailable, "a table it cannot read is a 500, never a deny or an allow")
}

func TestAMalformedMethodARN(t *testing.T) {
	req := fixture(t, map[string]string{"x-api-key": aliceKey})
	for _, arn := range []string{"", "arn:aws:lambda:eu-west-1:123456789012:function:x", "arn:aws:execute-api:eu-west-1:123456789012:"} {
		req.MethodArn = arn
		_, err := newHandler(t, nil).Handle(context.Background(), req)
		assert.Error(t, err, arn)
	}
}
