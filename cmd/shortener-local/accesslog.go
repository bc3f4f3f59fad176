package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/shortlink-dev/shortener/internal/localgw"
)

// accessLog logs one line per request once it is answered, for the answers
// mode keeps. Off, it is next itself: nothing is added to a request.
func accessLog(log *slog.Logger, mode accessLogMode, next http.Handler) http.Handler {
	return logRequests(log, mode, "request", nil, next)
}

// logRequests logs a line named msg for each request it does not skip
// (nil skips none), once answered, for the answers mode keeps; off, it is
// next itself.
func logRequests(log *slog.Logger, mode accessLogMode, msg string, skip func(*http.Request) bool, next http.Handler) http.Handler {
	if mode == accessLogOff {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if skip != nil && skip(r) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if !mode.logs(sw.status) {
			return
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, msg,
			slog.String("method", r.Method),
			slog.String("path", r.URL.EscapedPath()),
			slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.Int64("bytes", sw.bytes),
			slog.String("request_id", requestID(w.Header())),
		)
	})
}

// requestID reads the id the gateway put on the response.
func requestID(h http.Header) string {
	//lint:ignore SA1008 the gateway stores the header spelt as AWS spells it, not in Go's canonical form
	if v := h[localgw.RequestIDHeader]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// statusWriter remembers the status and counts the body bytes.
type statusWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
