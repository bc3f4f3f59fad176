package main

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// originLog logs one "origin request" line for each request the edge
// forwards on its redirect behaviour: the requests CloudFront would send
// to the redirect API, as opposed to the viewer requests the outer access
// log shows. Their count next to the viewer requests is the edge's miss
// count; the /v1 API, always forwarded, is left out. mode is the access
// log's: off, it is next itself.
func originLog(log *slog.Logger, mode accessLogMode, next http.Handler) http.Handler {
	if mode == accessLogOff {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
		if first == "v1" || first == "_local" || first == "healthz" {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if !mode.logs(sw.status) {
			return
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "origin request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.EscapedPath()),
			slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", requestID(w.Header())),
		)
	})
}
