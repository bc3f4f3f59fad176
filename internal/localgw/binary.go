package localgw

import (
	"mime"
	"strings"
)

// The REST API's binary support, as "Binary media types for REST APIs in
// API Gateway" describes it
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html)
// and public captures of a deployed API confirm (ministackorg/ministack#767,
// localstack/localstack#12199):
//
//   - A Lambda proxy integration's response with isBase64Encoded is decoded
//     to bytes only when the request's Accept header, its first media type,
//     matches one of the API's binaryMediaTypes; otherwise the client gets
//     the base64 text, whatever the response's Content-Type. "image/*"
//     matches "image/png"; an Accept of "*/*" does not match "image/png".
//   - A binary media type of "*/*" matches every request, one without an
//     Accept header included: AWS's advice when the client's Accept order
//     cannot be controlled.
//   - A request body whose Content-Type matches reaches the function
//     base64-encoded with isBase64Encoded true; so with "*/*", every body
//     does, JSON included.
//
// An HTTP API has no binaryMediaTypes: it always decodes a response that
// says isBase64Encoded
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html).

// mediaTypeMatches reports whether header (an Accept or Content-Type
// value; for Accept only the first media type counts) matches one of the
// API's binary media types.
func mediaTypeMatches(header string, binaryMediaTypes []string) bool {
	first, _, _ := strings.Cut(header, ",")
	first = strings.TrimSpace(first)
	if mt, _, err := mime.ParseMediaType(first); err == nil {
		first = mt
	} else {
		first = ""
	}
	for _, t := range binaryMediaTypes {
		t = strings.ToLower(strings.TrimSpace(t))
		if mt, _, err := mime.ParseMediaType(t); err == nil {
			t = mt
		}
		switch {
		case t == "*/*":
			return true
		case first == "":
		case t == first:
			return true
		case strings.HasSuffix(t, "/*") && strings.HasPrefix(first, strings.TrimSuffix(t, "*")):
			return true
		}
	}
	return false
}
