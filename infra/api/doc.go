// Package api provides the service's two API Gateway front doors: the
// redirect origin (an HTTP API, in every region) and the management API
// under /v1 (a REST API with API keys and a usage plan, in every region
// that takes writes: infra.V1Regions).
package api
