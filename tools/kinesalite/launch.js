#!/usr/bin/env node
// launch.js starts kinesalite (an in-memory Kinesis emulator) bound to
// 127.0.0.1 only. kinesalite's own CLI has no host option and listens on every
// interface.
//
// Usage: node tools/kinesalite/launch.js PORT [--exit-on-stdin-eof]
//
// PORT 0 lets the kernel choose a free port. Once the server listens, one line
// is printed to standard output:
//
//   kinesalite ready: http://127.0.0.1:PORT
//
// With --exit-on-stdin-eof the process exits when its standard input reaches
// end of file, so it dies with the process that started it.
//
// It is started by internal/emulator (see StartKinesalite); kinesalite itself
// is the version pinned in package.json (run `npm ci`).
'use strict'

const HOST = '127.0.0.1'

function usage (problem) {
  console.error('kinesalite launcher: ' + problem)
  console.error('usage: node tools/kinesalite/launch.js PORT [--exit-on-stdin-eof]')
  process.exit(2)
}

let port = null
let exitOnStdinEOF = false
for (const arg of process.argv.slice(2)) {
  if (arg === '--exit-on-stdin-eof') {
    exitOnStdinEOF = true
  } else if (port === null) {
    if (!/^[0-9]+$/.test(arg) || Number(arg) > 65535) usage('invalid PORT ' + arg)
    port = Number(arg)
  } else {
    usage('unexpected argument ' + arg)
  }
}
if (port === null) usage('missing PORT')

let kinesalite
try {
  kinesalite = require('kinesalite')
} catch (err) {
  console.error('kinesalite launcher: cannot load kinesalite (run `npm ci` in the repository root): ' + err.message)
  process.exit(1)
}

const server = kinesalite({
  createStreamMs: 0,
  deleteStreamMs: 0,
  updateStreamMs: 0,
  // The test suite shares one kinesalite and gives every test a stream of
  // its own, so the account-wide shard limit is AWS's default quota for the
  // largest Regions (500), not kinesalite's 100:
  // https://docs.aws.amazon.com/streams/latest/dev/service-sizes-and-limits.html
  shardLimit: 500
})

server.on('error', (err) => {
  console.error('kinesalite launcher: ' + err.message)
  process.exit(1)
})

server.listen(port, HOST, () => {
  const addr = server.address()
  console.log('kinesalite ready: http://' + addr.address + ':' + addr.port)
})

function shutdown () {
  server.close(() => process.exit(0))
  // In-memory data needs no flushing; do not wait for idle keep-alive clients.
  setTimeout(() => process.exit(0), 1000).unref()
}

// kinesalite 3.3.3 throws from a request handler when a client abandons a
// request in flight (a cancelled context, a timeout), which would end the
// whole emulator and every test sharing it. One request's failure is that
// request's: log it and keep serving.
process.on('uncaughtException', (err) => {
  console.error('kinesalite launcher: request failed: ' + (err && err.stack ? err.stack : err))
})

process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)

if (exitOnStdinEOF) {
  process.stdin.on('data', () => {})
  process.stdin.on('end', () => {
    console.error('kinesalite launcher: standard input closed, exiting')
    process.exit(0)
  })
  process.stdin.on('error', () => process.exit(0))
  process.stdin.resume()
}
