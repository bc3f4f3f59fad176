// Package edgeinfo gives the functions what exists only once the edge
// stack has deployed: the CloudFront distribution's ID and domain name.
// The edge stack publishes them in an SSM parameter in every Region
// (docs/deploy.md, "How the functions learn about the distribution"), and
// the functions that invalidate the edge or build short URLs read it the
// first time they need it, so one deploy gives a working system and no
// function pays for it at start-up.
package edgeinfo
