// Package infra assembles the service's AWS estate from the constructs in
// its subpackages: a data stack (the tables, in the primary region), a
// regional stack per region (functions, APIs, stream consumers; the
// primary's also the /v1 API, reclaim and the click pipeline) and an edge
// stack in us-east-1 (CloudFront, real-time logs, WAF). Configuration comes
// from CDK context (Config); docs/deploy.md walks through a deployment and
// docs/cost-model.md prices it.
package infra
