// Package linkapi is the JSON the /v1 API speaks: request and response
// bodies, and their translation to and from the link domain. Field names
// here are the public contract; openapi.yaml documents the same shapes.
package linkapi
