// Package fnclients is what every function is built from besides its
// configuration: the Clients it talks to outside itself, and Lambda, which
// loads both as a Lambda entry point has them. Each function's handler
// package builds it in its build.go (functions/<fn>/<fn>fn), from
// config.Config and Clients; its main.go calls Lambda with that build, and
// the local run (cmd/shortener-local) calls the same build with its own
// Clients, so what runs locally is built exactly as what runs in Lambda.
//
// It links no SDK service client: each build makes the clients its
// function calls from Clients.AWS, so a bootstrap links only those
// (docs/benchmarks.md, "Cold start"). Nor does it read the SDK's shared
// configuration (lambdaAWS).
package fnclients
