// Package docs carries the documents the service serves itself. Today that
// is problems.md, the text of every RFC 9457 problem type the API answers:
// shared/apigw renders it as the page at /v1/problems, which every problem's
// type refers to.
package docs

import _ "embed"

// Problems is problems.md.
//
//go:embed problems.md
var Problems string
