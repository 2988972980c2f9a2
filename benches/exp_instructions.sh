#!/usr/bin/env bash
# Instructions per value of the timeline model's exp (callgrind: repeatable whatever the load):
# the C library's exp and the scalar replica, each run at SMALL and LARGE values; the
# difference per value cancels start-up and input set-up. Valgrind does not emulate AVX-512,
# so the eight-lane functions cannot be counted here (under valgrind exp8 runs lane by lane);
# `cargo bench --bench exp` times them.
#
# Usage: benches/exp_instructions.sh [SMALL] [LARGE]   (needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-1048576}
large=${2:-10485760}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo bench --bench exp --no-run --quiet 2>/dev/null
binary=$(cargo bench --bench exp --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p')
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$1.$2" "$binary" --only "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for kind in c_library replica; do
  small_count=$(count "$kind" "$small")
  large_count=$(count "$kind" "$large")
  echo "$kind: $(((large_count - small_count) / (large - small))) instructions per value ($small_count at $small, $large_count at $large)"
done
