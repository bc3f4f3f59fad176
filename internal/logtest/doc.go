// Package logtest is the log buffer tests share: a Buffer that the
// goroutines of the code under test (handlers, pollers, a server, a child
// process's output) may write at once while the test reads it, and that
// decodes what was written as JSON lines (slog's JSON handler, CloudWatch
// embedded-metric records).
package logtest
