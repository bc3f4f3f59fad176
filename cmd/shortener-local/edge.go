package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/shortlink-dev/shortener/internal/localedge"
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

// edgeStatsPath serves the local edge's counters (localedge.Stats) as
// JSON: what CloudFront's metrics would show in AWS. Its dropped count is
// the real-time log records the edge lost because the click stream fell
// behind, which the clicks then lack (loadgen prints it next to the
// redirects served and the clicks counted).
const edgeStatsPath = "/_local/edge"

// edgeStats answers GET (and HEAD) of edgeStatsPath.
func edgeStats(stats func() localedge.Stats) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		b, err := json.Marshal(stats())
		if err != nil { // a struct of numbers always marshals
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
		if r.Method == http.MethodGet {
			_, _ = w.Write(append(b, '\n'))
		}
	})
}
