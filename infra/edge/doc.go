// Package edge provides the CloudFront side of the service: the
// distribution with its cache, origin request and response header
// policies, the redirect origin group, the real-time log feed to the click
// stream, and the optional WAF web ACL and custom domain. New builds it
// from the description of the distribution in shared/edgespec (the
// console's behaviours with the policies and function infra/webconsole
// makes), the same value the local edge (internal/localedge) plays, so the
// two cannot drift; infra's TestDistributionMatchesTheDescription reads the
// template back against it.
package edge
