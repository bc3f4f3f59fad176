#!/usr/bin/env bash
# Runs a command with one DynamoDB Local and one kinesalite shared by every
# test package: starts them on free loopback ports, exports their endpoints
# (SHORTENER_TEST_DYNAMODB_ENDPOINT, SHORTENER_TEST_KINESIS_ENDPOINT), runs
# the command, and stops them whatever happens.
#
#   scripts/with-emulators.sh go test ./...
set -euo pipefail
cd "$(dirname "$0")/.."

state=$(mktemp -d "${TMPDIR:-/tmp}/shortener-emulators.XXXXXX")
mkdir -p build/bin
go build -o build/bin/emulators ./cmd/emulators

build/bin/emulators -dynamodb-port 0 -kinesis-port 0 \
  -env-file "$state/env" -log-dir "$state" &
emulators=$!
cleanup() {
  kill "$emulators" 2>/dev/null || true
  wait "$emulators" 2>/dev/null || true
  rm -rf "$state"
}
trap cleanup EXIT INT TERM

for _ in $(seq 1 900); do
  [ -f "$state/env" ] && break
  if ! kill -0 "$emulators" 2>/dev/null; then
    echo "emulators failed to start; their logs:" >&2
    tail -n 40 "$state"/*.log >&2 || true
    exit 1
  fi
  sleep 0.2
done
if [ ! -f "$state/env" ]; then
  echo "emulators did not become ready within 180 s" >&2
  exit 1
fi
set -a
. "$state/env"
set +a
echo "emulators ready: $SHORTENER_TEST_DYNAMODB_ENDPOINT $SHORTENER_TEST_KINESIS_ENDPOINT" >&2
"$@"
