// Package console holds what the deployed distribution and the local run
// must agree on about the web console: where it is served, the headers its
// answers carry (a strict Content-Security-Policy with no inline script;
// HTML never cached, content-hashed assets cached for a year as
// immutable), and where the build puts its files. The console itself is
// the JavaScript under src/, bundled by build.mjs with esbuild at build
// time (scripts/prereqs.sh runs it for make dev and make test).
package console
