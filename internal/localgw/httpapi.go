package localgw

import (
	"net/url"
	"strings"
)

// APIKind says which flavour of API Gateway a route belongs to. The
// deployed service has two: the /v1 REST API and the redirect's HTTP API
// (infra/api), and they hand a function different paths and bodies.
type APIKind int

const (
	// RESTAPI routes get the path percent-encoded, as sent, and binary
	// responses decoded only for a matching Accept (binary.go).
	RESTAPI APIKind = iota
	// HTTPAPI routes (payload format 1.0) get the path and path
	// parameters percent-decoded, and binary responses always decoded.
	HTTPAPI
)

// httpAPIPath is the path an HTTP API hands its integration for the
// escaped path a client sent, and false where the HTTP API answers 400
// Bad Request instead. HTTP APIs decode the path before routing, for
// payload format 1.0 path and pathParameters and 2.0 rawPath alike, and
// live captures show they decode twice and cut the path at a "?" the
// first decoding produced (hotsock/voker#8;
// middleapi/standard-server#93):
//
//	/a%20b     -> /a b
//	/a%3Fb     -> /a          (cut at the decoded "?")
//	/a%2Fb     -> /a/b        (so it no longer matches /{code})
//	/a%252Fb   -> /a/b        (decoded twice)
//	/a%253Fb   -> /a?b        (the second "?" is kept)
//	/a%25zz    -> 400         (the second decoding fails)
//
// So the function cannot tell /%61bcdefg from /abcdefg: the spelling
// CloudFront cached an answer under never reaches it.
func httpAPIPath(escaped string) (string, bool) {
	once, err := url.PathUnescape(escaped)
	if err != nil {
		return "", false
	}
	once, _, _ = strings.Cut(once, "?")
	twice, err := url.PathUnescape(once)
	if err != nil {
		return "", false
	}
	return twice, true
}
