// Package originauthfn is the redirect origin's Lambda authorizer: it lets a
// request through only when it carries the secret header CloudFront adds
// to every origin request (HeaderName), so nothing but the distribution
// gets a redirect out of the origin.
//
// API Gateway calls it only for requests that carry the header at all: the
// header is the authorizer's identity source, and an HTTP API refuses a
// request whose identity source is missing or empty with 401 without
// invoking anything (CreateAuthorizer, IdentitySource:
// https://docs.aws.amazon.com/apigatewayv2/latest/api-reference/apis-apiid-authorizers.html).
// Its answer is cached per header value (AuthorizerResultTtlInSeconds), so
// CloudFront's traffic, which carries one value, invokes it about once per
// TTL. The approach is AWS's own: "Restricting access on HTTP API Gateway
// Endpoint with Lambda Authorizer"
// (https://aws.amazon.com/blogs/networking-and-content-delivery/restricting-access-http-api-gateway-lambda-authorizer/).
//
// The secret lives in Secrets Manager. Two values are accepted: the
// version labelled AWSCURRENT and the one labelled AWSPREVIOUS, so a
// rotation (a new value, then the distribution updated to send it) never
// refuses CloudFront while its edge locations change over
// (docs/deploy.md, "Rotating the origin secret").
package originauthfn
