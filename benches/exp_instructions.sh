#!/usr/bin/env bash
# Instructions per value of the timeline model's exp (callgrind: repeatable whatever the load):
# the C library's exp, the scalar replica, and the replica eight lanes at a time (exp8), each
# run at SMALL and LARGE values; the difference per value cancels start-up and input set-up.
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
for kind in c_library replica exp8 log_normal8; do
  small_count=$(count "$kind" "$small")
  large_count=$(count "$kind" "$large")
  echo "$kind: $(((large_count - small_count) / (large - small))) instructions per value ($small_count at $small, $large_count at $large)"
done
