// Package auth is the deployment's sign-in: an Amazon Cognito user pool,
// a public app client for the console (authorization code grant with
// PKCE, callback and sign-out URLs the console's origin), the Cognito
// hosted domain, and optionally one SAML and one OIDC identity provider
// the pool federates. Props carry the issuer and app client to the
// functions that check tokens (shared/authn) as AUTH_ISSUER and
// AUTH_CLIENT_ID. docs/identity.md is the operator's guide.
package auth

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscognito"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// ConsolePath is where the console is served on the distribution; its
// URL there is the app client's callback and sign-out URL.
const ConsolePath = "/console/"

// SAMLEmailClaim is the SAML attribute mapped to the user's e-mail by
// default: the claim name Microsoft Entra ID sends, which Okta and
// Google Workspace are told to send too (docs/identity.md).
const SAMLEmailClaim = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"

// Options configure the sign-in.
type Options struct {
	// DomainName is the distribution's custom domain; the console at
	// https://<DomainName>/console/ is the app client's callback and
	// sign-out URL.
	DomainName string
	// DomainPrefix is the Cognito hosted domain's prefix:
	// https://<prefix>.auth.<region>.amazoncognito.com.
	DomainPrefix string
	// Region is the user pool's Region (the issuer names it).
	Region string
	// SAML and OIDC are the federated identity providers, each optional.
	SAML *SAML
	OIDC *OIDC
}

// SAML is a SAML 2.0 identity provider read from its metadata URL.
type SAML struct {
	Name        string // the provider's name in the pool (and on the sign-in page)
	MetadataURL string
	EmailClaim  string // the SAML attribute carrying the e-mail (SAMLEmailClaim when empty)
}

// OIDC is an OpenID Connect identity provider. Its client secret is read
// from Secrets Manager at deploy time by a dynamic reference, so the
// template holds only the secret's name.
type OIDC struct {
	Name             string
	Issuer           string
	ClientID         string
	ClientSecretName string // a Secrets Manager secret whose SecretString is the client secret
}

// Props are what a function that checks tokens needs: the issuer and
// the app client. The /v1 authorizer takes them as environment.
type Props struct {
	Issuer   *string
	ClientID *string
}

// Environment is p as the functions' settings.
func (p *Props) Environment() map[string]*string {
	return map[string]*string{"AUTH_ISSUER": p.Issuer, "AUTH_CLIENT_ID": p.ClientID}
}

// Auth is the built sign-in.
type Auth struct {
	Pool   awscognito.UserPool
	Client awscognito.UserPoolClient
	Domain awscognito.UserPoolDomain
	Props  Props
	// DomainURL is the hosted domain's base URL.
	DomainURL *string
}

// prefixRE is Cognito's rule for a domain prefix: lower-case letters,
// digits and hyphens, not starting or ending with a hyphen.
var prefixRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// nameRE is a provider name the pool accepts and this app can tell from
// Cognito's own (COGNITO) and the social providers.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// DefaultDomainPrefix derives a hosted domain prefix from the app name
// and the distribution's domain ("Shortener", "sho.rt": shortener-sho-rt).
func DefaultDomainPrefix(appName, domainName string) string {
	p := strings.ToLower(appName + "-" + strings.ReplaceAll(domainName, ".", "-"))
	p = regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(p, "-")
	for _, reserved := range []string{"aws", "amazon", "cognito"} {
		p = strings.ReplaceAll(p, reserved, "x")
	}
	if len(p) > 63 {
		p = p[:63]
	}
	return strings.Trim(p, "-")
}

// Validate checks o before any construct is made.
func (o Options) Validate() error {
	var errs []error
	if o.DomainName == "" {
		errs = append(errs, errors.New("auth=true needs the deployment's domain (-c domainName=... -c certificateArn=...): "+
			"the app client's callback and sign-out URLs are the console's https origin"))
	}
	if !prefixRE.MatchString(o.DomainPrefix) {
		errs = append(errs, fmt.Errorf("authDomainPrefix: %q must be 1-63 lower-case letters, digits and hyphens, not starting or ending with one", o.DomainPrefix))
	}
	for _, reserved := range []string{"aws", "amazon", "cognito"} {
		if strings.Contains(o.DomainPrefix, reserved) {
			errs = append(errs, fmt.Errorf("authDomainPrefix: %q may not contain %q (Cognito reserves it)", o.DomainPrefix, reserved))
		}
	}
	if o.Region == "" {
		errs = append(errs, errors.New("auth: no Region for the user pool"))
	}
	if s := o.SAML; s != nil {
		if !nameRE.MatchString(s.Name) {
			errs = append(errs, fmt.Errorf("authSamlName: %q must be 1-32 letters, digits, _ or -", s.Name))
		}
		if !httpsURL(s.MetadataURL) {
			errs = append(errs, fmt.Errorf("authSamlMetadataUrl: %q is not an https URL", s.MetadataURL))
		}
	}
	if p := o.OIDC; p != nil {
		if !nameRE.MatchString(p.Name) {
			errs = append(errs, fmt.Errorf("authOidcName: %q must be 1-32 letters, digits, _ or -", p.Name))
		}
		if !httpsURL(p.Issuer) {
			errs = append(errs, fmt.Errorf("authOidcIssuer: %q is not an https URL", p.Issuer))
		}
		if p.ClientID == "" {
			errs = append(errs, errors.New("authOidcClientId: empty (the OIDC provider needs its client ID)"))
		}
		if p.ClientSecretName == "" {
			errs = append(errs, errors.New("authOidcClientSecretName: empty (name the Secrets Manager secret holding the client secret; it is never put in the template)"))
		}
	}
	if o.SAML != nil && o.OIDC != nil && o.SAML.Name == o.OIDC.Name {
		errs = append(errs, fmt.Errorf("authSamlName and authOidcName: both %q", o.SAML.Name))
	}
	return errors.Join(errs...)
}

func httpsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

// New builds the sign-in in scope. o must have passed Validate.
func New(scope constructs.Construct, id string, o Options) *Auth {
	c := constructs.NewConstruct(scope, jsii.String(id))
	// A user pool holds the users: retained and protected like the
	// tables. MFA is required for the pool's own users (TOTP, no SMS
	// role); federated users get theirs from their identity provider.
	// Self sign-up is off: an admin invites people, or they come through
	// the company's provider.
	pool := awscognito.NewUserPool(c, jsii.String("Pool"), &awscognito.UserPoolProps{
		SelfSignUpEnabled:  jsii.Bool(false),
		SignInAliases:      &awscognito.SignInAliases{Email: jsii.Bool(true)},
		AutoVerify:         &awscognito.AutoVerifiedAttrs{Email: jsii.Bool(true)},
		StandardAttributes: &awscognito.StandardAttributes{Email: &awscognito.StandardAttribute{Required: jsii.Bool(true), Mutable: jsii.Bool(true)}},
		AccountRecovery:    awscognito.AccountRecovery_EMAIL_ONLY,
		Mfa:                awscognito.Mfa_REQUIRED,
		MfaSecondFactor:    &awscognito.MfaSecondFactor{Otp: jsii.Bool(true), Sms: jsii.Bool(false)},
		PasswordPolicy: &awscognito.PasswordPolicy{
			MinLength: jsii.Number(12), RequireLowercase: jsii.Bool(true), RequireUppercase: jsii.Bool(true),
			RequireDigits: jsii.Bool(true), RequireSymbols: jsii.Bool(true),
			TempPasswordValidity: awscdk.Duration_Days(jsii.Number(3)),
		},
		FeaturePlan:        awscognito.FeaturePlan_ESSENTIALS,
		DeletionProtection: jsii.Bool(true),
		RemovalPolicy:      awscdk.RemovalPolicy_RETAIN,
	})

	providers := []awscognito.UserPoolClientIdentityProvider{awscognito.UserPoolClientIdentityProvider_COGNITO()}
	var deps []constructs.IDependable
	if s := o.SAML; s != nil {
		claim := s.EmailClaim
		if claim == "" {
			claim = SAMLEmailClaim
		}
		p := awscognito.NewUserPoolIdentityProviderSaml(c, jsii.String("SAML"), &awscognito.UserPoolIdentityProviderSamlProps{
			UserPool: pool,
			Name:     jsii.String(s.Name),
			Metadata: awscognito.UserPoolIdentityProviderSamlMetadata_Url(jsii.String(s.MetadataURL)),
			AttributeMapping: &awscognito.AttributeMapping{
				Email: awscognito.ProviderAttribute_Other(jsii.String(claim)),
			},
			IdpSignout: jsii.Bool(true),
		})
		providers = append(providers, awscognito.UserPoolClientIdentityProvider_Custom(jsii.String(s.Name)))
		deps = append(deps, p)
	}
	if p := o.OIDC; p != nil {
		// A dynamic reference ({{resolve:secretsmanager:...}}):
		// CloudFormation reads the secret when it deploys, the template
		// never holds it.
		secret := awscdk.SecretValue_SecretsManager(jsii.String(p.ClientSecretName), nil).UnsafeUnwrap()
		idp := awscognito.NewUserPoolIdentityProviderOidc(c, jsii.String("OIDC"), &awscognito.UserPoolIdentityProviderOidcProps{
			UserPool:               pool,
			Name:                   jsii.String(p.Name),
			IssuerUrl:              jsii.String(p.Issuer),
			ClientId:               jsii.String(p.ClientID),
			ClientSecret:           secret,
			Scopes:                 jsii.Strings("openid", "email", "profile"),
			AttributeRequestMethod: awscognito.OidcAttributeRequestMethod_GET,
			AttributeMapping: &awscognito.AttributeMapping{
				Email: awscognito.ProviderAttribute_Other(jsii.String("email")),
			},
		})
		providers = append(providers, awscognito.UserPoolClientIdentityProvider_Custom(jsii.String(p.Name)))
		deps = append(deps, idp)
	}

	console := ConsoleURL(o.DomainName)
	// A public client (no secret, the console is a browser app): the
	// authorization code grant only, the console sending PKCE; no
	// implicit grant. Cognito's default lifetimes, written out.
	client := pool.AddClient(jsii.String("Console"), &awscognito.UserPoolClientOptions{
		GenerateSecret: jsii.Bool(false),
		AuthFlows:      &awscognito.AuthFlow{UserSrp: jsii.Bool(true)},
		OAuth: &awscognito.OAuthSettings{
			Flows:        &awscognito.OAuthFlows{AuthorizationCodeGrant: jsii.Bool(true), ImplicitCodeGrant: jsii.Bool(false)},
			Scopes:       &[]awscognito.OAuthScope{awscognito.OAuthScope_OPENID(), awscognito.OAuthScope_EMAIL(), awscognito.OAuthScope_PROFILE()},
			CallbackUrls: jsii.Strings(console),
			LogoutUrls:   jsii.Strings(console),
		},
		SupportedIdentityProviders: &providers,
		PreventUserExistenceErrors: jsii.Bool(true),
		EnableTokenRevocation:      jsii.Bool(true),
		AccessTokenValidity:        awscdk.Duration_Hours(jsii.Number(1)),
		IdTokenValidity:            awscdk.Duration_Hours(jsii.Number(1)),
		RefreshTokenValidity:       awscdk.Duration_Days(jsii.Number(30)),
	})
	// The client names the providers, which must exist first.
	for _, d := range deps {
		client.Node().AddDependency(d)
	}
	domain := pool.AddDomain(jsii.String("Domain"), &awscognito.UserPoolDomainOptions{
		CognitoDomain: &awscognito.CognitoDomainOptions{DomainPrefix: jsii.String(o.DomainPrefix)},
	})

	a := &Auth{
		Pool: pool, Client: client, Domain: domain,
		Props: Props{
			Issuer:   awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String(IssuerPrefix(o.Region)), pool.UserPoolId()}),
			ClientID: client.UserPoolClientId(),
		},
		DomainURL: domain.BaseUrl(nil),
	}
	out := func(id string, v *string, desc string) {
		awscdk.NewCfnOutput(c, jsii.String(id), &awscdk.CfnOutputProps{Value: v, Description: jsii.String(desc)})
	}
	out("UserPoolId", pool.UserPoolId(), "Cognito user pool ID (a SAML provider's entity ID is urn:amazon:cognito:sp:<this>)")
	out("Issuer", a.Props.Issuer, "OpenID issuer of the sign-in tokens (AUTH_ISSUER)")
	out("ClientId", a.Props.ClientID, "the console's app client ID (AUTH_CLIENT_ID)")
	out("HostedDomain", a.DomainURL, "Cognito hosted domain: an OIDC provider's redirect URI is <this>/oauth2/idpresponse, a SAML provider's ACS URL <this>/saml2/idpresponse")
	return a
}

// HostedDomainURL is the Cognito hosted domain of prefix in region, as
// the domain's BaseUrl builds it (a plain string, where BaseUrl is a
// token): https://<prefix>.auth.<region>.amazoncognito.com
// (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-assign-domain-prefix.html).
// The console's CSP names its origin.
func HostedDomainURL(prefix, region string) string {
	return "https://" + prefix + ".auth." + region + ".amazoncognito.com"
}

// ConsoleURL is the console on the deployment's domain: the app client's
// callback and sign-out URL.
func ConsoleURL(domainName string) string { return "https://" + domainName + ConsolePath }

// IssuerPrefix is a user pool's issuer in region without the pool ID:
// https://cognito-idp.<region>.amazonaws.com/ (amazonaws.com.cn in China),
// as the token's "iss" has it:
// https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-verifying-a-jwt.html
func IssuerPrefix(region string) string {
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://cognito-idp." + region + "." + suffix + "/"
}
