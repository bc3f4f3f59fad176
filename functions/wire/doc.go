// Package wire builds each function's handler from the loaded configuration
// and the clients it talks to, in one place: functions.go has one
// constructor per function (NewCreate, NewRedirect, NewManage, NewStats,
// NewClicks, NewTTLStream, NewReclaim, NewOriginAuth). The Lambda entry
// points (functions/<name>/main.go) and the local run (cmd/shortener-local)
// both call them, so what runs locally is built exactly as what runs in
// Lambda; only the Clients differ (clients.go).
package wire
