package localedge

import (
	"net/http"

	"github.com/shortlink-dev/shortener/console"
)

// The CloudFront Functions the distribution runs (shared/edgespec), played
// in Go: each gets the viewer's request before the cache and either
// answers it or hands on the request, possibly with another URI, as a
// viewer-request function does
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-event-structure.html).

// canonicalPathFunction plays the canonical-path function: a redirect
// path spelt with a "%" gets the 400 the web ACL's rule would answer
// (webacl.go).
func canonicalPathFunction(w http.ResponseWriter, r *http.Request) (*http.Request, int, bool) {
	if !nonCanonical(r.URL.EscapedPath()) {
		return r, 0, false
	}
	writeNonCanonical(w)
	return r, http.StatusBadRequest, true
}

// consoleRewriteFunction plays the console's rewrite function: /console
// answers a 301 to /console/ (the page's relative links need the slash),
// and /console/ asks the bucket for index.html, since S3 has no directory
// index behind an origin access control
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/example-function-add-index.html).
func consoleRewriteFunction(w http.ResponseWriter, r *http.Request) (*http.Request, int, bool) {
	switch r.URL.Path {
	case "/console":
		h := w.Header()
		h.Set("Location", console.PathPrefix)
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusMovedPermanently)
		return r, http.StatusMovedPermanently, true
	case console.PathPrefix:
		out := r.Clone(r.Context())
		out.URL.Path, out.URL.RawPath = console.PathPrefix+"index.html", ""
		out.RequestURI = out.URL.RequestURI()
		return out, 0, false
	}
	return r, 0, false
}
