package infra

import (
	"errors"

	"github.com/shortlink-dev/shortener/infra/auth"
)

// Sign-in context keys (docs/identity.md).
const (
	CtxAuth                     = "auth"
	CtxAuthDomainPrefix         = "authDomainPrefix"
	CtxAuthSAMLName             = "authSamlName"
	CtxAuthSAMLMetadataURL      = "authSamlMetadataUrl"
	CtxAuthSAMLEmailAttribute   = "authSamlEmailAttribute"
	CtxAuthOIDCName             = "authOidcName"
	CtxAuthOIDCIssuer           = "authOidcIssuer"
	CtxAuthOIDCClientID         = "authOidcClientId"
	CtxAuthOIDCClientSecretName = "authOidcClientSecretName"
)

// readAuth reads the sign-in context: nil unless auth=true. A federated
// provider is configured by its URL (SAML) or issuer (OIDC); its other
// keys without it are a mistake, reported.
func readAuth(r *ctxReader, c Config) *auth.Options {
	if !r.boolean(CtxAuth, false) {
		for _, k := range []string{CtxAuthDomainPrefix, CtxAuthSAMLMetadataURL, CtxAuthOIDCIssuer} {
			if r.str(k, "") != "" {
				r.errs = append(r.errs, errors.New(k+": set without auth=true"))
			}
		}
		return nil
	}
	o := &auth.Options{
		DomainName:   c.DomainName,
		DomainPrefix: r.str(CtxAuthDomainPrefix, auth.DefaultDomainPrefix(c.AppName, c.DomainName)),
		Region:       c.PrimaryRegion,
	}
	if u := r.str(CtxAuthSAMLMetadataURL, ""); u != "" {
		o.SAML = &auth.SAML{Name: r.str(CtxAuthSAMLName, "SAML"), MetadataURL: u, EmailClaim: r.str(CtxAuthSAMLEmailAttribute, "")}
	}
	if iss := r.str(CtxAuthOIDCIssuer, ""); iss != "" {
		o.OIDC = &auth.OIDC{
			Name: r.str(CtxAuthOIDCName, "OIDC"), Issuer: iss,
			ClientID: r.str(CtxAuthOIDCClientID, ""), ClientSecretName: r.str(CtxAuthOIDCClientSecretName, ""),
		}
	} else if r.str(CtxAuthOIDCClientID, "") != "" || r.str(CtxAuthOIDCClientSecretName, "") != "" {
		r.errs = append(r.errs, errors.New(CtxAuthOIDCIssuer+": needed with "+CtxAuthOIDCClientID+" and "+CtxAuthOIDCClientSecretName))
	}
	return o
}
