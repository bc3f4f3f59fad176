// Package localgw plays API Gateway on a laptop, both flavours the service
// deploys: the /v1 REST API and the redirect's HTTP API (payload format
// 1.0), each with a Lambda proxy integration. It routes plain HTTP
// requests, checks API keys, turns each request into the
// events.APIGatewayProxyRequest API Gateway would send and turns the
// handler's events.APIGatewayProxyResponse back into HTTP. The handlers
// are the same code the Lambdas run, called in-process.
//
// It is configured from the APIs' description in shared/edgespec, the
// value infra/api builds the deployed APIs from (Configure; Routes is its
// route table): routes and methods, which function answers each, API
// keys, the origin authorizer, binary media types, payload format,
// integration timeouts, the usage plan, stage and method throttles and
// the gateway responses for 429s. Configure refuses (ErrUnmodelled) any
// part of the description it does not play, such as CORS, payload format
// 2.0 or another kind of integration or authorizer, rather than run
// without it.
//
// What it copies from API Gateway, because the handlers or their callers
// can tell the difference:
//
//   - Routing by resource tree: a static segment beats a {param} sibling and
//     matching never backtracks, so /v1/... never reaches /{code}. The first
//     segments v1, _local and healthz are always static here, so /v1,
//     /_local and /healthz are never taken for codes.
//   - Headers: single-valued Headers keep the last value, MultiValueHeaders
//     keep every one; Host and X-Forwarded-For/-Port/-Proto are added.
//     net/http canonicalises header names ("x-api-key" arrives as
//     "X-Api-Key"); API Gateway passes them as sent, which is why handlers
//     must read headers case-insensitively anyway.
//   - On REST API routes the path and path parameters stay percent-encoded;
//     on HTTP API routes (Route.API) they arrive decoded, as HTTP APIs
//     decode them before routing: twice, cut at a decoded "?", and a 400
//     {"message":"Bad Request"} where decoding fails (httpapi.go). Query
//     parameters are decoded on both; maps with nothing in them are nil,
//     as AWS sends null.
//   - Binary bodies as the REST API's binaryMediaTypes (Options) decide
//     them: a base64 response is decoded only for a matching first Accept
//     media type, else the client gets the base64 text; a request body
//     with a matching Content-Type reaches the handler base64-encoded. An
//     HTTP API route always decodes a base64 response (binary.go).
//   - The caller's identity: with a key it accepts (Options.APIKeys, the
//     usage plan's keys), requestContext.identity carries apiKey and
//     apiKeyId. Neither is the owner: the functions look the key up in the
//     keys table (shared/apikey), on AWS and here alike.
//   - A handler error, a panic or a malformed response is a 502 with
//     {"message": "Internal server error"}; a handler still running after
//     the integration timeout (29 s unless the API sets one) is a 504.
//   - A client that goes away does not cancel the handler's context: the
//     invocation runs on to its answer or the timeout, as in AWS.
//   - A route's Lambda authorizer (the redirect origin's, HTTP API style):
//     a request without the identity header is 401 without invoking it, a
//     deny is 403, and answers are cached per header value (Authorizer).
//   - The /v1 REST API's Lambda authorizer (RESTAuthorizer): no identity
//     sources and no cache, so it runs for every request; "Unauthorized"
//     is 401, a Deny (or a policy that does not cover the method) 403,
//     a failure 500, each the API's gateway response; an Allow hands the
//     function its context, as strings, in requestContext.authorizer and,
//     with key source AUTHORIZER, makes its usageIdentifierKey the
//     request's usage-plan key (identity.apiKey).
//   - Throttling as token buckets (throttle.go): the usage plan's per API
//     key, then the method's and the stage's; a key's daily quota counted
//     per UTC day. A refused request is 429, with the REST API's THROTTLED
//     or QUOTA_EXCEEDED gateway response (problem+json), or API Gateway's
//     default {"message": ...} where the API sets none.
//   - Each API's integration timeout (the redirect's 10 s), or the
//     gateway's when shorter.
//
// A method a resource does not list is not routed, as in AWS: the REST
// API answers its MISSING_AUTHENTICATION_TOKEN gateway response (403
// {"message":"Missing Authentication Token"} without one), the HTTP API
// 404 {"message":"Not Found"}; neither sends Allow.
//
// What it does differently, on purpose: missing and unknown API keys are
// 401 and 403 problem+json, and unknown paths a 404 problem, in the
// vocabulary of shared/apigw, where bare API Gateway answers 403
// {"message": ...} to all of them; requests are capped at 1 MiB
// (413); non-UTF-8 request bodies are sent base64-encoded even when no
// binary media type matches (API Gateway would mangle them); until the
// readiness check passes, every route but /healthz answers 503; and the
// health route's DynamoDB GetItem is its caller's to answer, in front of
// the gateway (shortener-local does).
package localgw
