package infra

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/auth"
)

const testCert = "arn:aws:acm:us-east-1:123456789012:certificate/0b5c2a8e-1111-2222-3333-444455556666"

func TestAuthContext(t *testing.T) {
	domain := map[string]any{CtxDomainName: "sho.rt", CtxCertificateARN: testCert}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range domain {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name string
		ctx  map[string]any
		want *auth.Options // when it reads
		err  string        // when it is refused
	}{
		{"off by default", domain, nil, ""},
		{"on, hosted domain derived", with(map[string]any{CtxAuth: "true"}),
			&auth.Options{DomainName: "sho.rt", DomainPrefix: "shortener-sho-rt", Region: "us-east-1"}, ""},
		{"on, cdk.json booleans", with(map[string]any{CtxAuth: true, CtxAuthDomainPrefix: "links-example"}),
			&auth.Options{DomainName: "sho.rt", DomainPrefix: "links-example", Region: "us-east-1"}, ""},
		{"SAML and OIDC", with(map[string]any{CtxAuth: "true",
			CtxAuthSAMLMetadataURL: "https://login.microsoftonline.com/t/federationmetadata/2007-06/federationmetadata.xml?appid=a",
			CtxAuthSAMLName:        "Entra",
			CtxAuthOIDCIssuer:      "https://example.okta.com", CtxAuthOIDCClientID: "0oa1", CtxAuthOIDCClientSecretName: "shortener/okta",
		}), &auth.Options{DomainName: "sho.rt", DomainPrefix: "shortener-sho-rt", Region: "us-east-1",
			SAML: &auth.SAML{Name: "Entra", MetadataURL: "https://login.microsoftonline.com/t/federationmetadata/2007-06/federationmetadata.xml?appid=a"},
			OIDC: &auth.OIDC{Name: "OIDC", Issuer: "https://example.okta.com", ClientID: "0oa1", ClientSecretName: "shortener/okta"}}, ""},

		{"on without the domain", map[string]any{CtxAuth: "true"}, nil, "auth=true needs the deployment's domain"},
		{"a prefix with a reserved word", with(map[string]any{CtxAuth: "true", CtxAuthDomainPrefix: "my-cognito"}), nil, `may not contain "cognito"`},
		{"a prefix with upper case", with(map[string]any{CtxAuth: "true", CtxAuthDomainPrefix: "Links"}), nil, "authDomainPrefix"},
		{"SAML metadata over http", with(map[string]any{CtxAuth: "true", CtxAuthSAMLMetadataURL: "http://idp.example.com/m"}), nil, "authSamlMetadataUrl"},
		{"OIDC without its secret", with(map[string]any{CtxAuth: "true", CtxAuthOIDCIssuer: "https://accounts.google.com", CtxAuthOIDCClientID: "x"}),
			nil, "authOidcClientSecretName"},
		{"OIDC without its client", with(map[string]any{CtxAuth: "true", CtxAuthOIDCIssuer: "https://accounts.google.com", CtxAuthOIDCClientSecretName: "s"}),
			nil, "authOidcClientId"},
		{"OIDC client without an issuer", with(map[string]any{CtxAuth: "true", CtxAuthOIDCClientID: "x", CtxAuthOIDCClientSecretName: "s"}),
			nil, "authOidcIssuer: needed"},
		{"two providers of one name", with(map[string]any{CtxAuth: "true", CtxAuthSAMLMetadataURL: "https://idp.example.com/m", CtxAuthSAMLName: "Corp",
			CtxAuthOIDCIssuer: "https://accounts.google.com", CtxAuthOIDCName: "Corp", CtxAuthOIDCClientID: "x", CtxAuthOIDCClientSecretName: "s"}),
			nil, `both "Corp"`},
		{"federation without auth=true", with(map[string]any{CtxAuthSAMLMetadataURL: "https://idp.example.com/m"}), nil, "set without auth=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readConfig(tt.ctx)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.Auth)
		})
	}
}

func TestDefaultDomainPrefix(t *testing.T) {
	assert.Equal(t, "shortener-sho-rt", auth.DefaultDomainPrefix("Shortener", "sho.rt"))
	assert.Equal(t, "x-links-x-example-com", auth.DefaultDomainPrefix("Amazon", "links.aws.example.com"), "no reserved word")
	assert.Len(t, auth.DefaultDomainPrefix("S", "a-very-long-domain-name-that-goes-on.and-on-and-on.example.com"), 63)
}
