#!/usr/bin/env bash
# Rebuilds the WebAssembly test fixtures: compiles every testdata/wasm/*.wat
# to the .wasm beside it with wat2wasm (from wabt). The output is
# deterministic, so rebuilding unchanged sources leaves the .wasm files
# byte-identical. Commit the .wat and the .wasm together.
# Usage: scripts/build-wasm-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v wat2wasm >/dev/null 2>&1; then
	echo "install wabt: apt-get install -y wabt" >&2
	exit 1
fi
shopt -s nullglob
wats=(testdata/wasm/*.wat)
if [ ${#wats[@]} -eq 0 ]; then
	echo "no testdata/wasm/*.wat files" >&2
	exit 1
fi
for wat in "${wats[@]}"; do
	wat2wasm "$wat" -o "${wat%.wat}.wasm"
	echo "$wat -> ${wat%.wat}.wasm"
done
