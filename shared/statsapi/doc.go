// Package statsapi is the JSON of GET /v1/links/{code}/stats
// (components/schemas/Stats in api/openapi.yaml): the stats function
// writes it and the CLI reads it. It imports nothing of AWS, so the CLI
// links only these types.
package statsapi
