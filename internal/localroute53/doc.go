// Package localroute53 plays, for the local run's Regions, the Route 53
// latency records with health checks that send the /v1 API's domain to the
// nearest healthy Region (docs/deploy.md): one record per Region, each with
// an HTTP health check of that Region's API.
//
// It follows the Route 53 Developer Guide:
//
//   - Health checks run on their own schedule, never when a query arrives,
//     every RequestInterval: 30 s by default, 10 s for fast checks; the
//     local run makes it configurable and short for tests
//     (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/dns-failover-determining-health-of-endpoints.html).
//   - An HTTP check passes when a TCP connection is made within four
//     seconds and the endpoint answers with a status from 200 to 399
//     within two seconds after that (same page; HealthCheckConfig Type in
//     https://docs.aws.amazon.com/Route53/latest/APIReference/API_HealthCheckConfig.html).
//   - A check changes status only after FailureThreshold consecutive
//     checks (1 to 10, default 3) that pass or fail, in either direction;
//     a new check is healthy until there is enough data to say otherwise
//     (same pages).
//   - A query is answered with the record the routing policy prefers (for
//     latency records, the Region nearest the resolver) when it is
//     healthy, else the next one; when every record is unhealthy, Route 53
//     answers as if all were healthy
//     (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/health-checks-how-route-53-chooses-records.html).
//
// Route 53 runs its checks from health checkers in many places and calls
// an endpoint healthy when more than 18 % of them say so; the local run has
// one checker, so one view. It has one viewer location too: the Regions'
// latency order is the order they are given in, the nearest first. DNS
// answers are not cached here: the record in use changes at the check that
// flips a status, where on AWS resolvers (CloudFront's included) may keep
// the old answer up to the record's TTL more.
package localroute53
