// Package localgw plays API Gateway (REST API, Lambda proxy integration) on
// a laptop: it routes plain HTTP requests, checks API keys, turns each
// request into the events.APIGatewayProxyRequest API Gateway would send and
// turns the handler's events.APIGatewayProxyResponse back into HTTP. The
// handlers are the same code the Lambdas run, called in-process.
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
//   - Path and path parameters stay percent-encoded, query parameters are
//     decoded; maps with nothing in them are nil, as AWS sends null.
//   - The caller's identity: with a key it accepts (Options.APIKeys, the
//     usage plan's keys), requestContext.identity carries apiKey and
//     apiKeyId. Neither is the owner: the functions look the key up in the
//     keys table (shared/apikey), on AWS and here alike.
//   - A handler error, a panic or a malformed response is a 502 with
//     {"message": "Internal server error"}; a handler still running after
//     the integration timeout (29 s) is a 504.
//   - A client that goes away does not cancel the handler's context: the
//     invocation runs on to its answer or the timeout, as in AWS.
//
// What it does differently, on purpose: missing and unknown API keys are
// 401 and 403 problem+json, unknown paths a 404 problem and a wrong method a
// 405 problem, in the vocabulary of shared/apigw, where bare API Gateway
// answers 403 {"message": ...} to all of them; requests are capped at 1 MiB
// (413); non-UTF-8 bodies are sent base64-encoded without any binary media
// type configuration; and until the readiness check passes, every route
// but /healthz answers 503.
package localgw
