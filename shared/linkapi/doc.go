// Package linkapi is the JSON the /v1 API speaks: request and response
// bodies, and their translation to and from the link domain. Field names
// here, and the json tags of the rules and targets it shows as the domain
// has them (link.Rule, link.Target), are the public contract;
// api/openapi.yaml documents the same shapes.
package linkapi
