package apigw

// BinaryMediaTypes are the /v1 REST API's binaryMediaTypes, set in
// infra/api and played by the local gateway.
//
// "*/*", not "image/png": a REST API decodes a base64 proxy response (the
// QR code's PNG) only when the request's first Accept media type matches
// one of these, and an Accept of "*/*" (curl's), a browser's
// "text/html,...", or none at all never matches "image/png", so those
// clients got base64 text. "*/*" matches every request ("Binary media
// types for REST APIs in API Gateway",
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html).
// Its cost is on the way in: every request body then reaches the
// functions base64-encoded with isBase64Encoded set, which Body decodes.
// JSON answers are untouched: API Gateway decodes only a response that
// says isBase64Encoded.
var BinaryMediaTypes = []string{"*/*"}
