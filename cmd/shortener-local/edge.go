package main

import (
	"log/slog"
	"net/http"
	"strings"
)

// originLog logs one "origin request" line for each request the edge
// forwards on its redirect behaviour: the requests CloudFront would send
// to the redirect API, as opposed to the viewer requests the outer access
// log shows. Their count next to the viewer requests is the edge's miss
// count; the /v1 API, always forwarded, is left out. mode is the access
// log's: off, it is next itself.
func originLog(log *slog.Logger, mode accessLogMode, next http.Handler) http.Handler {
	return logRequests(log, mode, "origin request", notRedirect, next)
}

// notRedirect reports whether r is outside the edge's redirect behaviour.
func notRedirect(r *http.Request) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	return first == "v1" || first == "_local" || first == "healthz"
}
