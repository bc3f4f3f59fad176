// Package failover puts one Region's /v1 API behind the name CloudFront
// sends /v1 to (docs/deploy.md, "Failover"): a regional custom domain, a
// Route 53 health check on the Region's own API, and the Region's latency
// record, which Route 53 leaves out of its answers while the check fails.
// CloudFront's origin failover covers only GET and HEAD, so the Region
// that takes a create is chosen by DNS instead.
package failover
