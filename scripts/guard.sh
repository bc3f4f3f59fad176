#!/usr/bin/env bash
# Checks the synthesized templates (default: build/cdk.out) with AWS
# CloudFormation Guard and AWS Control Tower's proactive control rules, both
# from the pinned npm package @cdklabs/cdk-validator-cfnguard. Fails on any
# finding a resource does not suppress (infra/guard.go says which and why).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/cdk.out}
pkg=node_modules/@cdklabs/cdk-validator-cfnguard

case "$(uname -s)" in
  Linux) os=ubuntu ;;
  Darwin) os=macos ;;
  *) echo "guard: no cfn-guard binary for $(uname -s) in $pkg (it ships Linux and macOS ones)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) echo "guard: no cfn-guard binary for $(uname -m) in $pkg (it ships x86_64 and aarch64 ones)" >&2; exit 1 ;;
esac
bin=$pkg/bin/$os/$arch/cfn-guard
rules=$pkg/rules/control-tower/cfn-guard
if [ ! -x "$bin" ] || [ ! -d "$rules" ]; then
  echo "guard: $bin or $rules is missing: install the pinned npm packages (npm ci, or make prereqs)" >&2
  exit 1
fi
shopt -s nullglob
templates=("$out"/*.template.json)
if [ ${#templates[@]} -eq 0 ]; then
  echo "guard: no templates in $out: run make synth" >&2
  exit 1
fi
exec go run ./infra/cmd/shortener-guard -cfn-guard "$bin" -rules "$rules" "${templates[@]}"
