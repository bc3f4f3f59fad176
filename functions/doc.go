// Package functions holds the Lambdas, one folder each. A function is
// built in one file beside its handler: functions/<fn>/<fn>fn/build.go has
// Build, which makes the handler from the loaded configuration and
// shared/fnclients' Clients, and functions/<fn>/main.go is its Lambda
// entry point, a few lines that hand Build to fnclients.Lambda and start
// the handler. The local run (cmd/shortener-local) calls the same Build
// with its own Clients. This package has no code: its test holds each
// bootstrap to the SDK clients and handlers it links.
package functions
