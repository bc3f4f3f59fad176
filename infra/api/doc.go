// Package api provides the service's two API Gateway front doors: the
// redirect origin (an HTTP API, in every region) and the management API
// under /v1 (a REST API with API keys and a usage plan, in every region
// that takes writes: infra.V1Regions).
//
// Both are built from their description in shared/edgespec (Redirect and
// Management), the value the local gateway (internal/localgw) configures
// itself from too: routes, integrations, authorizers, binary media types,
// payload format, timeouts, throttles, gateway responses and the usage
// plan are written there once, and the constructs loop over them. A part
// of the description this package does not build panics at synthesis
// rather than deploy less than it says; infra's TestAPIsAreTheDescription
// checks the synthesized templates against it.
package api
