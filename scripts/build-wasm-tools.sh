#!/usr/bin/env bash
# Builds the WASM tools under tools/wasm into OUTDIR (default tools/wasm/build):
# each tool's .wasm module, named by its manifest, plus the manifest beside it.
# Pure tools become pooled reactors (-buildmode=c-shared), the rest commands.
# Needs only Go; the build itself is tools/wasm/wasmbuild, which tests call too.
#
#   scripts/build-wasm-tools.sh [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/tools/wasm/build}"
case "$out" in
  /*) ;;
  *) out="$PWD/$out" ;; # relative to where the script was called from
esac
cd "$root"
exec go run ./tools/wasm/wasmbuild/cmd "$out"
