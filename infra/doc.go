// Package infra assembles the service's AWS estate from the constructs in
// its subpackages: a data stack (the tables, in the primary region), a
// regional stack per region (functions, APIs, stream consumers, and the
// /v1 API in every region with the reservation table, V1Regions; the
// primary's also reclaim, the click pipeline and webhook delivery) and an edge
// stack in us-east-1 (CloudFront, real-time logs, WAF). Configuration comes
// from CDK context (Config); docs/deploy.md walks through a deployment and
// docs/cost-model.md prices it.
package infra
