#!/usr/bin/env bash
# Runs the engine, sandbox and WASM tool benchmarks 6 times and prints medians with benchstat.
# Usage: scripts/bench.sh [regexp]   (default: all of them; code mode: 'Execute|Setup|RunEmpty';
#        WASM tools: 'Call|Timeout|GoTool|Compile')
# Numbers go to docs/benchmarks.md together with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern=${1:-.}
out=$(mktemp)
go test -run '^$' -bench "$pattern" -benchmem -count 6 ./engine/ ./sandbox/js/ ./sandbox/wasm/ ./bindings/wasmtool/ | tee "$out"
echo
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out"
