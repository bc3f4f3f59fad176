package cloudfrontjs

import "strings"

// disallowedHeaders are the headers CloudFront never shows an edge
// function and refuses from one: a function that adds one fails
// validation, and the viewer gets a 502
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html#function-restrictions-disallowed-headers).
// disallowedPrefixes are the X-Amz-Cf-* and X-Edge-* patterns of that
// list.
var (
	disallowedHeaders = map[string]bool{
		"connection": true, "expect": true, "keep-alive": true,
		"proxy-authenticate": true, "proxy-authorization": true, "proxy-connection": true,
		"trailer": true, "upgrade": true,
		"x-accel-buffering": true, "x-accel-charset": true, "x-accel-limit-rate": true, "x-accel-redirect": true,
		"x-amzn-auth": true, "x-amzn-cf-billing": true, "x-amzn-cf-id": true, "x-amzn-cf-xff": true,
		"x-amzn-errortype": true, "x-amzn-fle-profile": true, "x-amzn-header-count": true,
		"x-amzn-header-order": true, "x-amzn-lambda-integration-tag": true, "x-amzn-requestid": true,
		"x-cache": true, "x-forwarded-proto": true, "x-real-ip": true,
	}
	disallowedPrefixes = []string{"x-amz-cf-", "x-edge-"}
)

// DisallowedHeader reports whether CloudFront hides the header name from
// edge functions and refuses it from them.
func DisallowedHeader(name string) bool {
	name = strings.ToLower(name)
	if disallowedHeaders[name] {
		return true
	}
	for _, p := range disallowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// readOnlyHeaders are, per event type, the headers a function sees but
// may not add, change or remove
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html#function-restrictions-read-only-headers).
var readOnlyHeaders = map[string][]string{
	EventViewerRequest:  {"content-length", "host", "transfer-encoding", "via"},
	EventViewerResponse: {"content-encoding", "content-length", "transfer-encoding", "warning", "via"},
}

// ReadOnlyHeader reports whether a function of eventType may read the
// header name but not set it.
func ReadOnlyHeader(eventType, name string) bool {
	name = strings.ToLower(name)
	for _, h := range readOnlyHeaders[eventType] {
		if h == name {
			return true
		}
	}
	return false
}
