// Package viewer reads what CloudFront tells an origin about the viewer of
// a request, the inputs of a link's redirect rules: the country and device
// headers CloudFront adds (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html),
// Accept-Language and User-Agent. It also derives the device headers from a
// User-Agent for the local edge, which plays CloudFront.
package viewer
