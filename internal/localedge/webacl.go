package localedge

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// NonCanonicalPathBody is the web ACL's and the canonical-path function's
// answer to a percent-encoded redirect path (edgespec.NonCanonicalPathBody).
const NonCanonicalPathBody = edgespec.NonCanonicalPathBody

// nonCanonical reports whether the deployed edge refuses a
// redirect-behaviour request for escapedPath, the path as the viewer spelt
// it: any "%" in it. With WAF on, the web ACL's canonical-path rule
// (infra/edge WAFCanonicalPathRuleName) does; with WAF off (the default),
// a viewer-request CloudFront Function with the same answer
// (infra/edge CanonicalPathFunctionCode). Either runs before the cache.
// CloudFront would cache such a spelling under its own key, which an
// invalidation of the code's path never reaches, while the HTTP API origin
// decodes it to the code itself (internal/localgw httpapi.go). Both
// inspect every request before the cache, so the spelling is never kept
// and never reaches the origin.
func nonCanonical(escapedPath string) bool {
	return strings.IndexByte(escapedPath, '%') >= 0
}

// writeNonCanonical answers as the rule's custom response does: 400 with
// NonCanonicalPathBody as text/plain.
func writeNonCanonical(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/plain")
	h.Set("Content-Length", strconv.Itoa(len(NonCanonicalPathBody)))
	h.Set("X-Cache", ResultError+" from cloudfront")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte(NonCanonicalPathBody))
}
