#!/usr/bin/env bash
# Compares the code-mode benchmarks of two commits in one run: builds the
# engine and sandbox/js test binaries of BASE (in a temporary worktree) and
# of the working tree, runs them in turn (A B A B ..., one CPU, so a drift in
# the machine's speed touches both alike) and prints benchstat's comparison.
# Usage: scripts/ab.sh BASE [regexp] [rounds]
#   regexp defaults to 'Execute$|Setup$|RunEmpty$' (whole benchmarks: go test
#   splits a -bench pattern at slashes), rounds to 6.
# Numbers go to docs/benchmarks.md together with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/ab.sh BASE [regexp] [rounds]}
pattern=${2:-'Execute$|Setup$|RunEmpty$'}
rounds=${3:-6}
dir=$(mktemp -d)
trap 'git worktree remove --force "$dir/base" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git worktree add --detach "$dir/base" "$base" >/dev/null
for pkg in engine sandbox/js; do
  name=$(basename "$pkg")
  (cd "$dir/base" && go test -c -o "$dir/before-$name.test" "./$pkg")
  go test -c -o "$dir/after-$name.test" "./$pkg"
done
for i in $(seq "$rounds"); do
  for side in before after; do
    for pkg in engine sandbox/js; do
      name=$(basename "$pkg")
      src=.
      if [ "$side" = before ]; then src="$dir/base"; fi
      (cd "$src/$pkg" && "$dir/$side-$name.test" -test.run '^$' -test.bench "$pattern" -test.benchmem -test.cpu 1 \
        -test.count 1) >>"$dir/$side.txt"
    done
  done
done
(cd "$dir" && go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da before.txt after.txt)
