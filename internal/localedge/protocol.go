package localedge

import (
	"net/http"
	"strconv"
	"strings"
)

// ViewerProtocolHeader says which protocol the viewer used. The local run
// listens on plain http, standing in for the distribution's https
// endpoint, so a request is an https viewer's unless this header says
// "http": what a TLS-terminating proxy in front of it sends for a plain
// request, and what a test sends to play an http viewer.
const ViewerProtocolHeader = "X-Forwarded-Proto"

// viewerUsedHTTP reports whether r stands for a request CloudFront got
// over plain http.
func viewerUsedHTTP(r *http.Request) bool {
	v := headerValue(r.Header, ViewerProtocolHeader)
	if v == "" {
		return false
	}
	// A chain of proxies lists one protocol each; the first is the viewer's.
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	return strings.EqualFold(strings.TrimSpace(v), "http")
}

// redirectToHTTPSBody is the page CloudFront sends with its 301.
const redirectToHTTPSBody = `<html>
<head><title>301 Moved Permanently</title></head>
<body>
<center><h1>301 Moved Permanently</h1></center>
<hr><center>CloudFront</center>
</body>
</html>
`

// writeRedirectToHTTPS is the redirect behaviour's answer to an http
// viewer. The distribution's ViewerProtocolPolicy there is
// redirect-to-https (infra/edge), for which CloudFront answers an http
// request itself, without asking the origin or its cache, with a 301 to
// the same URL over https; the viewer then sends its request again over
// https (CloudFront API Reference, CacheBehavior, ViewerProtocolPolicy:
// https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_CacheBehavior.html).
// Its log records have result type Redirect (CloudFront Developer Guide,
// "Standard logging reference", x-edge-result-type:
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html).
// The Location names the local run's own host over https, which it does
// not serve: what a viewer gets is what AWS sends, and a client playing the
// viewer sends its next request without the http header.
func writeRedirectToHTTPS(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Location", "https://"+r.Host+r.URL.RequestURI())
	h.Set("Content-Type", "text/html")
	h.Set("Content-Length", strconv.Itoa(len(redirectToHTTPSBody)))
	h.Set("Server", "CloudFront")
	h.Set("X-Cache", ResultRedirect+" from cloudfront")
	w.WriteHeader(http.StatusMovedPermanently)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(redirectToHTTPSBody)) // the viewer went away; nothing to tell it
	}
}

// writeHTTPSOnly is the /v1/* behaviour's answer to an http viewer: its
// ViewerProtocolPolicy is https-only, for which CloudFront answers 403
// (same API reference page).
func writeHTTPSOnly(w http.ResponseWriter) {
	writeRefusal(w, "This distribution only accepts HTTPS requests.")
}
