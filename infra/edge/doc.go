// Package edge provides the CloudFront side of the service: the
// distribution with its cache, origin request and response header
// policies, the redirect origin group, the real-time log feed to the click
// stream, and the optional WAF web ACL and custom domain.
package edge
