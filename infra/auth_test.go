package infra_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/auth"
)

// TestSignIn: with auth=true the data stack holds a retained user pool
// (admin-invited users, TOTP required), a public app client for the
// console (code grant only, the console's URL as callback and sign-out),
// the hosted domain and the two federated providers, the OIDC client
// secret only as a Secrets Manager dynamic reference; the props the
// token checkers get are the issuer and that client. Without it, none.
func TestSignIn(t *testing.T) {
	assert.Empty(t, defaults.get(t).data().resources("AWS::Cognito::UserPool"), "sign-in is off by default")
	assert.Nil(t, defaults.get(t).stacks.Data.Auth)

	s := custom.get(t)
	d := s.data()
	pools := d.resources("AWS::Cognito::UserPool")
	require.Len(t, pools, 1)
	pool := pools[0]
	raw := d["Resources"].(map[string]any)[pool.ID].(map[string]any)
	assert.Equal(t, "Retain", raw["DeletionPolicy"], "a pool holds users: never deleted with the stack")
	assert.Equal(t, "ACTIVE", pool.Props["DeletionProtection"])
	assert.Equal(t, true, get(pool.Props, "AdminCreateUserConfig", "AllowAdminCreateUserOnly"), "no self sign-up")
	assert.Equal(t, "ON", pool.Props["MfaConfiguration"])
	assert.Equal(t, []any{"SOFTWARE_TOKEN_MFA"}, pool.Props["EnabledMfas"])
	assert.EqualValues(t, 12, get(pool.Props, "Policies", "PasswordPolicy", "MinimumLength"))

	clients := d.resources("AWS::Cognito::UserPoolClient")
	require.Len(t, clients, 1)
	c := clients[0].Props
	assert.Equal(t, false, c["GenerateSecret"], "a browser app's client is public")
	assert.Equal(t, []any{"code"}, c["AllowedOAuthFlows"], "authorization code only: no implicit grant")
	assert.Equal(t, []any{"https://sho.rt/console/"}, c["CallbackURLs"])
	assert.Equal(t, []any{"https://sho.rt/console/"}, c["LogoutURLs"])
	assert.ElementsMatch(t, []any{"COGNITO", "Entra", "Google"}, c["SupportedIdentityProviders"])
	assert.ElementsMatch(t, []any{"openid", "email", "profile"}, c["AllowedOAuthScopes"])
	deps := toJSON(d["Resources"].(map[string]any)[clients[0].ID].(map[string]any)["DependsOn"])
	for _, p := range d.resources("AWS::Cognito::UserPoolIdentityProvider") {
		assert.Contains(t, deps, p.ID, "the client names the provider, which must exist first")
	}

	domains := d.resources("AWS::Cognito::UserPoolDomain")
	require.Len(t, domains, 1)
	assert.Equal(t, "shortener-sho-rt", domains[0].Props["Domain"])

	idps := map[string]map[string]any{}
	for _, p := range d.resources("AWS::Cognito::UserPoolIdentityProvider") {
		idps[p.Props["ProviderType"].(string)] = p.Props
	}
	require.Len(t, idps, 2)
	assert.Equal(t, "Entra", idps["SAML"]["ProviderName"])
	assert.Equal(t, map[string]any{"email": auth.SAMLEmailClaim}, idps["SAML"]["AttributeMapping"])
	assert.Contains(t, get(idps["SAML"], "ProviderDetails", "MetadataURL"), "https://login.microsoftonline.com/")
	assert.Equal(t, "Google", idps["OIDC"]["ProviderName"])
	assert.Equal(t, "https://accounts.google.com", get(idps["OIDC"], "ProviderDetails", "oidc_issuer"))
	assert.Equal(t, "{{resolve:secretsmanager:shortener/google-oidc:SecretString:::}}", get(idps["OIDC"], "ProviderDetails", "client_secret"),
		"the secret is resolved by CloudFormation at deploy time, never written into the template")
	assert.Equal(t, map[string]any{"email": "email"}, idps["OIDC"]["AttributeMapping"])

	// The props the /v1 authorizer takes: the issuer as the tokens' iss
	// (the primary Region's endpoint and the pool) and the app client.
	a := s.stacks.Data.Auth
	require.NotNil(t, a)
	env := a.Props.Environment()
	assert.ElementsMatch(t, []string{"AUTH_ISSUER", "AUTH_CLIENT_ID"}, keys(env))
	outs := d["Outputs"].(map[string]any)
	var issuer, client any
	for id, o := range outs {
		switch {
		case strings.HasPrefix(id, "AuthIssuer"):
			issuer = o.(map[string]any)["Value"]
		case strings.HasPrefix(id, "AuthClientId"):
			client = o.(map[string]any)["Value"]
		}
	}
	assert.Equal(t, map[string]any{"Fn::Join": []any{"", []any{"https://cognito-idp.eu-west-1.amazonaws.com/", map[string]any{"Ref": pool.ID}}}}, issuer)
	assert.Equal(t, map[string]any{"Ref": clients[0].ID}, client)

	// The one cdk-nag finding accepted, with its reason in the template.
	assert.Contains(t, toJSON(raw), "AwsSolutions-COG8")
}

// TestTheAuthorizerChecksTheUserPoolsTokens: with sign-in on, every
// Region's /v1 authorizer is given the user pool's issuer and the
// console's app client (AUTH_ISSUER, AUTH_CLIENT_ID) from the data stack;
// without it, neither, so tokens are refused and keys still work.
func TestTheAuthorizerChecksTheUserPoolsTokens(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, region := range s.cfg.Regions {
			fn, ok := s.regional(region).function("apiauth")
			require.True(t, ok, "%s/%s", s.name, region)
			env := get(fn.Props, "Environment", "Variables").(map[string]any)
			if s.stacks.Data.Auth == nil {
				assert.NotContains(t, env, "AUTH_ISSUER", "%s/%s", s.name, region)
				assert.NotContains(t, env, "AUTH_CLIENT_ID", "%s/%s", s.name, region)
				continue
			}
			assert.Contains(t, toJSON(env["AUTH_ISSUER"]), "https://cognito-idp.", "%s/%s", s.name, region)
			assert.Contains(t, toJSON(env["AUTH_ISSUER"]), "Fn::GetStackOutput", "%s/%s: a weak reference to the data stack", s.name, region)
			assert.Contains(t, toJSON(env["AUTH_CLIENT_ID"]), "Fn::GetStackOutput", "%s/%s", s.name, region)
		}
	}
}
