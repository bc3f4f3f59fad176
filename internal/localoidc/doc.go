// Package localoidc is the local run's OpenID provider, playing the
// Amazon Cognito user pool and its hosted domain: a discovery document
// and JWKS under the issuer, the authorization code grant with PKCE
// (S256 required) behind a one-field login form where any user name
// signs in, the token endpoint's code and refresh_token grants, and
// /logout. Its tokens are shaped like Cognito's, signed RS256 with a key
// made at start, so shared/authn's verifier checks them unchanged.
//
// The endpoints follow Cognito's user pool endpoints reference:
// https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-userpools-server-contract-reference.html
// (authorize, token, logout) and its token contents:
// https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html
// https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html
//
// Unlike Cognito it keeps no sign-in session: every authorize shows the
// form. State lives in memory and ends with the process.
package localoidc
