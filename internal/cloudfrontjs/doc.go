// Package cloudfrontjs runs CloudFront Functions (runtime cloudfront-js-2.0)
// on an embedded JavaScript engine, so the local edge runs the very source
// infra deploys instead of a Go imitation of it.
//
// A Function is compiled once with the runtime's load-time rules (10 KB of
// source, a function named handler, only the language features AWS lists
// for the runtime) and then called per viewer event with CloudFront's event
// structure
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-event-structure.html).
// What the function returns is validated as CloudFront validates it: the
// headers edge functions may not see or set
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html),
// field types, sizes. An error is ErrExecution (the function threw, ran out
// of its compute budget, or its promise never settled: CloudFront answers
// 503) or ErrInvalidResult (CloudFront answers 502); StatusFor maps them.
//
// What the engine (github.com/dop251/goja) has beyond cloudfront-js-2.0
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html)
// is refused: syntax not on AWS's list at Compile (classes, generators,
// destructuring, spread, for-of, optional chaining, ?? and the like, see
// checkSyntax), globals not on it are absent (Map, Set, Symbol, Proxy,
// Reflect, ...), eval and the Function constructor throw, there are no
// timers, no file system and no network. Date reads the time the
// invocation started, as CloudFront freezes it. The built-in modules are
// crypto (createHash, createHmac; md5, sha1, sha256), querystring, and
// cloudfront's kvs() handle of an associated key value store
// (WithKeyValueStore; get in the string and json formats, and exists);
// the cloudfront module without a store, its origin helpers, meta() and
// Buffer are refused with an error that says so, since nothing here models
// them yet.
//
// Not filtered: the methods of the built-in objects that are there. The
// engine has a few later than AWS's list (String.prototype.at and
// replaceAll, Array.prototype.flat, Object.hasOwn, ...), which a function
// should not rely on until AWS lists them.
//
// Not modelled: the 2 MB memory limit (a runaway allocation usually hits
// the compute budget first) and CloudFront's exact compute scale; the
// budget here is a generous wall-clock bound (DefaultBudget), so a function
// that passes locally can still be too slow on CloudFront. Each invocation
// runs the function's code from its top level, so no top-level variable
// outlives it; engines are pooled, though, so what a function writes onto
// globalThis or a built-in prototype can reach a later invocation.
package cloudfrontjs
