// Package apiauthfn is the /v1 API's Lambda authorizer (a REST API
// REQUEST authorizer): it says who a caller is, from either credential the
// API takes, and answers API Gateway with an IAM policy:
//
//   - x-api-key: the key's hash is looked up in the keys table
//     (shared/apikey, cached in-process for the resolver's TTL). An
//     unknown or revoked key is denied (API Gateway answers 403,
//     ACCESS_DENIED).
//   - Authorization: Bearer <JWT>: the token is checked by an
//     authn.Verifier (issuer, audience, expiry, signature, token use). An
//     invalid token, or a token where no issuer is configured, is 401
//     (the error "Unauthorized", API Gateway's UNAUTHORIZED).
//
// Neither header is 401 too. An allowed caller gets an Allow policy for
// the whole API, its principal ID is the actor, and its context is what
// every function reads in requestContext.authorizer (shared/apigw
// Caller): owner, role, actor and username. The response also carries
// usageIdentifierKey, the deployment's one usage-plan key in this Region:
// with the API's key source AUTHORIZER, API Gateway meters and throttles
// the request against that key's usage plan
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-api-key-source.html).
//
// The authorizer has no identity sources and its results are not cached
// (TTL 0): API Gateway then invokes it on every request, with or without
// either header, so a request without credentials gets the API's own
// problem+json 401 rather than a bare one, and a revoked key stops
// working within the key cache's TTL, not an authorizer cache's
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/configure-api-gateway-lambda-authorization.html).
package apiauthfn
