// Package edgespec describes the service's CloudFront distribution as
// plain Go values: its behaviours in the order CloudFront matches them,
// their cache, origin request and response headers policies, their
// function associations and real-time log, the origins and origin groups,
// the error caching minimum and the web ACL.
//
// Distribution(opts) is the one description of the distribution. infra/edge
// and infra/webconsole build the CDK constructs from it, and the local edge
// (internal/localedge) configures itself from the same value, refusing to
// start on any part it does not play; a synthesis test in infra compares
// the template with it. So the deployed distribution and the local run's
// stand-in cannot drift apart. The package imports no CDK, jsii or AWS SDK
// code: functions and the local run may use it.
package edgespec
