// Package rie runs the functions' real bootstrap binaries under the AWS
// Lambda Runtime Interface Emulator (RIE), the packaging test: a binary
// built the way `make build` builds it, started the way Lambda's
// provided.al2023 runtime starts it, answering real event JSON.
//
// Build compiles the functions exactly as the Makefile does (CGO_ENABLED=0,
// -tags lambda.norpc, -trimpath, -ldflags "-s -w") but for the host's
// architecture: the deployed binaries are linux/arm64 and cannot run on an
// amd64 test machine. Install builds the emulator, pinned to Version, from
// its Go module with `go install`; it is not a dependency of the main
// module, so its own dependencies (and its newer go directive) stay out of
// go.mod, and the module checksum database still verifies what is built.
//
// Start runs one function: the emulator on two free ports of 127.0.0.1
// (its invoke API and the Runtime API it serves the bootstrap), with only
// the environment it is given, so nothing of the host's AWS configuration
// leaks in. The function initialises on the first invoke, as in Lambda, and
// the emulator reports the init time in its REPORT line, which Invoke
// returns. The emulator cannot take two invokes at once (the second fails
// or crashes it), so a Function sends them one at a time.
package rie
